// Each chunk is one parse error; --verify-diagnostics checks the message and line.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{use of undeclared SSA value name '%nope'}}
  %0 = ge.relu %nope : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-note@+1 {{previous definition here}}
  %0 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{redefinition of SSA value '%0'}}
  %0 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<2xf32>'}}
  %0 = ge.relu %a : (tensor<3xf32>) -> tensor<3xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{2 operands present, but expected 1 operand types}}
  %0 = ge.add %a, %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{unexpected '}', expected}}
  %0 = ge.relu %a {axis = } : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{unregistered operation 'ge.frobnicate' found in dialect ('ge')}}
  %0 = ge.frobnicate %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{operation defines 1 results but was provided 2 to bind}}
  %0:2 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  %s:2 = ge.split %a {num_outputs = 2} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  // expected-error@+1 {{result number 2 out of range: '%s' has 2 results}}
  %0 = ge.relu %s#2 : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  %s:2 = ge.split %a {num_outputs = 2} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  // expected-error@+1 {{'%s' names 2 results; use '%s#<index>'}}
  %0 = ge.relu %s : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{duplicate key 'axis' in dictionary attribute}}
  %0 = ge.softmax %a {axis = 0, axis = 0} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{inferred shape of elements literal ([3]) does not match type ([4])}}
  %c = ge.const {value = dense<[1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{undefined symbol alias id 'missing'}}
  %0 = ge.softmax %a {axis = #missing} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{unexpected character '$'}}
  %0 = ge.relu %a : (tensor<4xf32>) -> tensor<4xf32> $
  ge.return : () -> ()
}

// -----

// expected-error@+1 {{unknown element type 'q7'}}
ge.graph @g(%a: tensor<4xq7>) {
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{expected a result name without '#', got '%r#1'}}
  %r#1 = ge.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{expected a positive number of results}}
  %r:0 = ge.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{'ge.relu' has operands but no trailing ': (operand types) -> results'}}
  ge.relu %a
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{elements literal type must have static shape, got 'tensor<?xf32>'}}
  %c = ge.const {value = dense<[1.0]> : tensor<?xf32>} : () -> tensor<1xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{integer constant out of range for type 'ui8'}}
  %c = ge.const {value = dense<[1, 300]> : tensor<2xui8>} : () -> tensor<2xui8>
  ge.return : () -> ()
}

// -----

// A bracketed literal spells the type's own shape, as MLIR reads it: not a
// flat list of a 2-D type's elements, not sub-lists that disagree.
ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{inferred shape of elements literal ([4]) does not match type ([2, 2])}}
  %c = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{tensor literal is invalid; ranks are not consistent between elements}}
  %c = ge.const {value = dense<[[1.0], [2.0, 3.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{parsed zero elements, but type ('tensor<2xf32>') expected at least 1}}
  %c = ge.const {value = dense<> : tensor<2xf32>} : () -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

// An integer literal where the elements are floats, as MLIR rejects it, in a
// tensor, a vector and a complex tensor; a negative one for unsigned elements.
ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note@+1 {{add a trailing dot to make the literal a float}}
  %c = ge.const {value = dense<[1.5, 2]> : tensor<2xf32>} : () -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note@+1 {{add a trailing dot}}
  %r = ge.relu %a {test.v = dense<[1.0, 2]> : vector<2xf32>} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note@+1 {{add a trailing dot}}
  %r = ge.relu %a {test.c = dense<(1.5, 2)> : tensor<complex<f32>>} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{expected unsigned integer elements, but parsed negative value}}
  %c = ge.const {value = dense<[1, -2]> : tensor<2xui8>} : () -> tensor<2xui8>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{integer constant out of range for attribute of type 'i1'}}
  %r = ge.relu %a {test.flag = 2 : i1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{dense_resource needs a tensor type, got 'f32'}}
  %c = ge.const {value = dense_resource<blob> : f32} : () -> tensor<1xf32>
  ge.return : () -> ()
}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{expected a hex blob "0x..." for a resource}}
      blob: "DEADBEEF"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{malformed hex in resource blob}}
      blob: "0x0400000Z"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{resource blob is missing its 4-byte alignment header}}
      blob: "0x0400"
    }
  }
#-}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{integer constant out of range}}
  %r = ge.relu %a {test.arr = array<i8: 1, 300>} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

// A literal token is named by its spelling, as the grammar writes it.
// expected-error@+1 {{unexpected ')', expected 'module', '{-#', a string}}
)

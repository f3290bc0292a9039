// The ge.case verifier: one located diagnostic per case.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

ge.graph @g(%i: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.case' op operand 'branch_index' must be an i32 tensor, got tensor<i64>}}
  %r = ge.case %i ({
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<i64>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%i: tensor<2xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.case' op operand 'branch_index' must hold a single element, got tensor<2xi32>}}
  %r = ge.case %i ({
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<2xi32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.case' op branch #1 yields (tensor<4xi32>), but the op's results are (tensor<4xf32>)}}
  %r = ge.case %i ({
    ge.yield %x : (tensor<4xf32>) -> ()
  }, {
    %c = ge.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
    ge.yield %c : (tensor<4xi32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.case' op branch #0 yields (tensor<4xf32>, tensor<4xf32>), but the op's results are (tensor<4xf32>)}}
  %r = ge.case %i ({
    ge.yield %x, %x : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.case' op expected at least one region, but found 0}}
  %r = ge.case %i : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

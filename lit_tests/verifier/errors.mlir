// Verifier diagnostics, derived from the op declarations.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{'ge.add' op expected 2 operands, but found 1}}
  %0 = ge.add %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{'ge.relu' op unknown attribute 'axis' (known attributes:}}
  %0 = ge.relu %a {axis = 1} : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{'ge.softmax' op attribute 'axis' must be an integer, but got "one"}}
  %0 = ge.softmax %a {axis = "one"} : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'ge.relu' op result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>}}
  %0 = ge.relu %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error@+1 {{'ge.add' op operands are not broadcast-compatible: 'A' is 2x3, 'B' is 4x3}}
  %0 = ge.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+1 {{'ge.conv2d' op operand 'W' expects 2 x 1 (group) = 2 input channels, but 'X' has 3}}
  %0 = ge.conv2d %a, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.relu' op is part of a cycle in the graph}}
  %0 = ge.relu %1 : (tensor<2xf32>) -> tensor<2xf32>
  // expected-note@+1 {{'ge.relu' is on the cycle}}
  %1 = ge.relu %0 : (tensor<2xf32>) -> tensor<2xf32>
  ge.return %1 : (tensor<2xf32>) -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.relu' op operand #0 (%1) is used before it is defined; ops must be in topological order}}
  %0 = ge.relu %1 : (tensor<2xf32>) -> tensor<2xf32>
  // expected-note@+1 {{defined here}}
  %1 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return %0 : (tensor<2xf32>) -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.return' op must be the last operation in its block}}
  ge.return %a : (tensor<2xf32>) -> ()
  %0 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
}

// -----

// expected-error@+1 {{'ge.graph' op region #0 must end with 'ge.return'}}
ge.graph @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32>
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{'ge.record_event' op requires attribute 'event'}}
  ge.record_event : () -> ()
  ge.return : () -> ()
}

// -----

// expected-error@+1 {{'ge.graph' op ge.return operand types (tensor<2xf32>) do not match the function type results (tensor<3xf32>)}}
ge.graph @g(%a: tensor<2xf32>) -> tensor<3xf32> {
  ge.return %a : (tensor<2xf32>) -> ()
}

// -----

ge.graph @g(%a: tensor<2xf32>) {
  // expected-error@+1 {{integer constant out of range for attribute of type 'i8'}}
  %0 = ge.softmax %a {axis = 300 : i8} : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{'ge.relu' op expected 1 results, but found 2}}
  %r:2 = ge.relu %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{'ge.relu' op expected 0 regions, but found 1}}
  %r = ge.relu %a ({
    ge.yield : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{'ge.cmo' op attribute 'type' is 'flush', expected one of 'prefetch', 'invalidate', 'writeback', 'barrier'}}
  ge.cmo %a {type = "flush"} : (tensor<4xf32>) -> ()
  ge.return : () -> ()
}

// -----

ge.graph @g(%a: tensor<4xf32>) {
  // expected-error@+1 {{'ge.split' op declared results (3) disagrees with the 2 outputs of the split}}
  %s:3 = ge.split %a {num_outputs = 2} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  ge.return : () -> ()
}

// -----

// A window needs one size per spatial dim, for ConvTranspose as for Conv.
ge.graph @g(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error@+1 {{'ge.conv_transpose' op attribute 'kernel_shape' has 1 values for 2 spatial dims}}
  %y = ge.conv_transpose %x, %w {kernel_shape = [3]} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) {
  // expected-error@+1 {{'ge.conv_transpose' op attribute 'kernel_shape' = [3, 2] disagrees with 'W' (tensor<1x2x3x3xf32>)}}
  %y = ge.conv_transpose %x, %w {kernel_shape = [3, 2]} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x?x?xf32>) {
  // expected-error@+1 {{'ge.conv2d' op attribute 'kernel_shape' = [-1, 3] must be positive}}
  %y = ge.conv2d %x, %w {kernel_shape = [-1, 3]} : (tensor<1x1x3x3xf32>, tensor<2x1x?x?xf32>) -> tensor<1x2x?x?xf32>
  ge.return : () -> ()
}

// -----

// Resize's scales are finite and positive (ONNX's rule), its sizes non-negative.
ge.graph @g(%x: tensor<1x2x4x4xf32>) {
  %none = ge.none : () -> none
  %scales = ge.const {value = dense<[1.0, 0x7F800000, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error@+1 {{'ge.resize' op operand 'scales' must be finite and positive, got [1.0, inf, 2.0, 2.0]}}
  %up = ge.resize %x, %none, %scales {mode = "nearest"} : (tensor<1x2x4x4xf32>, none, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<1x2x4x4xf32>) {
  %none = ge.none : () -> none
  %scales = ge.const {value = dense<[1.0, 1.0, 0.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  // expected-error@+1 {{'ge.resize' op operand 'scales' must be finite and positive, got [1.0, 1.0, 0.0, 2.0]}}
  %up = ge.resize %x, %none, %scales {mode = "nearest"} : (tensor<1x2x4x4xf32>, none, tensor<4xf32>) -> tensor<1x2x0x8xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<1x2x4x4xf32>) {
  %none = ge.none : () -> none
  %sizes = ge.const {value = dense<[1, 2, -8, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  // expected-error@+1 {{'ge.resize' op operand 'sizes' must be non-negative, got [1, 2, -8, 8]}}
  %up = ge.resize %x, %none, %none, %sizes {mode = "nearest"} : (tensor<1x2x4x4xf32>, none, none, tensor<4xi64>) -> tensor<1x2x8x8xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<1x2x4x4xf32>) {
  // expected-error@+1 {{'ge.upsample' op upsample scales must be finite and positive, got [1.0, 1.0, -2.0, 2.0]}}
  %up = ge.upsample %x {scales = [1.0, 1.0, -2.0, 2.0]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g() {
  %start = ge.const {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %limit = ge.const {value = dense<0x7F800000> : tensor<f32>} : () -> tensor<f32>
  %delta = ge.const {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  // expected-error@+1 {{'ge.range' op range from 0.0 to inf by 1.0 has no finite length}}
  %r = ge.range %start, %limit, %delta : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%indices: tensor<3xi64>, %values: tensor<2xi32>) {
  %depth = ge.const {value = dense<0x7FC00000> : tensor<f32>} : () -> tensor<f32>
  // expected-error@+1 {{'ge.one_hot' op operand 'depth' must be a positive number, got nan}}
  %y = ge.one_hot %indices, %depth, %values : (tensor<3xi64>, tensor<f32>, tensor<2xi32>) -> tensor<3x?xi32>
  ge.return : () -> ()
}

// -----

// An operand that names axes, a shape or a count holds integers (ONNX types it int64).
ge.graph @g(%x: tensor<2x3xf32>) {
  %axes = ge.const {value = dense<0x7F800000> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error@+1 {{'ge.reduce_sum' op operand #1 must hold integers, got tensor<1xf32>}}
  %y = ge.reduce_sum %x, %axes : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<?x?xf32>
  ge.return : () -> ()
}

// -----

ge.graph @g(%x: tensor<4x1x1x1xf32>) {
  // expected-error@+1 {{'ge.avg_pool' op attribute 'kernel_shape' = [-1, -1] must be positive}}
  %y = ge.avg_pool %x {kernel_shape = [-1, -1]} : (tensor<4x1x1x1xf32>) -> tensor<4x1x3x3xf32>
  ge.return : () -> ()
}

// -----

// A shape computed from values holds at most 2^60 elements (its bytes stay a 64-bit count).
ge.graph @g() {
  %shape = ge.const {value = dense<4611686018427387904> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-error@+1 {{'ge.constant_of_shape' op result tensor<4611686018427387904xf32> holds 4.61e+18 elements, more than a tensor's bytes can number (1.15e+18 at most)}}
  %big = ge.constant_of_shape %shape : (tensor<1xi64>) -> tensor<4611686018427387904xf32>
  ge.return : () -> ()
}

// A batch-symbolic graph whose "same" padding is computed from its static H and
// W (Shape -> Gather -> Cast -> Div -> Ceil -> Cast -> Sub / Mul / Max -> Concat
// -> Pad): once the batch is bound, the padding folds and ge-run emulates one
// task list, compared with the single-stream build, not host-driven launches.
// RUN: ge-run %s --input-shape batch=2 | filecheck %s
// CHECK-NOT: host-driven
// CHECK: emulated 'main' on 910B2 (sink mode): {{[0-9]+}} tasks ({{[0-9]+}} kernels
// CHECK: speed-up over single stream
// CHECK: y: float32[2, 8, 7, 6]
// RUN: ge-opt %s --pass-pipeline='specialize-shapes{shapes="batch=2"}' | filecheck %s --check-prefix=BOUND
// BOUND: %pads = ge.const {value = dense<[0, 0, 1, 1, 0, 0, 1, 1]> : tensor<8xi64>}
// BOUND: ge.pad %x, %pads {mode = "constant"} : (tensor<2x3x13x11xf32>, tensor<8xi64>) -> tensor<2x3x15x13xf32>
// BOUND-NOT: ge.shape
ge.graph @main(%x: tensor<?x3x13x11xf32> {ge.name = "x", ge.symbols = ["batch", "", "", ""]}) -> (tensor<?x8x7x6xf32> {ge.name = "y", ge.symbols = ["batch", "", "", ""]}) {
  %w = ge.weights {value = dense<0.125> : tensor<8x3x3x3xf32>} : () -> tensor<8x3x3x3xf32>
  %w1 = ge.weights {value = dense<0.5> : tensor<8x3x1x1xf32>} : () -> tensor<8x3x1x1xf32>
  %w3 = ge.weights {value = dense<0.25> : tensor<8x8x3x3xf32>} : () -> tensor<8x8x3x3xf32>
  %axes = ge.const {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %sf = ge.const {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %s = ge.const {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %k = ge.const {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %one = ge.const {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %zero = ge.const {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %two = ge.const {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %no_pad = ge.const {value = dense<0> : tensor<2xi64>} : () -> tensor<2xi64>
  %shape = ge.shape %x : (tensor<?x3x13x11xf32>) -> tensor<4xi64>
  %hw = ge.gather %shape, %axes {axis = 0 : i64} : (tensor<4xi64>, tensor<2xi64>) -> tensor<2xi64>
  %hw_f = ge.cast %hw {to = f32} : (tensor<2xi64>) -> tensor<2xf32>
  %ratio = ge.div %hw_f, %sf : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %ceil = ge.ceil %ratio : (tensor<2xf32>) -> tensor<2xf32>
  %out = ge.cast %ceil {to = i64} : (tensor<2xf32>) -> tensor<2xi64>
  %last = ge.sub %out, %one : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %start = ge.mul %last, %s : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %reach = ge.add %start, %k : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %over = ge.sub %reach, %hw : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %pad = ge.max %over, %zero : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %low = ge.div %pad, %two : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %high = ge.sub %pad, %low : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %pads = ge.concat %no_pad, %low, %no_pad, %high {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<8xi64>
  %xp = ge.pad %x, %pads {mode = "constant"} : (tensor<?x3x13x11xf32>, tensor<8xi64>) -> tensor<?x?x?x?xf32>
  %a = ge.conv2d %xp, %w {strides = [2, 2]} : (tensor<?x?x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  %b0 = ge.conv2d %x, %w1 {strides = [2, 2]} : (tensor<?x3x13x11xf32>, tensor<8x3x1x1xf32>) -> tensor<?x8x7x6xf32>
  %b1 = ge.relu %b0 : (tensor<?x8x7x6xf32>) -> tensor<?x8x7x6xf32>
  %b = ge.conv2d %b1, %w3 {pads = [1, 1, 1, 1]} : (tensor<?x8x7x6xf32>, tensor<8x8x3x3xf32>) -> tensor<?x8x7x6xf32>
  %sum = ge.add %a, %b : (tensor<?x8x?x?xf32>, tensor<?x8x7x6xf32>) -> tensor<?x8x7x6xf32>
  %y = ge.relu %sum : (tensor<?x8x7x6xf32>) -> tensor<?x8x7x6xf32>
  ge.return %y : (tensor<?x8x7x6xf32>) -> ()
}

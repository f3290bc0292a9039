// Upstream MLIR reads our generic form and prints it back byte for byte.
// REQUIRES: mlir-peer
// RUN: ge-opt %s --mlir-print-op-generic > %t
// RUN: iree-opt --allow-unregistered-dialect --mlir-print-op-generic %t | diff %t -
// RUN: ge-opt %examples/resnet_block.mlir --mlir-print-op-generic > %t.resnet
// RUN: iree-opt --allow-unregistered-dialect --mlir-print-op-generic %t.resnet | diff %t.resnet -

ge.graph @main(%x: tensor<1x3x8x8xf32> {ge.name = "x"}) -> tensor<1x4x8x8xf32> {
  %w = ge.const {value = dense<[[[[0.5]]], [[[1.5]]], [[[2.5]]], [[[-0.125]]]]> : tensor<4x1x1x1xf32>} : () -> tensor<4x1x1x1xf32>
  %s0 = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %s1 = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %x1 = ge.slice %x, %s0, %s1, %s1 : (tensor<1x3x8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x1x8x8xf32>
  %c = ge.conv2d %x1, %w {strides = [1, 1], pads = [0, 0, 0, 0], group = 1, ge.note = "a \"quoted\" \\ string\n"} : (tensor<1x1x8x8xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x8x8xf32>
  %e = ge.leaky_relu %c {alpha = 1.0e-3 : f32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  ge.return %e : (tensor<1x4x8x8xf32>) -> ()
}

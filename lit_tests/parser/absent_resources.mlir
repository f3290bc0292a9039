// A dense_resource whose blob the file does not hold is an absent (elided)
// resource: it parses, verifies and prints back as it was, with no blob.
// RUN: ge-opt %s | filecheck %s
// RUN: ge-opt %s | ge-opt | filecheck %s
// CHECK: %w = ge.weights {value = dense_resource<conv_w> : tensor<64x3x3x3xf16>} : () -> tensor<64x3x3x3xf16>
// CHECK: %e = ge.weights {value = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
// CHECK-NOT: dialect_resources

// What needs the values says which weight it lacks, and how to get numbers.
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s --check-prefix=VALUES
// VALUES: absent_resources.mlir:[[# @LINE + 4]]:8: error: the interpreter needs the values of weight 'conv_w', which the model does not hold (it was imported without its weights); to get numbers, import the model with its weights file beside it, or run timing-only
// VALUES-NOT: Traceback

ge.graph @main(%x: tensor<1x3x8x8xf16>) -> (tensor<1x64x8x8xf16>, tensor<8xf32>) {
  %w = ge.weights {value = dense_resource<conv_w> : tensor<64x3x3x3xf16>} : () -> tensor<64x3x3x3xf16>
  %e = ge.weights {value = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
  %y = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x3x8x8xf16>, tensor<64x3x3x3xf16>) -> tensor<1x64x8x8xf16>
  ge.return %y, %e : (tensor<1x64x8x8xf16>, tensor<8xf32>) -> ()
}

// Large constants live in the dialect_resources section (hex blobs, a 4-byte
// alignment first, as MLIR writes them) and --elide-large-constants prints them short.
// RUN: ge-opt %s | filecheck %s
// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --elide-large-constants=2 | filecheck %s --check-prefix=ELIDED
// RUN: ge-opt %s --elide-large-constants=2 | ge-opt | filecheck %s --check-prefix=ELIDED
// RUN: ge-opt %s -mlir-elide-elementsattrs-if-larger=2 | filecheck %s --check-prefix=ELIDED

// CHECK: %w = ge.weights {value = dense_resource<conv_w> : tensor<4xf32>} : () -> tensor<4xf32>
// ELIDED: %w = ge.weights {value = dense_resource<__elided__> : tensor<4xf32>} : () -> tensor<4xf32>
// ELIDED: %c = ge.const {value = dense_resource<__elided__> : tensor<3xi32>}
// CHECK: %c = ge.const {value = dense<[1, 2, 3]> : tensor<3xi32>}
ge.graph @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = ge.weights {value = dense_resource<conv_w> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = ge.const {value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = ge.add %a, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %0 : (tensor<4xf32>) -> ()
}

// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       conv_w: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
// ELIDED-NOT: dialect_resources
{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

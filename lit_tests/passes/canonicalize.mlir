// canonicalize: fold constant reshapes/transposes, drop identity ops, erase dead pure ops.
// RUN: ge-opt %s --canonicalize --split-input-file | filecheck %s
// RUN: ge-opt %s --pass-pipeline='canonicalize' --split-input-file | filecheck %s
// RUN: ge-opt %s --canonicalize='max-iterations=1000' --split-input-file | filecheck %s

// CHECK-LABEL: ge.graph @fold_reshape
// CHECK-NEXT:    %r = ge.const {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
// CHECK-NEXT:    ge.return %r
ge.graph @fold_reshape() -> tensor<2x2xf32> {
  %c = ge.const {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %s = ge.const {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = ge.reshape %c, %s : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  ge.return %r : (tensor<2x2xf32>) -> ()
}

// -----

// CHECK-LABEL: ge.graph @fold_transpose
// CHECK-NEXT:    %t = ge.const {value = dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
// CHECK-NEXT:    ge.return %t
ge.graph @fold_transpose() -> tensor<2x2xi32> {
  %c = ge.const {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %t = ge.transpose %c {perm = [1, 0]} : (tensor<2x2xi32>) -> tensor<2x2xi32>
  ge.return %t : (tensor<2x2xi32>) -> ()
}

// -----

// A large folded constant goes to a resource blob, not an inline literal.
// CHECK-LABEL: ge.graph @fold_large
// CHECK-NEXT:    %t = ge.const {value = dense_resource<w_1> : tensor<3x8xf32>}
// CHECK: w_1: "0x1000000000000000000040400000C04000001041
ge.graph @fold_large() -> tensor<3x8xf32> {
  %c = ge.weights {value = dense_resource<w> : tensor<8x3xf32>} : () -> tensor<8x3xf32>
  %t = ge.transpose %c {perm = [1, 0]} : (tensor<8x3xf32>) -> tensor<3x8xf32>
  ge.return %t : (tensor<3x8xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x10000000000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B841"
    }
  }
#-}

// -----

// CHECK-LABEL: ge.graph @identities
// CHECK-NEXT:    %r = ge.relu %x
// CHECK-NEXT:    ge.return %r
ge.graph @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %i = ge.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = ge.transpose %i {perm = [0, 1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = ge.cast %t {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = ge.relu %c : (tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.return %r : (tensor<2x3xf32>) -> ()
}

// -----

// Dead pure ops go; ops with side effects stay.
// CHECK-LABEL: ge.graph @dead_code
// CHECK-NOT:     ge.sigmoid
// CHECK:         ge.all_reduce
// CHECK-NEXT:    ge.return %x
ge.graph @dead_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dead = ge.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %deader = ge.tanh %dead : (tensor<4xf32>) -> tensor<4xf32>
  %kept = ge.all_reduce %x : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %x : (tensor<4xf32>) -> ()
}

// -----

// A non-identity transpose of a non-constant stays.
// CHECK-LABEL: ge.graph @keep
// CHECK: ge.transpose
ge.graph @keep(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = ge.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  ge.return %t : (tensor<3x2xf32>) -> ()
}

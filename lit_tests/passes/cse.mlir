// cse: identical pure ops compute once; commutative operands match either way.
// RUN: ge-opt %s --cse --split-input-file | filecheck %s

// CHECK-LABEL: ge.graph @dedupe
// CHECK-NEXT:    %a = ge.add %x, %y
// CHECK-NEXT:    %m = ge.mul %a, %a
// CHECK-NEXT:    ge.return %m
ge.graph @dedupe(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = ge.add %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = ge.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %m : (tensor<4xf32>) -> ()
}

// -----

// Different attributes, non-commutative operand order, and side effects keep ops apart.
// CHECK-LABEL: ge.graph @distinct
// CHECK-COUNT-2: ge.softmax
// CHECK-COUNT-2: ge.sub
// CHECK-COUNT-2: ge.all_reduce
ge.graph @distinct(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s0 = ge.softmax %x {axis = 0} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s1 = ge.softmax %x {axis = 1} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %d0 = ge.sub %x, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %d1 = ge.sub %y, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r0 = ge.all_reduce %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %r1 = ge.all_reduce %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = ge.sum %s0, %s1, %d0, %d1, %r0, %r1 : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.return %0 : (tensor<4x4xf32>) -> ()
}

// -----

// Identical constants merge.
// CHECK-LABEL: ge.graph @consts
// CHECK-COUNT-1: ge.const
// CHECK-NOT: ge.const
ge.graph @consts(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = ge.const {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c1 = ge.const {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %a = ge.add %x, %c0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = ge.add %a, %c1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ge.return %b : (tensor<2xf32>) -> ()
}

// ge passes leave an op they do not know as it was: its properties, its
// successors and its regions of several blocks.
// RUN: ge-opt %s --allow-unregistered-dialect --mlir-print-op-generic --canonicalize --cse | filecheck %s
// RUN: ge-opt %s --allow-unregistered-dialect --mlir-print-op-generic --assign-engines --insert-events | filecheck %s
// RUN: ge-opt %s --allow-unregistered-dialect --mlir-print-op-generic --reuse-memory | filecheck %s
// RUN: ge-opt %s --allow-unregistered-dialect --mlir-print-op-generic --specialize-shapes | filecheck %s

// CHECK:      %1 = "foo.op"(%0) <{mode = #foo.mode<fast>, segments = array<i32: 1, 0>}> ({
// CHECK-NEXT: ^bb0(%arg1: tensor<4xf32>):
// CHECK-NEXT:   "foo.br"(%arg1)[^bb1] : (tensor<4xf32>) -> ()
// CHECK-NEXT: ^bb1:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT:   "foo.cond_br"(%arg1)[^bb1, ^bb2] <[1, "x"]> : (tensor<4xf32>) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT:   "foo.yield"(%arg1) : (tensor<4xf32>) -> ()
// reuse-memory gives the op's result its arena offset, as it does any op's.
// CHECK-NEXT: }) {note = !foo.type<"a<b>">{{(, offsets = \[[0-9]+\])?}}} : (tensor<4xf32>) -> tensor<4xf32>
ge.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "foo.op"(%0) <{mode = #foo.mode<fast>, segments = array<i32: 1, 0>}> ({
  ^bb0(%a: tensor<4xf32>):
    "foo.br"(%a)[^bb1] : (tensor<4xf32>) -> ()
  ^bb1:
    "foo.cond_br"(%a)[^bb1, ^bb2] <[1, "x"]> : (tensor<4xf32>) -> ()
  ^bb2:
    "foo.yield"(%a) : (tensor<4xf32>) -> ()
  }) {note = !foo.type<"a<b>">} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = ge.relu %1 : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %2 : (tensor<4xf32>) -> ()
}

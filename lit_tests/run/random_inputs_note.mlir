// An op that fails on the random inputs ge-run makes (here an expand reading
// its target shape from an input, all zeros) gets a note saying the inputs
// were random and how to give the model's own; both the emulator and the
// interpreter say so, and exit 1. With real inputs the run succeeds.
// RUN: not ge-run %s 2>&1 | filecheck %s
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s
// CHECK: random_inputs_note.mlir:15:10: error: {{.*}}ge.expand{{.*}}failed
// CHECK: note: the inputs were random (seed 0); an input read as a shape, an index or a size may need the model's own values: give them with --inputs
// CHECK-NOT: Traceback
// RUN: python -c "import numpy as np; np.savez('%t.npz', x=np.ones((1, 3, 1), np.float32), shape=np.array([3, 3]))"
// RUN: ge-run %s --inputs %t.npz | filecheck %s --check-prefix=GIVEN
// GIVEN: y: float32[1, 3, 3] mean=1
module {
  ge.graph @main(%x: tensor<1x3x1xf32> {ge.name = "x"}, %shape: tensor<2xi64> {ge.name = "shape"}) -> (tensor<1x3x3xf32> {ge.name = "y"}) {
    %y = ge.expand %x, %shape : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<1x3x3xf32>
    ge.return %y : (tensor<1x3x3xf32>) -> ()
  }
}

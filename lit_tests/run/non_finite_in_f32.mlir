// An output that is not finite in f32 either (a division by zero) is not f16's
// doing: under force_fp16 no op overflowed f16, and the warning says the model
// makes the values in f32 too, without pointing at another precision mode or
// at an op that overflowed. Random float inputs make no mask or index, and
// given inputs are the model's own: neither gets a note about random inputs
// (non_finite_random_mask.mlir has a mask).
// RUN: ge-run %s 2>&1 | filecheck %s --check-prefix=RANDOM
// RANDOM: ge-run: warning: output 'y' holds 32 non-finite value(s) of 32: no op overflowed f16 under --precision-mode force_fp16; the model makes them in f32 too
// RANDOM-NOT: note:
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | filecheck %s --check-prefix=INTERPRET
// INTERPRET: ge-run: warning: output 'y' holds 32 non-finite value(s) of 32: no op overflowed f16 under --precision-mode force_fp16; the model makes them in f32 too
// RUN: python -c "import numpy as np; np.savez('%t.npz', x=np.ones((4, 8), np.float32))"
// RUN: ge-run %s --inputs %t.npz 2>&1 | filecheck %s --check-prefix=GIVEN
// GIVEN: ge-run: warning: output 'y' holds 32 non-finite value(s) of 32: no op overflowed f16
// GIVEN-NOT: note: the inputs were random
module {
  ge.graph @main(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
    %z = ge.const {value = dense<0.000000e+00> : tensor<4x8xf32>} : () -> tensor<4x8xf32> loc("zero")
    %a = ge.abs %x : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("abs")
    %p = ge.add %a, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc("one")
    %y = ge.div %p, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc("by_zero")
    ge.return %y : (tensor<4x8xf32>) -> ()
  }
}

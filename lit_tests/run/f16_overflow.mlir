// An output that overflows f16 under the device's default precision mode
// (force_fp16: the matmul writes f16, whose largest value is 65504) gets a
// warning naming it, how many values the ops overflowed where f32 stays
// finite, and the mode that keeps f32, with a note at the first op that
// overflowed; the run still exits 0. Its random inputs are floats, which make
// no mask or index: no note about them, and no numpy warning about the mean.
// RUN: ge-run %s 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | filecheck %s --check-prefix=F16
// F16-NOT: RuntimeWarning
// F16: ge-run: warning: output 'y' holds {{[0-9]+}} non-finite value(s) of 256: under --precision-mode force_fp16 the model computes in f16, whose largest value is 65504 ({{[1-9][0-9]*}} value(s) of its ops overflowed f16 where f32 stays finite); --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-NEXT: big: note: the first op to overflow f16: 'ge.matmul' op, {{[1-9][0-9]*}} value(s)
// F16-NOT: note: the inputs were random
// F16-NOT: RuntimeWarning
// F16: y: float32[4, 64] mean={{nan|-?inf}}
// RUN: ge-run %s --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=F32
// F32-NOT: warning
// F32: y: float32[4, 64] mean=
// F32-NOT: {{inf|nan}}
module {
  ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<4x64xf32> {ge.name = "y"}) {
    %w = ge.const {value = dense<2.000000e+04> : tensor<64x64xf32>} : () -> tensor<64x64xf32> loc("w")
    %y = ge.matmul %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32> loc("big")
    ge.return %y : (tensor<4x64xf32>) -> ()
  }
}

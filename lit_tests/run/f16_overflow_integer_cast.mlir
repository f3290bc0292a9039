// Integers cast to float (a MatMulInteger's int32 sums, dequantized) overflow
// f16 past 65504 when the device's default precision mode (force_fp16) makes
// the cast write f16: the warning blames f16, not the model, and its note is
// at the cast. Under must_keep_origin_dtype the output is finite.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', q=np.array([[1000, -70000, 83878, 65504]], np.int32))"
// RUN: ge-run %s --inputs %t.npz 2>&1 | filecheck %s --check-prefix=F16
// F16: ge-run: warning: output 'y' holds 2 non-finite value(s) of 4: under --precision-mode force_fp16 the model computes in f16, whose largest value is 65504 (2 value(s) of its ops overflowed f16 where f32 stays finite); --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-NEXT: dequantize: note: the first op to overflow f16: 'ge.cast' op, 2 value(s)
// RUN: ge-run %s --inputs %t.npz --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=F32
// F32-NOT: warning
// F32: y: float32[1, 4] mean=
// F32-NOT: {{inf|nan}}
module {
  ge.graph @main(%q: tensor<1x4xi32> {ge.name = "q"}) -> (tensor<1x4xf32> {ge.name = "y"}) {
    %f = ge.cast %q {to = f32} : (tensor<1x4xi32>) -> tensor<1x4xf32> loc("dequantize")
    %s = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32> loc("scale")
    %y = ge.mul %f, %s : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32> loc("scaled")
    ge.return %y : (tensor<1x4xf32>) -> ()
  }
}

// An epsilon below f16's smallest value (6.0e-08) is flushed to zero when the
// precision mode converts the constant to f16, as GE converts it on the host:
// a normalisation x / max(|x|, eps) of a zero row then divides 0 by 0. The
// constant gets a warning at its op, and the NaN output is blamed on f16 with
// the mode that keeps f32, not called the model's own: in f32 the output is
// finite (no warning at all).
// RUN: ge-run %s 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --mode host 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=F32
// RUN: ge-opt %s --precision-mode='mode=force_fp16' -o /dev/null 2>&1 | filecheck %s --check-prefix=PASS
// F16-DAG: non_finite_flushed_constant.mlir:[[# @LINE + 14]]:12: warning: 'ge.const' op: 1 of its 1 value(s) not zero in f32 are flushed to zero in f16 (100.0%; f16's smallest value is 6.0e-08): under --precision-mode force_fp16 the model computes in f16; --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-DAG: ge-run: warning: output 'y' holds 8 non-finite value(s) of 32: no op overflowed f16 under --precision-mode force_fp16, but f16 flushed values to zero that f32 holds (each warned at its op), and a division or a logarithm makes NaN or infinity of a zero; --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-NOT: the model makes them in f32 too
// F32-NOT: warning
// F32: y: float32[4, 8] mean=
// PASS: non_finite_flushed_constant.mlir:[[# @LINE + 9]]:12: warning: 'ge.const' op: 1 of its 1 value(s) not zero in f32 are flushed to zero in f16
// PASS-NEXT: %eps = ge.const
// PASS-NEXT: ^
module {
  ge.graph @main(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
    // the first row of x is zeros: its norm is 0, and max(0, eps) is eps in f32, 0 in f16
    %m = ge.const {value = dense<[[0.0], [1.0], [1.0], [1.0]]> : tensor<4x1xf32>} : () -> tensor<4x1xf32>
    %z = ge.mul %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %n = ge.reduce_l2 %z {axes = [1], keepdims = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %eps = ge.const {value = dense<1.0e-12> : tensor<f32>} : () -> tensor<f32>
    %d = ge.max %n, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %y = ge.div %z, %d : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    ge.return %y : (tensor<4x8xf32>) -> ()
  }
}

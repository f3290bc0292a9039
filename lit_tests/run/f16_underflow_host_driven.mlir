// A graph with a data-dependent size runs as host-driven launches in the
// device's precision mode, as a static graph does (force_fp16 by default on the
// 910B2, or as --precision-mode says): the op whose f16 result flushes values
// that are not zero in f32 gets the same warning, at the op, as in the task
// sink; must_keep_origin_dtype keeps the graph's f32 and warns of nothing.
// RUN: ge-run %s --precision-mode force_fp16 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --precision-mode force_fp16 2>&1 | grep -c warning | filecheck %s --check-prefix=ONE
// RUN: ge-run %s --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=F32
// ONE: {{^}}1{{$}}
// F16: {{^}}{{.*}}f16_underflow_host_driven.mlir:[[# @LINE + 13]]:13: warning: 'ge.mul' op: {{[0-9]+}} of its {{[0-9]+}} value(s) not zero in f32 are flushed to zero in f16 ({{[0-9.]+}}%; f16's smallest value is 6.0e-08): under --precision-mode force_fp16 the model computes in f16; --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-NEXT: %tiny = ge.mul %small, %c
// F16-NEXT: ^
// F16: host-driven run on 910B2
// F16: tiny: float32[4, 64] mean=0
// F32-NOT: warning
// F32: host-driven run on 910B2
// F32: tiny: float32[4, 64] mean=
module {
  ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<4x64xf32> {ge.name = "tiny"}, tensor<2x?xi64> {ge.name = "nz"}) {
    %c = ge.const {value = dense<1.000000e-04> : tensor<f32>} : () -> tensor<f32>
    %small = ge.mul %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
    // about 1e-8: below f16's smallest value
    %tiny = ge.mul %small, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
    %r = ge.relu %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %nz = ge.nonzero %r : (tensor<4x64xf32>) -> tensor<2x?xi64>
    ge.return %tiny, %nz : (tensor<4x64xf32>, tensor<2x?xi64>) -> ()
  }
}

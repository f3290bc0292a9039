// An op whose f16 result flushes to zero values that are not zero in f32
// (f16 underflow, under the device's default precision mode force_fp16) gets a
// warning at the op with the count and the mode that keeps f32; the run still
// exits 0. The zeros Relu computes in f32 too are not an underflow: no warning.
// RUN: ge-run %s 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s 2>&1 | grep -c warning | filecheck %s --check-prefix=ONE
// RUN: ge-run %s --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=F32
// The same warning at the same op from every path that runs the numbers: host
// mode, and the interpreter given the precision mode (it runs the precision-mode
// pass alone first); as written (f32), the interpreter flushes nothing.
// RUN: ge-run %s --mode host 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | filecheck %s --check-prefix=F16
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | grep -c warning | filecheck %s --check-prefix=ONE
// RUN: ge-run %s --interpret 2>&1 | filecheck %s --check-prefix=F32
// --report json carries the counts, one object per op (none in f32).
// RUN: ge-run %s --report json 2>/dev/null | filecheck %s --check-prefix=JSON
// RUN: ge-run %s --precision-mode must_keep_origin_dtype --report json 2>/dev/null | filecheck %s --check-prefix=NOJSON
// JSON: "f16_underflow": [
// JSON: "op": "ge.mul",
// JSON-NEXT: "flushed": {{[0-9]+}},
// NOJSON: "makespan_us"
// NOJSON-NOT: "f16_underflow":
// ONE: {{^}}1{{$}}
// F16: {{^}}{{.*}}f16_underflow.mlir:[[# @LINE + 12]]:13: warning: 'ge.mul' op: {{[0-9]+}} of its {{[0-9]+}} value(s) not zero in f32 are flushed to zero in f16 ({{[0-9.]+}}%; f16's smallest value is 6.0e-08): under --precision-mode force_fp16 the model computes in f16; --precision-mode must_keep_origin_dtype keeps the model's f32
// F16-NEXT: %tiny = ge.mul %small, %c
// F16-NEXT: ^
// F16: tiny: float32[4, 64] mean=
// F32-NOT: warning
// F32: tiny: float32[4, 64] mean=
module {
  ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<4x64xf32> {ge.name = "tiny"}, tensor<4x64xf32> {ge.name = "r"}) {
    %c = ge.const {value = dense<1.000000e-04> : tensor<f32>} : () -> tensor<f32>
    // about 1e-4: f16 holds it
    %small = ge.mul %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
    // about 1e-8: below f16's smallest value
    %tiny = ge.mul %small, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
    %r = ge.relu %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    ge.return %tiny, %r : (tensor<4x64xf32>, tensor<4x64xf32>) -> ()
  }
}

// An ONNX op that neither a ge kernel nor onnx.reference computes stops the
// numbers with one located error (not onnx.reference's list of every op it
// knows), in the emulator and the interpreter; timing-only, it runs.
// RUN: not ge-run %s 2>&1 | filecheck %s --check-prefix=EMU
// EMU: unimplemented_onnx_op.mlir:{{[0-9]+}}:10: error: stream 0 task 0 (ge.onnx_op @ {{.*}}unimplemented_onnx_op.mlir:{{[0-9]+}}:10): no kernel computes ONNX op 'Frobnicate' (domain 'com.example'): onnx.reference does not implement it, so its values cannot be computed (ge-run --timing-only emulates its time)
// EMU-NOT: {{note: the inputs were random|Traceback}}
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s --check-prefix=INTERP
// INTERP: unimplemented_onnx_op.mlir:{{[0-9]+}}:10: error: 'ge.onnx_op' failed: no kernel computes ONNX op 'Frobnicate' (domain 'com.example')
// INTERP-NOT: {{note: the inputs were random|Traceback}}
// RUN: ge-run %s --timing-only | filecheck %s --check-prefix=TIMING
// TIMING: makespan
module {
  ge.graph @main(%x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}) {
    %y = ge.onnx_op %x {op_type = "Frobnicate", domain = "com.example", opset = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    ge.return %y : (tensor<4xf32>) -> ()
  }
}

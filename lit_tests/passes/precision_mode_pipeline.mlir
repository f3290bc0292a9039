// ge-default runs precision-mode after canonicalize and cse, before
// assign-engines: the device's default mode unless precision-mode= says
// otherwise (ge-default's mode= stays partition-streams' runtime mode).
// RUN: ge-opt %s --pass-pipeline='ge-default' --mlir-print-ir-after-all 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 mode=host}' --mlir-print-ir-after-all 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: ge-opt %s --pass-pipeline='ge-default{device=V100}' --mlir-print-ir-after-all 2>&1 | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --pass-pipeline='ge-default{precision-mode=must_keep_origin_dtype}' --mlir-print-ir-after-all 2>&1 | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --pass-pipeline='ge-default{precision-mode=allow_fp32_to_fp16}' --mlir-print-ir-after-all 2>&1 | filecheck %s --check-prefix=CUBE

// DEFAULT:      IR Dump After Cse (cse)
// DEFAULT:      IR Dump After PrecisionMode (precision-mode)
// DEFAULT:        %x_f16 = ge.cast %x {to = f16}
// DEFAULT-NEXT:   %w = ge.const {value = dense<2.500000e-01> : tensor<8x8xf16>}
// DEFAULT-NEXT:   %m = ge.matmul %x_f16, %w : (tensor<2x8xf16>, tensor<8x8xf16>) -> tensor<2x8xf16>
// DEFAULT-NEXT:   %y = ge.tanh %m : (tensor<2x8xf16>) -> tensor<2x8xf16>
// DEFAULT-NEXT:   %y_f32 = ge.cast %y {to = f32}
// DEFAULT-NEXT:   ge.return %y_f32 : (tensor<2x8xf32>) -> ()
// DEFAULT:      IR Dump After AssignEngines (assign-engines)
// The casts are tasks like any other: the lowered model has four.
// DEFAULT:      IR Dump After LowerToTasks (lower-to-tasks)
// DEFAULT-COUNT-4: rt.kernel

// KEEP:      IR Dump After PrecisionMode (precision-mode)
// KEEP-NEXT: module {
// KEEP-NEXT:   ge.graph @main
// KEEP-NEXT:     %w = ge.const {value = dense<2.500000e-01> : tensor<8x8xf32>}
// KEEP-NEXT:     %m = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>

// CUBE:      IR Dump After PrecisionMode (precision-mode)
// CUBE:        %m = ge.matmul %x_f16, %w : (tensor<2x8xf16>, tensor<8x8xf16>) -> tensor<2x8xf16>
// CUBE-NEXT:   %m_f32 = ge.cast %m {to = f32}
// CUBE-NEXT:   %y = ge.tanh %m_f32 : (tensor<2x8xf32>) -> tensor<2x8xf32>
ge.graph @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w = ge.const {value = dense<0.25> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %m = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %y = ge.tanh %m : (tensor<2x8xf32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

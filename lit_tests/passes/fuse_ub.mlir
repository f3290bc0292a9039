// fuse-ub: the elementwise ops GE fuses into the AICore op whose result they
// read (UB fusion) are marked: fused_operand on the consumer, fused_output on
// the producer, fused_bytes on the chain's head (what the chain reads besides
// itself) and fused_flops (the fused ops' vector work, which the head's core
// does). A remark per fused op (-Rpass=fuse-ub).
// RUN: ge-opt %s --assign-engines --fuse-ub --split-input-file | filecheck %s
// RUN: ge-opt %s --assign-engines --fuse-ub --split-input-file -Rpass=fuse-ub -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub{max-chain=1}' --split-input-file | filecheck %s --check-prefix=SHORT

// conv -> add(residual) -> relu: one kernel; the residual's 512 bytes are read by the head,
// which does the add's and the relu's 256 element operations each.
// CHECK-LABEL: ge.graph @residual
// CHECK: %c = ge.conv2d {{.*}}fused_bytes = 512 : i64, fused_flops = 512 : i64, fused_output
// CHECK: %a = ge.add %r, %c {{.*}}fused_operand = 1 : i64, fused_output
// CHECK: %y = ge.relu %a {{.*}}fused_operand = 0 : i64
// REMARK: remark: fused into 'ge.conv2d' (UB fusion): operand #1 stays in the unified buffer
// REMARK: remark: fused into 'ge.add' (UB fusion): operand #0 stays in the unified buffer
// SHORT-LABEL: ge.graph @residual
// SHORT: %a = ge.add {{.*}}fused_operand = 1
// SHORT-NOT: fused_operand = 0
ge.graph @residual(%x: tensor<1x16x4x4xf16>, %r: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x16x1x1xf16>} : () -> tensor<16x16x1x1xf16>
  %c = ge.conv2d %x, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %a = ge.add %r, %c : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.relu %a : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %y : (tensor<1x16x4x4xf16>) -> ()
}

// -----

// A convolution's SiLU (TbeConvSigmoidMulFusionPass): its result goes to a
// Sigmoid and to the Mul that takes the Sigmoid's; both run in its kernel.
// GE's pattern ends there: the residual add after it is a kernel of its own.
// CHECK-LABEL: ge.graph @conv_silu
// CHECK: %c = ge.conv2d {{.*}}fused_flops = {{[0-9]+}} : i64, fused_output
// CHECK: %s = ge.sigmoid %c {{.*}}fused_operand = 0 : i64, fused_output
// CHECK: %y = ge.mul %c, %s {{.*}}fused_operand = 1 : i64
// CHECK: %z = ge.add %y, %r {engine = "AICore"}
// REMARK: remark: fused into 'ge.conv2d' with the Mul that takes it (UB fusion, conv + sigmoid + mul): the convolution's result stays in the unified buffer
ge.graph @conv_silu(%x: tensor<1x16x4x4xf16>, %r: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x16x1x1xf16>} : () -> tensor<16x16x1x1xf16>
  %c = ge.conv2d %x, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %s = ge.sigmoid %c : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.mul %c, %s : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %z = ge.add %y, %r : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %z : (tensor<1x16x4x4xf16>) -> ()
}

// -----

// A convolution's result that a third op reads too stays in memory: the
// Sigmoid is its own kernel, the Mul fused into it.
// CHECK-LABEL: ge.graph @conv_silu_read_elsewhere
// CHECK: %c = ge.conv2d
// CHECK-NOT: fused_output
// CHECK-SAME: -> tensor<1x16x4x4xf16>
// CHECK: %s = ge.sigmoid %c {{.*}}fused_output
// CHECK: %y = ge.mul %c, %s {{.*}}fused_operand = 1 : i64
ge.graph @conv_silu_read_elsewhere(%x: tensor<1x16x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x16x1x1xf16>} : () -> tensor<16x16x1x1xf16>
  %c = ge.conv2d %x, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %s = ge.sigmoid %c : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.mul %c, %s : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %y, %c : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> ()
}

// -----

// A result read twice stays in memory: nothing is fused into its producer.
// Nor is an op on another engine, or an elementwise op that broadcasts its operand.
// CHECK-LABEL: ge.graph @not_fused
// CHECK-NOT: fused_operand
// CHECK: ge.return
ge.graph @not_fused(%x: tensor<4x16xf16>, %b: tensor<1x16xf16>) -> (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %m = ge.relu %x : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %s = ge.sigmoid %m : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %t = ge.tanh %m : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %p = ge.relu %x {engine = "AICPU"} : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %q = ge.relu %p : (tensor<4x16xf16>) -> tensor<4x16xf16>
  %n = ge.sigmoid %b : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %u = ge.add %n, %x : (tensor<1x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  %v = ge.add %u, %q : (tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  ge.return %s, %t, %u, %v, %q : (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) -> ()
}

// -----

// transformers' Conv1D: Gemm, Reshape back to (batch, tokens, width), then its
// GELU. The reshape stays between them (GE's ReshapeRecoveryPass puts it back,
// its sides' shapes differing), so the GELU is a kernel of its own; a remark
// says why.
// CHECK-LABEL: ge.graph @gemm_reshape_gelu
// CHECK: %g = ge.gemm
// CHECK-NOT: fused_output
// CHECK-SAME: -> tensor<32x64xf16>
// CHECK: %y = ge.gelu %r {engine = "AICore"}
// REMARK: remark: not fused into 'ge.gemm': the 'ge.reshape' between them stays (GE's ReshapeRecoveryPass keeps a reshape whose sides' shapes differ; UB fusion joins adjacent ops only)
ge.graph @gemm_reshape_gelu(%x: tensor<32x16xf16>) -> tensor<2x16x64xf16> {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x64xf16>} : () -> tensor<16x64xf16>
  %g = ge.gemm %x, %w : (tensor<32x16xf16>, tensor<16x64xf16>) -> tensor<32x64xf16>
  %s = ge.const {value = dense<[2, 16, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = ge.reshape %g, %s : (tensor<32x64xf16>, tensor<3xi64>) -> tensor<2x16x64xf16>
  %y = ge.gelu %r : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  ge.return %y : (tensor<2x16x64xf16>) -> ()
}

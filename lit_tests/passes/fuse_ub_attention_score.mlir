// fuse-ub on an Atlas inference device: BERT's attention — the score MatMul,
// its scale and mask, the softmax, the MatMul by the values and the permute of
// heads back — runs as one AttentionScore kernel (CANN's
// ZAttentionScoreFusionPass), the scores kept in the core. The score MatMul
// heads it: it does the softmax's vector work besides the scale's and the
// mask's (fused_flops), the second MatMul's multiplications (fused_cube_flops =
// 2 x 2 x 12 x 64 x 64 x 64), reads the scale, the mask and the values
// (fused_bytes = 2 + 16384 + 196608) and writes the permuted context
// (fused_result_bytes = 2 x 64 x 12 x 64 x 2 bytes). Only on the 310P, and only
// for the shapes the fusion takes.
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub{device=310P3}' --split-input-file | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub{device=310P3}' --split-input-file -Rpass=fuse-ub -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub{device=910B2}' --split-input-file | filecheck %s --check-prefix=TRAINING
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' --split-input-file | filecheck %s --check-prefix=PIPELINE

// CHECK-LABEL: ge.graph @bert_attention
// CHECK: %s = ge.matmul %q, %k {{.*}}fused_bytes = 212994 : i64, fused_cube_flops = 12582912 : i64, fused_flops = {{[0-9]+}} : i64, fused_output, fused_result_bytes = 196608 : i64, transB = 1 : i64}
// CHECK: %m = ge.mul %s, %scale {{.*}}fused_operand = 0 : i64, fused_output}
// CHECK: %a = ge.add %m, %mask {{.*}}fused_operand = 0 : i64, fused_output}
// CHECK: %p = ge.softmax %a {{.*}}fused_operand = 0 : i64, fused_output}
// CHECK: %c = ge.matmul %p, %v {{.*}}fused_operand = 0 : i64, fused_output}
// CHECK: %t = ge.transpose %c {{.*}}fused_operand = 0 : i64, perm = [0, 2, 1, 3]}
// REMARK: remark: fused with 'ge.matmul', its scale and mask, the MatMul by the values and the permute of heads into one AttentionScore kernel (ZAttentionScoreFusionPass): the scores stay in the core
// TRAINING-LABEL: ge.graph @bert_attention
// TRAINING-NOT: fused_cube_flops
// TRAINING: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
// PIPELINE: rt.kernel {attrs = {{{.*}}fused_cube_flops = 12582912 : i64{{.*}}op = "ge.matmul"
// PIPELINE: rt.kernel {attrs = {{{.*}}fused_operand = 0 : i64{{.*}}op = "ge.softmax"
ge.graph @bert_attention(%q: tensor<2x12x64x64xf16>, %k: tensor<2x12x64x64xf16>, %v: tensor<2x12x64x64xf16>, %mask: tensor<2x1x64x64xf16>) -> tensor<2x64x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x64x64xf16>, tensor<f16>) -> tensor<2x12x64x64xf16>
  %a = ge.add %m, %mask : (tensor<2x12x64x64xf16>, tensor<2x1x64x64xf16>) -> tensor<2x12x64x64xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<2x12x64x64xf16>) -> tensor<2x64x12x64xf16>
  ge.return %t : (tensor<2x64x12x64xf16>) -> ()
}

// -----

// One sequence of 12 heads: 12 batch-heads do not divide among the kernel's 8
// cores, so the fusion leaves the ops apart (BERT-base at batch 1).
// CHECK-LABEL: ge.graph @odd_batch_heads
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
ge.graph @odd_batch_heads(%q: tensor<1x12x64x64xf16>, %k: tensor<1x12x64x64xf16>, %v: tensor<1x12x64x64xf16>, %mask: tensor<1x1x64x64xf16>) -> tensor<1x64x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<1x12x64x64xf16>, tensor<1x12x64x64xf16>) -> tensor<1x12x64x64xf16>
  %m = ge.mul %s, %scale : (tensor<1x12x64x64xf16>, tensor<f16>) -> tensor<1x12x64x64xf16>
  %a = ge.add %m, %mask : (tensor<1x12x64x64xf16>, tensor<1x1x64x64xf16>) -> tensor<1x12x64x64xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<1x12x64x64xf16>) -> tensor<1x12x64x64xf16>
  %c = ge.matmul %p, %v : (tensor<1x12x64x64xf16>, tensor<1x12x64x64xf16>) -> tensor<1x12x64x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<1x12x64x64xf16>) -> tensor<1x64x12x64xf16>
  ge.return %t : (tensor<1x64x12x64xf16>) -> ()
}

// -----

// A sequence of 48 tokens: not a multiple of 32.
// CHECK-LABEL: ge.graph @short_sequence
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
ge.graph @short_sequence(%q: tensor<2x12x48x64xf16>, %k: tensor<2x12x48x64xf16>, %v: tensor<2x12x48x64xf16>, %mask: tensor<2x1x48x48xf16>) -> tensor<2x48x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<2x12x48x64xf16>, tensor<2x12x48x64xf16>) -> tensor<2x12x48x48xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x48x48xf16>, tensor<f16>) -> tensor<2x12x48x48xf16>
  %a = ge.add %m, %mask : (tensor<2x12x48x48xf16>, tensor<2x1x48x48xf16>) -> tensor<2x12x48x48xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<2x12x48x48xf16>) -> tensor<2x12x48x48xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x48x48xf16>, tensor<2x12x48x64xf16>) -> tensor<2x12x48x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<2x12x48x64xf16>) -> tensor<2x48x12x64xf16>
  ge.return %t : (tensor<2x48x12x64xf16>) -> ()
}

// -----

// The key stored transposed, 64 x S (an export's [0, 2, 3, 1] permute): the
// query and the key differ in shape. The model zoo's BERT script permutes the
// key as the query for this reason.
// CHECK-LABEL: ge.graph @key_stored_transposed
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
ge.graph @key_stored_transposed(%q: tensor<2x12x128x64xf16>, %kt: tensor<2x12x64x128xf16>, %v: tensor<2x12x128x64xf16>, %mask: tensor<2x1x128x128xf16>) -> tensor<2x128x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %kt : (tensor<2x12x128x64xf16>, tensor<2x12x64x128xf16>) -> tensor<2x12x128x128xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x128x128xf16>, tensor<f16>) -> tensor<2x12x128x128xf16>
  %a = ge.add %m, %mask : (tensor<2x12x128x128xf16>, tensor<2x1x128x128xf16>) -> tensor<2x12x128x128xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<2x12x128x128xf16>) -> tensor<2x12x128x128xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x128x128xf16>, tensor<2x12x128x64xf16>) -> tensor<2x12x128x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<2x12x128x64xf16>) -> tensor<2x128x12x64xf16>
  ge.return %t : (tensor<2x128x12x64xf16>) -> ()
}

// -----

// A mask of one row per sequence, B x 1 x 1 x S, broadcast over the queries:
// the fusion takes only a mask of B x 1 x S x S (the script expands it).
// CHECK-LABEL: ge.graph @row_mask
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
ge.graph @row_mask(%q: tensor<2x12x64x64xf16>, %k: tensor<2x12x64x64xf16>, %v: tensor<2x12x64x64xf16>, %mask: tensor<2x1x1x64xf16>) -> tensor<2x64x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x64x64xf16>, tensor<f16>) -> tensor<2x12x64x64xf16>
  %a = ge.add %m, %mask : (tensor<2x12x64x64xf16>, tensor<2x1x1x64xf16>) -> tensor<2x12x64x64xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<2x12x64x64xf16>) -> tensor<2x64x12x64xf16>
  ge.return %t : (tensor<2x64x12x64xf16>) -> ()
}

// -----

// No mask (a ViT's attention: its scores are only scaled): there is no
// FusedMulAdd for the pattern to start from.
// CHECK-LABEL: ge.graph @no_mask
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %m {axis = -1 : i64, engine = "AICore"}
ge.graph @no_mask(%q: tensor<2x12x64x64xf16>, %k: tensor<2x12x64x64xf16>, %v: tensor<2x12x64x64xf16>) -> tensor<2x64x12x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x64x64xf16>, tensor<f16>) -> tensor<2x12x64x64xf16>
  %p = ge.softmax %m {axis = -1 : i64} : (tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %t = ge.transpose %c {perm = [0, 2, 1, 3]} : (tensor<2x12x64x64xf16>) -> tensor<2x64x12x64xf16>
  ge.return %t : (tensor<2x64x12x64xf16>) -> ()
}

// -----

// The context read in its head-major layout, with no permute of heads after it:
// no ConfusionTransposeD to end the pattern.
// CHECK-LABEL: ge.graph @no_permute
// CHECK-NOT: fused_cube_flops
// CHECK: %p = ge.softmax %a {axis = -1 : i64, engine = "AICore"}
ge.graph @no_permute(%q: tensor<2x12x64x64xf16>, %k: tensor<2x12x64x64xf16>, %v: tensor<2x12x64x64xf16>, %mask: tensor<2x1x64x64xf16>) -> tensor<2x12x64x64xf16> {
  %scale = ge.const {value = dense<1.250000e-01> : tensor<f16>} : () -> tensor<f16>
  %s = ge.matmul %q, %k {transB = 1 : i64} : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %m = ge.mul %s, %scale : (tensor<2x12x64x64xf16>, tensor<f16>) -> tensor<2x12x64x64xf16>
  %a = ge.add %m, %mask : (tensor<2x12x64x64xf16>, tensor<2x1x64x64xf16>) -> tensor<2x12x64x64xf16>
  %p = ge.softmax %a {axis = -1 : i64} : (tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  %c = ge.matmul %p, %v : (tensor<2x12x64x64xf16>, tensor<2x12x64x64xf16>) -> tensor<2x12x64x64xf16>
  ge.return %c : (tensor<2x12x64x64xf16>) -> ()
}

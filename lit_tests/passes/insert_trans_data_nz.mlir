// insert-trans-data on a device whose cube loads no ND matrices (the 310P: no
// Intrinsic_fix_pipe_l0c2out in its platform config): a MatMul whose f16
// matrices are not all whole 16 x 16 fractals, and is no GEMV, takes its
// activations and writes its result in FRACTAL_NZ. The NZ value stays NZ into
// the ops that offer NZ for it (elementwise ops with a same-shaped operand, a
// scalar or an aligned bias; a softmax over the last axis; a layer norm of
// 16-aligned rows; another MatMul) and is converted back to ND for every other
// reader and for the graph's results. On the 910B (the default device) nothing
// changes.
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=310P3}' --split-input-file | filecheck %s --check-prefixes=CHECK,P310
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=310P3}' --split-input-file -Rpass=insert-trans-data -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --insert-trans-data --split-input-file | filecheck %s --check-prefix=B2
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=910B4}' --split-input-file | filecheck %s --check-prefix=B2
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=310P3 enable=false}' --split-input-file | filecheck %s --check-prefix=B2
// The 910A's cube loads no ND matrices either.
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=910A}' --split-input-file | filecheck %s --check-prefixes=CHECK,A910
// A second run finds every conversion in place and adds none.
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{device=310P3},insert-trans-data{device=310P3}' --split-input-file | filecheck %s --check-prefixes=CHECK,P310
// The pipeline's device reaches the pass, and the TransData is a kernel of its own.
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' --split-input-file | filecheck %s --check-prefix=PIPELINE

// B2-NOT: ge.trans_data

// A transformer block of 197 tokens: the token rows fill no whole fractal. The
// input converts once for both its readers; the bias add and the GELU keep NZ,
// the second MatMul reads NZ as it is, the residual add of two same-shaped
// values keeps NZ; the layer norm of 197 rows offers no NZ, so the sum goes back
// to ND. A constant weight is converted by ATC offline: no TransData.
// CHECK-LABEL: ge.graph @block
// CHECK:      %[[X:.*]] = ge.trans_data %x {dst_format = "FRACTAL_NZ", src_format = "ND"}
// CHECK-NEXT: %[[Q:.*]] = ge.matmul %[[X]], %w
// CHECK-NEXT: %[[QB:.*]] = ge.add %[[Q]], %b
// CHECK-NEXT: %[[A:.*]] = ge.gelu %[[QB]]
// CHECK-NEXT: %[[O:.*]] = ge.matmul %[[A]], %w
// CHECK-NEXT: %[[R:.*]] = ge.add %[[O]], %[[X]]
// CHECK-NEXT: %[[RN:.*]] = ge.trans_data %[[R]] {dst_format = "ND", src_format = "FRACTAL_NZ"}
// CHECK-NEXT: ge.layer_norm %[[RN]], %g
// CHECK-NOT:  ge.trans_data
// REMARK: remark: TransData ND -> FRACTAL_NZ of tensor<1x197x64xf16> before 'ge.matmul'
// REMARK: remark: TransData FRACTAL_NZ -> ND of tensor<1x197x64xf16> before 'ge.layer_norm'
// PIPELINE: attrs = {dst_format = "FRACTAL_NZ", src_format = "ND"}
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE: attrs = {dst_format = "ND", src_format = "FRACTAL_NZ"}
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE: // -----
ge.graph @block(%x: tensor<1x197x64xf16>, %b: tensor<64xf16>, %g: tensor<64xf16>) -> tensor<1x197x64xf16> {
  %w = ge.const {value = dense<0.5> : tensor<64x64xf16>} : () -> tensor<64x64xf16>
  %q = ge.matmul %x, %w : (tensor<1x197x64xf16>, tensor<64x64xf16>) -> tensor<1x197x64xf16>
  %qb = ge.add %q, %b : (tensor<1x197x64xf16>, tensor<64xf16>) -> tensor<1x197x64xf16>
  %a = ge.gelu %qb : (tensor<1x197x64xf16>) -> tensor<1x197x64xf16>
  %o = ge.matmul %a, %w : (tensor<1x197x64xf16>, tensor<64x64xf16>) -> tensor<1x197x64xf16>
  %r = ge.add %o, %x : (tensor<1x197x64xf16>, tensor<1x197x64xf16>) -> tensor<1x197x64xf16>
  %n = ge.layer_norm %r, %g : (tensor<1x197x64xf16>, tensor<64xf16>) -> tensor<1x197x64xf16>
  ge.return %n : (tensor<1x197x64xf16>) -> ()
}

// -----

// Attention over 50 tokens: both operands of the scores' BatchMatMul convert;
// the softmax over the last axis stays NZ (SoftmaxV2 offers NZ at any
// alignment on the 310P); the result goes back to ND for the graph.
// CHECK-LABEL: ge.graph @attention
// CHECK:      %[[Q:.*]] = ge.trans_data %q {dst_format = "FRACTAL_NZ", src_format = "ND"}
// CHECK-NEXT: %[[K:.*]] = ge.trans_data %k {dst_format = "FRACTAL_NZ", src_format = "ND"}
// CHECK-NEXT: %[[S:.*]] = ge.batch_matmul %[[Q]], %[[K]]
// CHECK-NEXT: %[[P:.*]] = ge.softmax %[[S]]
// CHECK-NEXT: %[[V:.*]] = ge.trans_data %v {dst_format = "FRACTAL_NZ", src_format = "ND"}
// CHECK-NEXT: %[[O:.*]] = ge.batch_matmul %[[P]], %[[V]]
// CHECK-NEXT: %[[OUT:.*]] = ge.trans_data %[[O]] {dst_format = "ND", src_format = "FRACTAL_NZ"}
// CHECK-NEXT: ge.return %[[OUT]]
ge.graph @attention(%q: tensor<2x4x50x64xf16>, %k: tensor<2x4x64x50xf16>, %v: tensor<2x4x50x64xf16>) -> tensor<2x4x50x64xf16> {
  %s = ge.batch_matmul %q, %k : (tensor<2x4x50x64xf16>, tensor<2x4x64x50xf16>) -> tensor<2x4x50x50xf16>
  %p = ge.softmax %s {axis = -1 : i64} : (tensor<2x4x50x50xf16>) -> tensor<2x4x50x50xf16>
  %o = ge.batch_matmul %p, %v : (tensor<2x4x50x50xf16>, tensor<2x4x50x64xf16>) -> tensor<2x4x50x64xf16>
  ge.return %o : (tensor<2x4x50x64xf16>) -> ()
}

// -----

// What takes ND as it is: aligned f16 matrices (check_support_nd), a GEMV (one
// row, K a multiple of 256, N of 16), and an f32 MatMul (no cube format); their
// results need no conversion either.
// CHECK-LABEL: ge.graph @nd
// CHECK-NOT: ge.trans_data
// CHECK: ge.return
ge.graph @nd(%a: tensor<32x64xf16>, %w: tensor<64x48xf16>, %r: tensor<1x256xf16>, %u: tensor<256x16xf16>, %f: tensor<3x5xf32>, %fw: tensor<5x7xf32>) -> (tensor<32x48xf16>, tensor<1x16xf16>, tensor<3x7xf32>) {
  %y = ge.matmul %a, %w : (tensor<32x64xf16>, tensor<64x48xf16>) -> tensor<32x48xf16>
  %g = ge.matmul %r, %u : (tensor<1x256xf16>, tensor<256x16xf16>) -> tensor<1x16xf16>
  %h = ge.matmul %f, %fw : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  ge.return %y, %g, %h : (tensor<32x48xf16>, tensor<1x16xf16>, tensor<3x7xf32>) -> ()
}

// -----

// A classifier head of 1000 classes (N not a multiple of 16) at batch 4: the
// Gemm takes NZ. A bias whose length is no multiple of 16, and a transpose,
// offer no NZ: they read ND.
// CHECK-LABEL: ge.graph @head
// CHECK:      %[[F:.*]] = ge.trans_data %f {dst_format = "FRACTAL_NZ", src_format = "ND"}
// CHECK-NEXT: %[[Y:.*]] = ge.gemm %[[F]], %w
// CHECK-NEXT: %[[YN:.*]] = ge.trans_data %[[Y]] {dst_format = "ND", src_format = "FRACTAL_NZ"}
// CHECK-NEXT: %[[B:.*]] = ge.add %[[YN]], %b
// CHECK-NEXT: ge.transpose %[[B]]
ge.graph @head(%f: tensor<4x512xf16>, %b: tensor<1000xf16>) -> tensor<1000x4xf16> {
  %w = ge.const {value = dense<0.5> : tensor<1000x512xf16>} : () -> tensor<1000x512xf16>
  %y = ge.gemm %f, %w {transB = 1 : i64} : (tensor<4x512xf16>, tensor<1000x512xf16>) -> tensor<4x1000xf16>
  %s = ge.add %y, %b : (tensor<4x1000xf16>, tensor<1000xf16>) -> tensor<4x1000xf16>
  %t = ge.transpose %s {perm = [1, 0]} : (tensor<4x1000xf16>) -> tensor<1000x4xf16>
  ge.return %t : (tensor<1000x4xf16>) -> ()
}

// -----

// Three query rows of 50 tokens: the 310P's SoftmaxV2 offers NZ for them, the
// 910A's only from five rows, so there the scores go back to ND first.
// CHECK-LABEL: ge.graph @few_rows
// CHECK:      %[[S:.*]] = ge.batch_matmul
// P310-NEXT:  ge.softmax %[[S]]
// A910-NEXT:  %[[SN:.*]] = ge.trans_data %[[S]] {dst_format = "ND", src_format = "FRACTAL_NZ"}
// A910-NEXT:  ge.softmax %[[SN]]
ge.graph @few_rows(%q: tensor<2x4x3x64xf16>, %k: tensor<2x4x64x50xf16>) -> tensor<2x4x3x50xf16> {
  %s = ge.batch_matmul %q, %k : (tensor<2x4x3x64xf16>, tensor<2x4x64x50xf16>) -> tensor<2x4x3x50xf16>
  %p = ge.softmax %s {axis = -1 : i64} : (tensor<2x4x3x50xf16>) -> tensor<2x4x3x50xf16>
  ge.return %p : (tensor<2x4x3x50xf16>) -> ()
}

// -----

// Scores whose last two dims are whole fractals stay NZ into a softmax over any
// axis, on both chips; over an inner axis of unaligned ones they go back to ND.
// CHECK-LABEL: ge.graph @softmax_axes
// CHECK:      %[[S:.*]] = ge.batch_matmul
// CHECK-NEXT: ge.softmax %[[S]] {axis = 1 : i64}
// CHECK:      %[[U:.*]] = ge.batch_matmul
// CHECK-NEXT: %[[UN:.*]] = ge.trans_data %[[U]] {dst_format = "ND", src_format = "FRACTAL_NZ"}
// CHECK-NEXT: ge.softmax %[[UN]] {axis = 1 : i64}
ge.graph @softmax_axes(%q: tensor<2x4x32x40xf16>, %k: tensor<2x4x40x32xf16>, %k2: tensor<2x4x40x50xf16>) -> (tensor<2x4x32x32xf16>, tensor<2x4x32x50xf16>) {
  %s = ge.batch_matmul %q, %k : (tensor<2x4x32x40xf16>, tensor<2x4x40x32xf16>) -> tensor<2x4x32x32xf16>
  %p = ge.softmax %s {axis = 1 : i64} : (tensor<2x4x32x32xf16>) -> tensor<2x4x32x32xf16>
  %u = ge.batch_matmul %q, %k2 : (tensor<2x4x32x40xf16>, tensor<2x4x40x50xf16>) -> tensor<2x4x32x50xf16>
  %r = ge.softmax %u {axis = 1 : i64} : (tensor<2x4x32x50xf16>) -> tensor<2x4x32x50xf16>
  ge.return %p, %r : (tensor<2x4x32x32xf16>, tensor<2x4x32x50xf16>) -> ()
}

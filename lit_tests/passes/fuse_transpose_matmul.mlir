// fuse-graph, GE's BatchMatMulFusionPass: a transpose that swaps only the last
// two axes, read by nothing but one operand of a MatMul (f16, bf16 or f32),
// goes; the MatMul reads its input transposed (transA / transB, GE's adj_x1 /
// adj_x2), as attention's q @ k^T does on the cube. A remark per fusion.
// RUN: ge-opt %s --fuse-graph --split-input-file | filecheck %s
// RUN: ge-opt %s --fuse-graph --split-input-file -Rpass=fuse-graph -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// Attention's scores: the keys' transpose of the last two axes is the MatMul's transB.
// CHECK-LABEL: ge.graph @scores
// CHECK-NOT:     ge.transpose
// CHECK:         %s = ge.batch_matmul %q, %k {transB = 1 : i64} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x16x16xf16>
// REMARK: [[# @LINE + 3]]:{{[0-9]+}}: remark: fused the transpose of operand #1 (its last two axes) into the MatMul: transB
ge.graph @scores(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x16x8xf16>) -> tensor<2x4x16x16xf16> {
  %kt = ge.transpose %k {perm = [0, 1, 3, 2]} : (tensor<2x4x16x8xf16>) -> tensor<2x4x8x16xf16>
  %s = ge.batch_matmul %q, %kt : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>) -> tensor<2x4x16x16xf16>
  ge.return %s : (tensor<2x4x16x16xf16>) -> ()
}

// -----

// A 2-D transpose (no perm: ONNX's default reverses the axes) before each
// operand.
// CHECK-LABEL: ge.graph @both
// CHECK-NOT:     ge.transpose
// CHECK:         %y = ge.matmul %a, %b {transA = 1 : i64, transB = 1 : i64} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
ge.graph @both(%a: tensor<8x4xf32>, %b: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %at = ge.transpose %a : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %bt = ge.transpose %b {perm = [1, 0]} : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %y = ge.matmul %at, %bt : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  ge.return %y : (tensor<4x6xf32>) -> ()
}

// -----

// An operand read transposed already, of a transpose: the flag goes.
// CHECK-LABEL: ge.graph @twice
// CHECK:         %y = ge.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
ge.graph @twice(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %at = ge.transpose %a {perm = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = ge.matmul %at, %b {transA = 1 : i64} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  ge.return %y : (tensor<4x6xf32>) -> ()
}

// -----

// Not fused: a permute of heads moves other axes; a transpose another op reads
// too; an int32 transpose.
// CHECK-LABEL: ge.graph @kept
// CHECK:         ge.transpose %k {perm = [0, 2, 1, 3]}
// CHECK:         ge.transpose %v {perm = [0, 1, 3, 2]}
// CHECK:         ge.transpose %i {perm = [1, 0]}
// CHECK-NOT:     trans{{A|B}}
ge.graph @kept(%q: tensor<2x4x16x8xf16>, %k: tensor<2x8x4x16xf16>, %v: tensor<2x4x16x8xf16>, %i: tensor<4x4xi32>) -> (tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x8x16xf16>, tensor<4x4xi32>) {
  %kh = ge.transpose %k {perm = [0, 2, 1, 3]} : (tensor<2x8x4x16xf16>) -> tensor<2x4x8x16xf16>
  %s = ge.batch_matmul %q, %kh : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>) -> tensor<2x4x16x16xf16>
  %vt = ge.transpose %v {perm = [0, 1, 3, 2]} : (tensor<2x4x16x8xf16>) -> tensor<2x4x8x16xf16>
  %t = ge.batch_matmul %q, %vt : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>) -> tensor<2x4x16x16xf16>
  %it = ge.transpose %i {perm = [1, 0]} : (tensor<4x4xi32>) -> tensor<4x4xi32>
  %m = ge.matmul %i, %it : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
  ge.return %s, %t, %vt, %m : (tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x8x16xf16>, tensor<4x4xi32>) -> ()
}

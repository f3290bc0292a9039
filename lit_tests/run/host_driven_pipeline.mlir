// A graph with a data-dependent size runs as host-driven launches, as GE's
// runtime v2 runs a dynamic graph: a segment whose shapes the graph fixes (its
// known-shape subgraph, four independent MatMul chains) is compiled by the run's
// pipeline, so --streams, --pipeline and --precision-mode reach it; the segments
// after the NonZero, whose shapes only the run decides, run on one stream.
// RUN: ge-run %s 2>&1 | filecheck %s
// CHECK: host-driven run on 910B2
// CHECK-NEXT: host-driven at  {{.*}}host_driven_pipeline.mlir:[[# @LINE + 42]]:11: 'ge.nonzero' op result #0 dim 1 has a data-dependent size (tensor<2x?xi64>)
// CHECK-NEXT: pipeline        ge-default{device=910B2} (each known-shape segment; the others on one stream as the graph-wide passes left them)
// CHECK-NEXT: launch 0 segment0 {{ +[0-9]+}} tasks on {{[2-9]}} streams
// CHECK-NEXT: launch 1 segment1 {{ +[0-9]+}} tasks on 1 stream {{.*}}host_driven_pipeline.mlir:[[# @LINE + 39]]:11
// CHECK-NEXT: launch 2 segment2 {{ +[0-9]+}} tasks on 1 stream {{.*}}host_driven_pipeline.mlir:[[# @LINE + 39]]:10
// CHECK: findings        none
// RUN: ge-run %s --streams 1 2>&1 | filecheck %s --check-prefix=ONE
// ONE: pipeline        ge-default{device=910B2 max-streams=1} (each known-shape segment
// ONE-NEXT: launch 0 segment0 {{ +[0-9]+}} tasks on 1 stream
// RUN: ge-run %s --pipeline 'ge-default{strategy=single}' 2>&1 | filecheck %s --check-prefix=PIPE
// PIPE: pipeline        ge-default{strategy=single} with device=910B2 (each known-shape segment
// PIPE-NEXT: launch 0 segment0 {{ +[0-9]+}} tasks on 1 stream
// RUN: ge-run %s --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=KEEP
// KEEP: pipeline        ge-default{precision-mode=must_keep_origin_dtype} with device=910B2
// RUN: ge-run %s --report json | %python -c "import json, sys; r = json.load(sys.stdin); print([l['streams'] for l in r['launches']][1:], r['precision_mode'], r['pipeline'])" | filecheck %s --check-prefix=JSON
// JSON: [1, 1] force_fp16 ge-default{device=910B2}
// RUN: not ge-run %s --streams 0 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: error: --streams must be at least 1, got 0
// RUN: not ge-run %s --pipeline 'ge-default,no-such-pass' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: error: --pipeline 'ge-default,no-such-pass':
module {
  ge.graph @main(%x: tensor<16x64xf32> {ge.name = "x"}) -> (tensor<?x2xf32> {ge.name = "where"}) {
    %w0 = ge.const {value = dense<1.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %m0_0 = ge.matmul %x, %w0 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m0_1 = ge.matmul %m0_0, %w0 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m0_2 = ge.matmul %m0_1, %w0 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %w1 = ge.const {value = dense<2.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %m1_0 = ge.matmul %x, %w1 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m1_1 = ge.matmul %m1_0, %w1 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m1_2 = ge.matmul %m1_1, %w1 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %w2 = ge.const {value = dense<3.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %m2_0 = ge.matmul %x, %w2 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m2_1 = ge.matmul %m2_0, %w2 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m2_2 = ge.matmul %m2_1, %w2 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %w3 = ge.const {value = dense<4.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %m3_0 = ge.matmul %x, %w3 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m3_1 = ge.matmul %m3_0, %w3 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %m3_2 = ge.matmul %m3_1, %w3 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    %s01 = ge.add %m0_2, %m1_2 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %s23 = ge.sub %m2_2, %m3_2 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %s = ge.add %s01, %s23 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    %r = ge.relu %s : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %nz = ge.nonzero %r : (tensor<16x64xf32>) -> tensor<2x?xi64>
    %t = ge.transpose %nz {perm = array<i64: 1, 0>} : (tensor<2x?xi64>) -> tensor<?x2xi64>
    %f = ge.cast %t {to = f32} : (tensor<?x2xi64>) -> tensor<?x2xf32>
    ge.return %f : (tensor<?x2xf32>) -> ()
  }
}

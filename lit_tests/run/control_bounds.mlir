// ge-run's graph bound counts a loop's trips when its trip count is a
// constant and its condition stays true: 64 trips of the body, not one. The
// memory plan says how much of the arena the loop's region buffer holds (the
// body's f16 tensors, under the default force_fp16).
// RUN: ge-run %s | filecheck %s
// RUN: ge-run %s --report json | filecheck %s --check-prefix=JSON
// A trip count that is a value: the bound is per trip, not a bound of the run.
// RUN: sed -e 's/%m = ge.const {value = dense<64> : tensor<i64>} : () -> tensor<i64>//' -e 's/%x: tensor<64x64xf32> {ge.name = "x"}/%x: tensor<64x64xf32> {ge.name = "x"}, %m: tensor<i64> {ge.name = "m"}/' %s > %t.mlir
// RUN: %python -c "import numpy as np; np.savez('%t.npz', m=np.array(3, np.int64), x=np.ones((64, 64), np.float32) / 64)"
// RUN: ge-run %t.mlir --inputs %t.npz | filecheck %s --check-prefix=VALUE

// CHECK: graph bound {{ +}}{{[0-9.]+}} us  (critical path; any plan on 8 streams; loops at 64 trips): makespan {{[0-9.]+}}x it
// CHECK: control         65 switches, {{[0-9]+}} activations, 64 loop iterations
// CHECK: memory plan     32768 B (32.00 KiB) without I/O, control-flow regions 16384 B (16.00 KiB) of it; lower bound 32768 B (32.00 KiB), exact: 1.000x ({{.*}}no reuse 49152 B)

// JSON: "graph_lower_bound": {
// JSON-DAG: "per_trip": []
// JSON-DAG: "trips": {
// JSON-DAG: "region_bytes": 16384

// VALUE: graph bound {{ +}}{{[0-9.]+}} us per trip  (critical path; any plan on 8 streams): one trip of each loop whose trip count is a value ({{.*}}.mlir:{{[0-9]+}}:8), not a bound of the run
// VALUE: memory plan {{.*}} control-flow regions 16384 B (16.00 KiB) of it

ge.graph @main(%x: tensor<64x64xf32> {ge.name = "x"}) -> (tensor<64x64xf32> {ge.name = "y"}) {
  %m = ge.const {value = dense<64> : tensor<i64>} : () -> tensor<i64>
  %c = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %y = ge.loop %m, %c, %x ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<64x64xf32>):
    %a = ge.matmul %v, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %b = ge.relu %a : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %d = ge.sigmoid %b : (tensor<64x64xf32>) -> tensor<64x64xf32>
    %e = ge.mul %d, %v : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    ge.yield %ci, %e : (tensor<i1>, tensor<64x64xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<64x64xf32>) -> tensor<64x64xf32>
  ge.return %y : (tensor<64x64xf32>) -> ()
}

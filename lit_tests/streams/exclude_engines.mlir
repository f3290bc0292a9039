// assign-engines{exclude-engines=...}: GE's ge.exec.exclude_engines. Excluded
// AICore sends ops to AICPU; an op whose only engine is excluded is an error.
// RUN: ge-opt %s --assign-engines='exclude-engines=AICore' | filecheck %s
// RUN: not ge-opt %s --assign-engines='exclude-engines=HCCL' -o /dev/null 2>&1 | filecheck %s --check-prefix=NOENGINE

// NOENGINE: exclude_engines.mlir:14:8: error: 'ge.all_reduce' op can only run on HCCL, which exclude-engines excludes
// NOENGINE-NEXT: %a = ge.all_reduce
// NOENGINE-NEXT: {{ *}}^

// CHECK-LABEL: ge.graph @excluded
// CHECK: ge.relu {{.*}}engine = "AICPU"
ge.graph @excluded(%f: tensor<16xf32>) -> tensor<16xf32> {
  %r = ge.relu %f : (tensor<16xf32>) -> tensor<16xf32>
  %a = ge.all_reduce %r {reduction = "sum"} : (tensor<16xf32>) -> tensor<16xf32>
  ge.return %a : (tensor<16xf32>) -> ()
}

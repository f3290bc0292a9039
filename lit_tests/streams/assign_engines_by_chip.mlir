// assign-engines{device=...}: some CANN AI Core kernels take 64-bit integers on
// some chips only (each op's op_api checks a per-chip dtype list): Neg, Abs and
// ReduceMax on the 910B, ReduceSum on the 910B and the 310P, a cast to int64
// from f32 on the 910B. On the other chips these ops fall back to AICPU, with a
// remark; ArgMax's int64 indices run on AI Core everywhere.
// RUN: ge-opt %s --pass-pipeline='assign-engines' | filecheck %s --check-prefix=B2
// RUN: ge-opt %s --pass-pipeline='assign-engines{device=310P3}' | filecheck %s --check-prefix=P3
// RUN: ge-opt %s --pass-pipeline='assign-engines{device=910A}' | filecheck %s --check-prefix=A
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' -Rpass=assign-engines -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// B2: ge.neg {{.*}}engine = "AICore"
// B2: ge.reduce_sum {{.*}}engine = "AICore"
// B2: ge.cast {{.*}}engine = "AICore"
// B2: ge.arg_max {{.*}}engine = "AICore"
// P3: ge.neg {{.*}}engine = "AICPU"
// P3: ge.reduce_sum {{.*}}engine = "AICore"
// P3: ge.cast {{.*}}engine = "AICPU"
// P3: ge.arg_max {{.*}}engine = "AICore"
// A: ge.neg {{.*}}engine = "AICPU"
// A: ge.reduce_sum {{.*}}engine = "AICPU"
// A: ge.cast {{.*}}engine = "AICPU"
// A: ge.arg_max {{.*}}engine = "AICore"
// REMARK: remark: 'ge.neg' runs on AICPU instead of AICore: result #0 has element type i64, which the AICore kernel of 'ge.neg' does not take
// REMARK-NOT: 'ge.reduce_sum' runs on AICPU
// REMARK: remark: 'ge.cast' runs on AICPU instead of AICore: a cast from f32 to i64, which the AICore kernel of 'ge.cast' does not do
// REMARK-NOT: 'ge.arg_max' runs on AICPU
ge.graph @main(%i: tensor<4x8xi64>, %f: tensor<4xf32>) -> (tensor<4x8xi64>, tensor<1x8xi64>, tensor<4xi64>, tensor<1xi64>) {
  %n = ge.neg %i : (tensor<4x8xi64>) -> tensor<4x8xi64>
  %axes = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = ge.reduce_sum %i, %axes : (tensor<4x8xi64>, tensor<1xi64>) -> tensor<1x8xi64>
  %c = ge.cast %f {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %a = ge.arg_max %f {axis = 0} : (tensor<4xf32>) -> tensor<1xi64>
  ge.return %n, %r, %c, %a : (tensor<4x8xi64>, tensor<1x8xi64>, tensor<4xi64>, tensor<1xi64>) -> ()
}

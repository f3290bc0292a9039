// assign-engines{device=...}: some CANN AI Core kernels take 64-bit integers on
// some chips only (each op's op_api checks a per-chip dtype list): Neg, Abs and
// ReduceMax on the 910B, ReduceSum on the 910B and the 310P, casts between int64
// and f32 and from f16 to int64 on the 910B (every chip's Cast does int64 to f16
// and int64 to and from int32), an int64 input of ArgMax and ArgMin on the 910 and
// the 910B. On the other chips these ops fall back to AICPU, with a remark;
// ArgMax's int64 indices run on AI Core everywhere.
// RUN: ge-opt %s --pass-pipeline='assign-engines' | filecheck %s --check-prefix=B2
// RUN: ge-opt %s --pass-pipeline='assign-engines{device=310P3}' | filecheck %s --check-prefix=P3
// RUN: ge-opt %s --pass-pipeline='assign-engines{device=910A}' | filecheck %s --check-prefix=A
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' -Rpass=assign-engines -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// B2-LABEL: ge.graph @ops
// B2: ge.neg {{.*}}engine = "AICore"
// B2: ge.reduce_sum {{.*}}engine = "AICore"
// B2: ge.arg_max {{.*}}engine = "AICore"
// B2: ge.arg_min {{.*}}engine = "AICore"
// P3-LABEL: ge.graph @ops
// P3: ge.neg {{.*}}engine = "AICPU"
// P3: ge.reduce_sum {{.*}}engine = "AICore"
// P3: ge.arg_max {{.*}}engine = "AICore"
// P3: ge.arg_min {{.*}}engine = "AICPU"
// A-LABEL: ge.graph @ops
// A: ge.neg {{.*}}engine = "AICPU"
// A: ge.reduce_sum {{.*}}engine = "AICPU"
// A: ge.arg_max {{.*}}engine = "AICore"
// A: ge.arg_min {{.*}}engine = "AICore"
// REMARK: remark: 'ge.neg' runs on AICPU instead of AICore: result #0 has element type i64, which the AICore kernel of 'ge.neg' does not take
// REMARK-NOT: 'ge.reduce_sum' runs on AICPU
// REMARK-NOT: 'ge.arg_max' runs on AICPU
// REMARK: remark: 'ge.arg_min' runs on AICPU instead of AICore: operand #0 has element type i64, which the AICore kernel of 'ge.arg_min' does not take
ge.graph @ops(%i: tensor<4x8xi64>, %f: tensor<4xf32>) -> (tensor<4x8xi64>, tensor<1x8xi64>, tensor<1xi64>, tensor<1x8xi64>) {
  %n = ge.neg %i : (tensor<4x8xi64>) -> tensor<4x8xi64>
  %axes = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = ge.reduce_sum %i, %axes : (tensor<4x8xi64>, tensor<1xi64>) -> tensor<1x8xi64>
  %a = ge.arg_max %f {axis = 0} : (tensor<4xf32>) -> tensor<1xi64>
  %m = ge.arg_min %i {axis = 0} : (tensor<4x8xi64>) -> tensor<1x8xi64>
  ge.return %n, %r, %a, %m : (tensor<4x8xi64>, tensor<1x8xi64>, tensor<1xi64>, tensor<1x8xi64>) -> ()
}

// A cast is judged by its pair: (source, target).
// B2-LABEL: ge.graph @casts
// B2: ge.cast %f {{.*}}engine = "AICore"
// B2: ge.cast %i {{.*}}engine = "AICore", to = f32
// B2: ge.cast %h {{.*}}engine = "AICore"
// B2: ge.cast %i {{.*}}engine = "AICore", to = f16
// B2: ge.cast %i {{.*}}engine = "AICore", to = i32
// P3-LABEL: ge.graph @casts
// P3: ge.cast %f {{.*}}engine = "AICPU"
// P3: ge.cast %i {{.*}}engine = "AICPU", to = f32
// P3: ge.cast %h {{.*}}engine = "AICPU"
// P3: ge.cast %i {{.*}}engine = "AICore", to = f16
// P3: ge.cast %i {{.*}}engine = "AICore", to = i32
// A-LABEL: ge.graph @casts
// A: ge.cast %f {{.*}}engine = "AICPU"
// A: ge.cast %i {{.*}}engine = "AICPU", to = f32
// A: ge.cast %h {{.*}}engine = "AICPU"
// A: ge.cast %i {{.*}}engine = "AICore", to = f16
// A: ge.cast %i {{.*}}engine = "AICore", to = i32
// REMARK: remark: 'ge.cast' runs on AICPU instead of AICore: a cast from f32 to i64, which the AICore kernel of 'ge.cast' does not do
// REMARK: remark: 'ge.cast' runs on AICPU instead of AICore: a cast from i64 to f32, which the AICore kernel of 'ge.cast' does not do
// REMARK: remark: 'ge.cast' runs on AICPU instead of AICore: a cast from f16 to i64, which the AICore kernel of 'ge.cast' does not do
// REMARK-NOT: remark
ge.graph @casts(%f: tensor<4xf32>, %i: tensor<4xi64>, %h: tensor<4xf16>) -> (tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xf16>, tensor<4xi32>) {
  %fi = ge.cast %f {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %if = ge.cast %i {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  %hi = ge.cast %h {to = i64} : (tensor<4xf16>) -> tensor<4xi64>
  %ih = ge.cast %i {to = f16} : (tensor<4xi64>) -> tensor<4xf16>
  %ii = ge.cast %i {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  ge.return %fi, %if, %hi, %ih, %ii : (tensor<4xi64>, tensor<4xf32>, tensor<4xi64>, tensor<4xf16>, tensor<4xi32>) -> ()
}

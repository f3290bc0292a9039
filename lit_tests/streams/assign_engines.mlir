// assign-engines: the op definition's engine, AICore falling back to AICPU where
// it cannot run (each fallback a remark: -Rpass=assign-engines), a given engine wins.
// RUN: ge-opt %s --assign-engines --split-input-file | filecheck %s
// RUN: ge-opt %s --assign-engines --split-input-file --verify-diagnostics -o /dev/null
// RUN: ge-opt %s --assign-engines --split-input-file -Rpass=assign-engines -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --assign-engines --split-input-file -o /dev/null 2>&1 | filecheck %s --check-prefix=QUIET --allow-empty

// QUIET-NOT: remark

// CHECK-LABEL: ge.graph @defaults
// CHECK: ge.conv2d {{.*}}engine = "AICore"
// CHECK: ge.add {{.*}}engine = "AICore"
// CHECK: ge.nonzero {{.*}}engine = "AICPU"
// CHECK: ge.all_reduce {{.*}}engine = "HCCL"
// CHECK: ge.cmo {{.*}}engine = "RTS"
ge.graph @defaults(%x: tensor<1x8x8x8xf16>, %w: tensor<8x8x1x1xf16>) -> (tensor<1x8x8x8xf16>, tensor<4x?xi64>) {
  %c = ge.conv2d %x, %w : (tensor<1x8x8x8xf16>, tensor<8x8x1x1xf16>) -> tensor<1x8x8x8xf16>
  %a = ge.add %c, %x : (tensor<1x8x8x8xf16>, tensor<1x8x8x8xf16>) -> tensor<1x8x8x8xf16>
  %n = ge.nonzero %a : (tensor<1x8x8x8xf16>) -> tensor<4x?xi64>
  %r = ge.all_reduce %a {reduction = "sum"} : (tensor<1x8x8x8xf16>) -> tensor<1x8x8x8xf16>
  ge.cmo %r {type = "prefetch"} : (tensor<1x8x8x8xf16>) -> ()
  ge.return %r, %n : (tensor<1x8x8x8xf16>, tensor<4x?xi64>) -> ()
}

// -----

// REMARK: remark: 'ge.div' runs on AICPU instead of AICore: result #0 has element type i64, which the AICore kernel of 'ge.div' does not take
// REMARK: remark: 'ge.top_k' runs on AICPU instead of AICore: 'ge.top_k' is a data-dependent selection
// REMARK: remark: 'ge.sqrt' runs on AICPU instead of AICore: result #0 has element type f64, which AICore cannot compute on
// CHECK-LABEL: ge.graph @fallback
// CHECK: ge.div {{.*}}engine = "AICPU"
// CHECK: ge.top_k {{.*}}engine = "AICPU"
// CHECK: ge.sqrt {{.*}}engine = "AICPU"
ge.graph @fallback(%i: tensor<16xi64>, %f: tensor<16xf32>, %d: tensor<16xf64>) -> (tensor<16xi64>, tensor<4xf32>, tensor<16xf64>) {
  // expected-remark@+1 {{'ge.div' runs on AICPU instead of AICore: result #0 has element type i64, which the AICore kernel of 'ge.div' does not take}}
  %s = ge.div %i, %i : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
  %k = ge.const {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  // expected-remark@+1 {{'ge.top_k' runs on AICPU instead of AICore: 'ge.top_k' is a data-dependent selection, which runs on AICPU}}
  %v, %idx = ge.top_k %f, %k : (tensor<16xf32>, tensor<1xi64>) -> (tensor<4xf32>, tensor<4xi64>)
  // expected-remark@+1 {{'ge.sqrt' runs on AICPU instead of AICore: result #0 has element type f64, which AICore cannot compute on}}
  %r = ge.sqrt %d : (tensor<16xf64>) -> tensor<16xf64>
  ge.return %s, %v, %r : (tensor<16xi64>, tensor<4xf32>, tensor<16xf64>) -> ()
}

// -----

// CANN's AI Core kernels of elementwise arithmetic, comparisons, where and data
// movement take 64-bit integers (their op_api routes int64 to AI Core), and so
// does a cast to int64 from int32 on every chip (from more types on some:
// assign_engines_by_chip.mlir): no fallback, no remark.
// CHECK-LABEL: ge.graph @int64_on_aicore
// CHECK: ge.add {{.*}}engine = "AICore"
// CHECK: ge.less {{.*}}engine = "AICore"
// CHECK: ge.where {{.*}}engine = "AICore"
// CHECK: ge.transpose {{.*}}engine = "AICore"
// CHECK: ge.concat {{.*}}engine = "AICore"
// CHECK: ge.cast {{.*}}engine = "AICore"
ge.graph @int64_on_aicore(%i: tensor<4x8xi64>, %n: tensor<4xi32>) -> (tensor<16x4xi64>, tensor<4xi64>) {
  %s = ge.add %i, %i : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %l = ge.less %s, %i : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %w = ge.where %l, %s, %i : (tensor<4x8xi1>, tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
  %t = ge.transpose %w {perm = [1, 0]} : (tensor<4x8xi64>) -> tensor<8x4xi64>
  %c = ge.concat %t, %t {axis = 0} : (tensor<8x4xi64>, tensor<8x4xi64>) -> tensor<16x4xi64>
  %ni = ge.cast %n {to = i64} : (tensor<4xi32>) -> tensor<4xi64>
  ge.return %c, %ni : (tensor<16x4xi64>, tensor<4xi64>) -> ()
}

// -----

// An engine already on the op wins; a user's engine_pin becomes the engine.
// CHECK-LABEL: ge.graph @given
// CHECK: ge.relu {{.*}}engine = "AICPU"
// CHECK: ge.sigmoid {{.*}}engine = "VectorCore"
// CHECK: ge.add {{.*}}engine = "AICPU"
ge.graph @given(%i: tensor<16xi64>, %f: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xi64>) {
  %r = ge.relu %f {engine = "AICPU"} : (tensor<16xf32>) -> tensor<16xf32>
  %s = ge.sigmoid %r {engine_pin = "VectorCore"} : (tensor<16xf32>) -> tensor<16xf32>
  %a = ge.add %i, %i {engine = "AICPU"} : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
  ge.return %s, %a : (tensor<16xf32>, tensor<16xi64>) -> ()
}

// -----

// Reshapes run no kernel on any engine (GE's local engine gives the result the
// operand's memory), so an i64 or dynamic one does not fall back to AICPU: no
// remark, and it costs nothing on the device.
// CHECK-LABEL: ge.graph @no_task_ops
// CHECK: ge.div {{.*}}engine = "AICPU"
// CHECK: ge.unsqueeze {{.*}}engine = "AICore"
// CHECK: ge.reshape {{.*}}engine = "AICore"
ge.graph @no_task_ops(%i: tensor<49xi64>, %x: tensor<?x4xf32>) -> (tensor<49x1xi64>, tensor<?xf32>) {
  // expected-remark@+1 {{'ge.div' runs on AICPU instead of AICore: result #0 has element type i64, which the AICore kernel of 'ge.div' does not take}}
  %s = ge.div %i, %i : (tensor<49xi64>, tensor<49xi64>) -> tensor<49xi64>
  %axes = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %u = ge.unsqueeze %s, %axes : (tensor<49xi64>, tensor<1xi64>) -> tensor<49x1xi64>
  %shape = ge.const {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = ge.reshape %x, %shape : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
  ge.return %u, %r : (tensor<49x1xi64>, tensor<?xf32>) -> ()
}

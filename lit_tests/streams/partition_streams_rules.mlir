// partition-streams: GE's rules that override the strategy, each with a remark.
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover}' --verify-diagnostics -o /dev/null
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover}' 2>/dev/null | filecheck %s
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover dynamic-shape-multi-stream=true}' 2>/dev/null | filecheck %s --check-prefix=DYN
// RUN: env ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1 ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover}' 2>/dev/null | filecheck %s --check-prefix=DYN
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover ac-parallel-enable=false}' 2>/dev/null | filecheck %s --check-prefix=NOAC

// Control ops: GE's safe strategy, one stream.
// CHECK-LABEL: ge.graph @control
// CHECK-NOT: stream = 1
// expected-remark@+1 {{partition-streams: single stream instead of 'chain-cover': the graph has control flow ('ge.switch'), which GE runs on a safe single stream}}
ge.graph @control(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %f, %t = ge.switch %a, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %m, %i = ge.merge %f, %b : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  ge.return %m : (tensor<4xf32>) -> ()
}

// -----

// Cache-maintenance ops share a stream of their own.
// CHECK-LABEL: ge.graph @cmo
// CHECK: %a = ge.relu {{.*}}stream = 0 : i64
// CHECK: ge.cmo {{.*}}stream = 1 : i64
// CHECK: ge.cmo {{.*}}stream = 1 : i64
// expected-remark@+2 {{partition-streams: 2 ge.cmo op(s) on a stream of their own (GE's Cmo label)}}
// expected-remark@+1 {{chain-cover: 1 chains}}
ge.graph @cmo(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  ge.cmo %x {type = "prefetch"} : (tensor<4xf32>) -> ()
  ge.cmo %a {type = "writeback"} : (tensor<4xf32>) -> ()
  ge.return %a : (tensor<4xf32>) -> ()
}

// -----

// Dynamic shapes: one stream unless ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1 (or the option).
// CHECK-LABEL: ge.graph @dynamic
// CHECK-NOT: stream = 1
// DYN-LABEL: ge.graph @dynamic
// DYN: stream = 1 : i64
// expected-remark@+1 {{partition-streams: single stream instead of 'chain-cover': 'ge.relu' has a dynamic shape (tensor<?x4xf32>); GE uses one stream for dynamic shapes unless ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1}}
ge.graph @dynamic(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // expected-remark@+1 {{'ge.relu' runs on AICPU instead of AICore: result #0 has a dynamic shape}}
  %a = ge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-remark@+1 {{'ge.sigmoid' runs on AICPU instead of AICore: result #0 has a dynamic shape}}
  %b = ge.sigmoid %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  ge.return %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> ()
}

// -----

// ac-parallel-enable=false: an AICPU op stays on its predecessor's stream.
// CHECK-LABEL: ge.graph @aicpu
// NOAC-LABEL: ge.graph @aicpu
// NOAC: %a = ge.relu {{.*}}stream = [[S:[0-9]+]] : i64
// NOAC: %c = ge.div {{.*}}engine = "AICPU"{{.*}}stream = [[S]] : i64
// expected-remark@+1 {{chain-cover: 2 chains}}
ge.graph @aicpu(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-remark@+1 {{'ge.div' runs on AICPU instead of AICore}}
  %c = ge.div %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  ge.return %a, %c : (tensor<4xf32>, tensor<4xi64>) -> ()
}

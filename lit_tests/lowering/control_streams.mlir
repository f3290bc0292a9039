// partition-streams on ge.if / ge.loop: each region gets a stream of its own
// (GE assigns a subgraph's streams itself), with a remark; lower-to-tasks then
// starts the region's stream with rt.stream_active after the branch's label and
// waits for the rt.record that ends it. strategy=single, or no stream left
// under max-streams, keeps the regions on the control op's stream.
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge}' -Rpass='.*' -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge},insert-events,lower-to-tasks' 2>/dev/null | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=single},lower-to-tasks' 2>/dev/null | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{max-streams=1}' -Rpass='.*' -o /dev/null 2>&1 | filecheck %s --check-prefix=BUDGET

// CHECK-LABEL: rt.model
// CHECK:      rt.label_switch
// CHECK-NEXT: rt.label_set {label = 0
// CHECK-NEXT: rt.stream_active {{{.*}}stream = [[THEN:[0-9]+]] : i64}
// CHECK-NEXT: rt.wait {event = [[E0:[0-9]+]]
// CHECK-NEXT: rt.label_goto
// CHECK-NEXT: rt.label_set {label = 1
// CHECK-NEXT: rt.stream_active {{{.*}}stream = [[ELSE:[0-9]+]] : i64}
// CHECK-NEXT: rt.wait {event = [[E1:[0-9]+]]
// CHECK-NEXT: rt.label_set {label = 2
// CHECK-NEXT: rt.end_graph
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.kernel {{.*}}op = "ge.relu"
// CHECK-NEXT:   rt.record {event = [[E0]]
// CHECK-NEXT: }) {id = [[THEN]] : i64
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.kernel {{.*}}op = "ge.neg"
// CHECK-NEXT:   rt.record {event = [[E1]]
// CHECK-NEXT: }) {id = [[ELSE]] : i64

// SINGLE-LABEL: rt.model
// SINGLE-NOT: rt.stream_active
// SINGLE: }) {id = 0 : i64
// SINGLE-NOT: rt.stream ({

// REMARK: control_streams.mlir:{{[0-9]+}}:8: remark: partition-streams: the regions of 'ge.if' on stream(s) 1, 2, started by a stream-active task after each branch's label on stream 0 (GE assigns a subgraph's streams itself)

// BUDGET: remark: partition-streams: the regions of 'ge.if' stay on its stream 0 (no stream left under max-streams)

ge.graph @branches(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.if %p ({
    %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a : (tensor<4xf32>) -> ()
  }, {
    %b = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %b : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

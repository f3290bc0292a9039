// schedule-stats: ops, width, streams, events (present and by GE's rule), the
// critical path, the lower bound of any plan and the emulated makespan, per
// graph, on stderr. On this diamond each kernel takes 2.86-2.92 us (1.9 us, its
// vector pipelines' heads and its instructions' fixed cycles for its one UB tile:
// relu 0.011 us, sigmoid's four 0.057 us, add 0.013 us, tanh without a sequence
// none): the graph's bound is the longest three and one event's record and wait
// (10.641 us); the single stream runs four (1.084x it), and two streams pay an
// event each way (1.185x).
// RUN: ge-opt %s --schedule-stats -o /dev/null 2>&1 | filecheck %s
// RUN: ge-opt %s --pass-pipeline='partition-streams{strategy=chain-cover},insert-events,schedule-stats' -o /dev/null 2>&1 | filecheck %s --check-prefix=MULTI
// RUN: ge-opt %s --schedule-stats='json=true' -o /dev/null 2>&1 | filecheck %s --check-prefix=JSON

// CHECK: === schedule stats: @diamond ===
// CHECK-NEXT: ops                         4
// CHECK-NEXT: dependencies                4
// CHECK-NEXT: width (max antichain)       2
// CHECK-NEXT: streams                     1
// CHECK-NEXT: cross-stream dependencies   0
// CHECK-NEXT: events (GE's rule)          0
// CHECK-NEXT: events (present)            0
// CHECK-NEXT: critical path               8.669 us
// CHECK-NEXT: graph lower bound           10.641 us (critical path with events; any plan on 8 streams)
// CHECK-NEXT: makespan (emulated)         11.532 us
// CHECK-NEXT: lower bound
// CHECK-NEXT: makespan / lower bound
// CHECK-NEXT: makespan / graph bound      1.084
// CHECK-NEXT: races                       0
// MULTI: streams                     2
// MULTI: events (present)            2
// MULTI: makespan (emulated)         12.612 us
// MULTI: makespan / graph bound      1.185
// MULTI: races                       0
// JSON: {"graph": "diamond", "ops": 4, "dependencies": 4, "width": 2, "width_exact": true, "streams": 1,
ge.graph @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %d = ge.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %d : (tensor<4xf32>) -> ()
}

// --trace writes a Chrome/Perfetto trace: a track per stream and per engine
// lane, a slice per task, a flow arrow from each record to the wait it released,
// and a counter of the engine units in use.
// RUN: ge-run %s --timing-only --trace %t.json > /dev/null
// RUN: %python -m json.tool %t.json | filecheck %s

// CHECK: "traceEvents": [
// CHECK-DAG: "name": "stream 0 (priority 0)"
// CHECK-DAG: "name": "stream 1 (priority 0)"
// CHECK-DAG: "name": "VectorCore lane 0"
// CHECK-DAG: "name": "VectorCore lane 1"
// CHECK-DAG: "ph": "s",
// CHECK-DAG: "ph": "f",
// CHECK-DAG: "bp": "e",
// CHECK-DAG: "name": "VectorCore units in use",
// CHECK-DAG: "name": "ge.relu",
// CHECK-DAG: "name": "wait e0",
// CHECK: "displayTimeUnit": "ns",

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.record_event {event = 0, stream = 1} : () -> ()
  ge.wait_event {event = 0, stream = 0} : () -> ()
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

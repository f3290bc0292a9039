// The device= option of partition-streams, insert-events and schedule-stats: the
// profile the costs, the task and event limits and the emulator come from.
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=cost device=310P3},insert-events{device=310P3},schedule-stats{device=310P3}' -Rpass='partition-streams' -o /dev/null 2>&1 | filecheck %s
// RUN: not ge-opt %s --partition-streams='device=nope' -o /dev/null 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not ge-opt %s --schedule-stats='device=nope' -o /dev/null 2>&1 | filecheck %s --check-prefix=UNKNOWN
// A profile allowing one event id: the diamond needs two.
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); d['params']['max_events']['value'] = 1; d['name'] = 'one-event'; json.dump(d, open(sys.argv[2], 'w'))" %S/../../backends/devices/910B2.json %t.json
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=chain-cover},insert-events{device=%t.json}' -o /dev/null 2>&1 | filecheck %s --check-prefix=EVENTS

// CHECK: === schedule stats: @diamond ===
// CHECK: races                       0
// CHECK: remark: cost: chose
// UNKNOWN: error: unknown device 'nope'
// UNKNOWN-NEXT: note: known devices: 310P3, 910A, 910B2, 910B4, A100, RTX2080S, V100
// EVENTS: device_option.mlir:16:1: error: insert-events: the graph needs 2 event ids, more than the device's 1
ge.graph @diamond(%x: tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> {
  %a = ge.relu %x : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %b = ge.sigmoid %a : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %c = ge.tanh %a : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %d = ge.add %b, %c : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  ge.return %d : (tensor<1x64x56x56xf16>) -> ()
}

// ge-run lowers a ge graph (stream and event decisions already made) and runs
// it on the emulator: the text report, the JSON report's keys, and the numbers
// of a two-stream schedule with fixed per-kernel and per-event costs.
// RUN: ge-run %s --device-param kernel_overhead_us=10 --device-param event_record_us=1 --device-param event_wait_us=1 2>&1 | filecheck %s
// RUN: ge-opt %s --lower-to-tasks | ge-run - --report json | filecheck %s --check-prefix=JSON
// RUN: ge-opt %s --lower-to-tasks | ge-run - --report json --device 910B4 | filecheck %s --check-prefix=UNCHECKED

// CHECK: ge-run: random inputs, seed 0
// CHECK: emulated 'main' on 910B2 (sink mode): 7 tasks (3 kernels, 0 copies, 1 record, 1 wait) on 2 streams, 1 event
// The 910B2's MatMul and vector kernels are held against measured ones, nothing else: the report says so.
// CHECK-NEXT: checked against CANN's kernels measured on one 910B2 by msprof {{.*}}: MatMul MAPE {{[0-9.]+}}% {{.*}}, Sigmoid and GELU {{[0-9.]+}}% {{.*}}; no whole-model 910B2 time is public, so every other time is a prediction from the profile's sourced, fitted and assumed numbers
// relu and neg run side by side (10 us, plus 0.963 us of the vector pipelines' heads: 300 + 15.89 +
// 882.09 + 497.36 + 37.37 = 1,733 cycles on one core whose loads are under 25,000 B; relu also
// pays its one instruction's fixed 20.02 cycles for its one UB tile, neg, without a program, not),
// neg's record (1 us) releases the wait (1 us), then add (10.976 us, its Add's 23.22 cycles a
// tile); the vector cores are busy 21.949 of the 23.939 us, and a, b and the sum (32 B each)
// are live at once
// CHECK-NEXT: makespan {{ +}}23.93{{[0-9]}} us
// CHECK-NEXT: lower bound {{ +}}23.93{{[0-9]}} us  (bound by critical path;
// CHECK-NEXT: makespan / LB {{ +}}1.000
// CHECK-NEXT: critical path {{ +}}23.93{{[0-9]}} us over 4 tasks
// three kernels read and write 32 B tensors (224 B), all served from L2: no DRAM traffic, no DRAM line;
// the L2 time (e.g. add: 96 B / (1 core x 110 B/cycle x 1800 MHz) = 0.0005 us) is within the last digit
// CHECK-NEXT: engines          capacity      busy us      work us   util   tasks
// CHECK-NEXT:   VectorCore           48       21.94{{[0-9]}}       32.91{{[0-9]}}   2.9%       3
// CHECK-NEXT:   idle: AICore, AICPU, DVPP, HCCL, SDMA
// CHECK-NEXT: streams          priority   tasks  kernels      busy us   waiting us   util
// CHECK-NEXT:   stream 0 {{ +}}0       4        2       21.94{{[0-9]}}        1.989  91.{{[0-9]}}%
// CHECK-NEXT:   stream 1 {{ +}}0       3        1       10.96{{[0-9]}}        0.000  45.{{[0-9]}}%
// CHECK-NEXT: arena           2048 B (2.00 KiB); peak live 96 B = 4.7% of the arena; weights 0 B
// CHECK-NEXT: races           none
// CHECK-NEXT: deadlock        none
// CHECK-NEXT: y: float32[2, 4] mean=

// JSON: "calibration": {
// JSON-NEXT: "against": "CANN's kernels measured on one 910B2 by msprof
// JSON: "command": "python bench/fidelity_910b2.py",
// JSON-NEXT: "overridden": []
// A profile held against no measurement says so.
// UNCHECKED: "calibration": null,
// JSON: "makespan_us":
// JSON: "lower_bound_us":
// JSON: "critical_path_us":
// JSON: "engines": {
// JSON: "VectorCore": {
// JSON: "busy_us":
// JSON: "utilization":
// JSON: "dram": {
// JSON-NEXT: "type": "HBM",
// JSON-NEXT: "bytes": 0,
// JSON-NEXT: "shared": true,
// JSON-NEXT: "bandwidth_gbps": 1382.4,
// JSON: "streams": [
// JSON: "events": 1,
// JSON: "tasks": 7,
// JSON: "arena_bytes": 2048,
// JSON: "peak_live_bytes": 96,
// JSON: "races": [],
// JSON: "deadlock": null,
// JSON: "outputs": {

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.record_event {event = 0, stream = 1} : () -> ()
  ge.wait_event {event = 0, stream = 0} : () -> ()
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

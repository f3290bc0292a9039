// ge-run --sweep PARAM=V1,V2,...: one timing-only emulation per value of a
// device parameter, a row each.
// RUN: ge-run %s --sweep event_wait_us=0,1,2,5 | filecheck %s
// RUN: ge-run %s --device V100 --sweep dram_bandwidth_gbps=100,900 --report json | filecheck %s --check-prefix=JSON
// RUN: ge-run %s --mode host --device-param event_wait_us=0 --sweep host_launch_us=0,10 | filecheck %s --check-prefix=HOST
// RUN: ge-run %S/../run/Inputs/weights_gemv.mlir --device 310P3 --sweep kernel_overhead_us=0,1 | filecheck %s --check-prefix=COLD
// RUN: ge-run %S/../run/Inputs/weights_gemv.mlir --device 310P3 --sweep kernel_overhead_us=0,1 --warm-l2 | filecheck %s --check-prefix=WARM
// RUN: ge-run %S/../run/Inputs/weights_gemv.mlir --device 310P3 --sweep kernel_overhead_us=0 --report json > %t.cold.json
// RUN: ge-run %S/../run/Inputs/weights_gemv.mlir --device 310P3 --sweep kernel_overhead_us=0 --warm-l2 --report json > %t.warm.json
// RUN: filecheck %s --check-prefix=WARMJSON < %t.warm.json
// RUN: python -c "import json, sys; c, w = (json.load(open(f))['rows'][0]['makespan_us'] for f in sys.argv[1:]); print('warm faster' if w < c else 'warm not faster')" %t.cold.json %t.warm.json | filecheck %s --check-prefix=FASTER
// RUN: not ge-run %s --sweep event_wait_us 2>&1 | filecheck %s --check-prefix=NOEQ
// RUN: not ge-run %s --sweep event_wai_us=1,2 2>&1 | filecheck %s --check-prefix=BADKEY
// RUN: not ge-run %s --sweep event_wait_us=1,,2 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not ge-run %s --sweep event_wait_us=1,fast 2>&1 | filecheck %s --check-prefix=BADVALUE
// RUN: not ge-run %s --sweep event_wait_us=-1 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not ge-run %s --sweep ai_cores=1.5 2>&1 | filecheck %s --check-prefix=WHOLE
// RUN: not ge-run %s --sweep event_wait_us=1 --device-param event_wait_us=3 2>&1 | filecheck %s --check-prefix=CONFLICT
// RUN: not ge-run %s --sweep event_wait_us=1 --sweep ai_cores=2 2>&1 | filecheck %s --check-prefix=TWICE

// relu and neg on two streams, neg's record releases a wait before add: each
// microsecond of wait latency is a microsecond of makespan: 2 kernels of 1.9 us and 0.963 us
// of vector pipeline heads (plus 64-96 B of L2 traffic each, under 0.001 us; add also pays its
// Add's fixed 23.22 cycles for its one UB tile, 0.013 us) and the record's 1 us: 6.739 us at
// no wait, 11.739 us (1.742x) at 5 us.
// CHECK: sweep of event_wait_us on 910B2 (sink mode), 'main': 4 values; profile value 1 (assumed: no public per-event latency
// CHECK-NEXT: event_wait_us {{ +}}makespan us {{ +}}lower bound us bound by {{ +}}makespan/LB {{ +}}vs first
// CHECK-NEXT: 0 {{ +}}6.73{{[0-9]}} {{ +}}6.73{{[0-9]}} critical path {{ +}}1.000 {{ +}}1.000
// CHECK-NEXT: 1 {{ +}}7.73{{[0-9]}} {{ +}}7.73{{[0-9]}} critical path
// CHECK-NEXT: 2 {{ +}}8.73{{[0-9]}}
// CHECK-NEXT: 5 {{ +}}11.73{{[0-9]}} {{ +}}11.73{{[0-9]}} critical path {{ +}}1.000 {{ +}}1.74{{[0-9]}}
// CHECK-NOT: {{.}}

// JSON: "device": "V100",
// JSON: "param": "dram_bandwidth_gbps",
// JSON: "default": 900.0,
// JSON: "assumed": false,
// JSON: "rows": [
// JSON: "dram_bandwidth_gbps": 100.0,
// JSON: "dram_bandwidth_gbps": 900.0,

// Five tasks launched one by one (relu, neg, the record, the wait and add;
// the host launches nothing for a stream's end of the graph): at
// 10 us a launch the run is the host's 50 us and add's 2.876 after its launch.
// HOST: sweep of host_launch_us on 910B2 (host mode)
// HOST: 0 {{ +}}
// HOST-NEXT: 10 {{ +}}52.876 {{ +}}52.876 critical path

// --warm-l2 applies to every row: a GEMV over 8 MiB of weights reads them from
// L2 after a warm-up run, from DRAM without one (the 310P3's 16 MiB L2 holds them).
// COLD: sweep of kernel_overhead_us on 310P3 (sink mode), 'main': 2 values
// COLD-NEXT: kernel_overhead_us {{ +}}makespan us
// COLD-NEXT: 0 {{ +}}{{[0-9.]+}} {{ +}}
// WARM: sweep of kernel_overhead_us on 310P3 (sink mode, after a warm-up run), 'main': 2 values
// WARM-NEXT: kernel_overhead_us {{ +}}makespan us
// WARM-NEXT: 0 {{ +}}{{[0-9.]+}} {{ +}}
// WARMJSON: "warm_l2": true,
// FASTER: warm faster

// NOEQ: error: --sweep expects PARAM=V1,V2,..., got 'event_wait_us'
// NOEQ-NOT: Traceback
// BADKEY: error: unknown device parameter 'event_wai_us'
// BADKEY-NEXT: note: did you mean 'event_wait_us'?
// EMPTY: error: --sweep event_wait_us: empty value in '1,,2'
// BADVALUE: error: --sweep: 'event_wait_us' must be a number, got 'fast'
// NEGATIVE: error: --sweep event_wait_us: every value must be at least 0, got -1
// WHOLE: error: --sweep: 'ai_cores' must be a whole number, got '1.5'
// CONFLICT: error: --sweep event_wait_us conflicts with --device-param event_wait_us=3
// TWICE: error: --sweep given 2 times: sweep one parameter at a time

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.record_event {event = 0, stream = 1} : () -> ()
  ge.wait_event {event = 0, stream = 0} : () -> ()
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

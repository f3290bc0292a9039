// --device picks a profile (name or JSON file), --device-param overrides one of
// its numbers, --mode host adds the host's per-task launch cost (runtime v2);
// bad values are diagnostics (exit 1), never tracebacks.
// RUN: ge-run %s --timing-only --device 310P3 | filecheck %s --check-prefix=P3
// RUN: ge-run %s --timing-only --device 310P3 --device-param l2_bytes=0 | filecheck %s --check-prefix=P3DRAM
// RUN: ge-run %s --timing-only --mode host --device-param host_launch_us=10 | filecheck %s --check-prefix=HOST
// RUN: ge-run %s --timing-only --device %S/../../backends/devices/910B4.json | filecheck %s --check-prefix=FILE
// RUN: not ge-run %s --device-param ai_cors=4 2>&1 | filecheck %s --check-prefix=BADKEY
// RUN: not ge-run %s --device-param ai_cores=many 2>&1 | filecheck %s --check-prefix=BADVALUE
// RUN: not ge-run %s --device 910B 2>&1 | filecheck %s --check-prefix=BADDEVICE
// A profile file's calibration says what its times were held against, in words.
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/910B4.json')); d['calibration'] = {'against': 'x'}; json.dump(d, open('%t.half.json', 'w'))"
// RUN: not ge-run %s --device %t.half.json 2>&1 | filecheck %s --check-prefix=BADCAL
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/910B4.json')); d['calibration'] = {'against': 'x', 'result': 'y', 'command': 'z', 'mape': 3}; json.dump(d, open('%t.key.json', 'w'))"
// RUN: not ge-run %s --device %t.key.json 2>&1 | filecheck %s --check-prefix=BADCALKEY
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/310P3.json')); d['cube_nd_operands']['value'] = 'no'; json.dump(d, open('%t.flag.json', 'w'))"
// RUN: not ge-run %s --device %t.flag.json 2>&1 | filecheck %s --check-prefix=BADFLAG
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/310P3.json')); d['short_soc']['value'] = 310; json.dump(d, open('%t.short.json', 'w'))"
// RUN: not ge-run %s --device %t.short.json 2>&1 | filecheck %s --check-prefix=BADSHORT
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/310P3.json')); d['memory_type']['value'] = ' '; json.dump(d, open('%t.memory.json', 'w'))"
// RUN: not ge-run %s --device %t.memory.json 2>&1 | filecheck %s --check-prefix=BADMEMORY
// RUN: %python -c "import json; d = json.load(open('%S/../../backends/devices/910B4.json')); d['calibration'] = {'against': 'x', 'result': 'y', 'command': 'z', 'mape_percent': {'t.csv': 'low'}}; json.dump(d, open('%t.mape.json', 'w'))"
// RUN: not ge-run %s --device %t.mape.json 2>&1 | filecheck %s --check-prefix=BADCALMAPE
// RUN: printf '\xff{}' > %t.binary.json
// RUN: not ge-run %s --device %t.binary.json 2>&1 | filecheck %s --check-prefix=BINARY

// 310P has no separate vector cores for AICore kernels: relu runs on the AI cores.
// P3: emulated 'main' on 310P3 (sink mode)
// P3: AICore {{ +}}8
// The report names the device memory its profile states (the 310P3's LPDDR4X).
// P3DRAM: DRAM (LPDDR4X) {{ +}}48 B at 196.731 GB/s

// force_fp16's casts around the three ops and the ops themselves run as one
// vector kernel (UB fusion): the host launches that one task, 10 us, and nothing
// for the ops fused into it or the end of the graph; the kernel runs after it.
// HOST: emulated 'main' on 910B2 (host mode): 2 tasks (1 kernel, 0 copies, 0 records, 0 waits) on 1 stream, 0 events; 4 ops fused or aliased, no task of their own
// HOST-NEXT: checked against CANN's kernels measured on one 910B2 by msprof {{.*}}: MatMul MAPE {{[0-9.]+}}% {{.*}}, Sigmoid and GELU {{[0-9.]+}}% {{.*}}; no whole-model 910B2 time is public, so every other time is a prediction from the profile's sourced, fitted and assumed numbers
// HOST-NEXT: makespan {{ +}}12.863 us
// HOST-NEXT: lower bound {{ +}}12.863 us  (bound by critical path; critical path 12.863, Host 10.000,
// HOST: critical path {{ +}}12.863 us over 1 task (after the host's launches)
// HOST: Host {{ +}}1 {{ +}}10.000 {{ +}}10.000 {{ +}}77.7% {{ +}}1

// FILE: emulated 'main' on 910B4 (sink mode)
// FILE-NEXT: checked against nothing: no measured 910B4 time was found; these times are predictions from the profile's sourced and assumed numbers

// BADKEY: error: unknown device parameter 'ai_cors'
// BADKEY-NEXT: note: did you mean 'ai_cores'?
// BADKEY-NOT: Traceback
// BADVALUE: error: --device-param: 'ai_cores' must be a number, got 'many'
// BADDEVICE: error: unknown device '910B'
// BADDEVICE: note: '910B' is ambiguous: name the SoC (910B2, 910B4, ...)
// BADCAL: error: device profile '{{.*}}half.json': 'calibration' must be an object with 'against', 'result' and 'command' texts
// BADCAL-NOT: Traceback
// BADCALKEY: error: device profile '{{.*}}key.json': 'calibration' has unknown key(s) mape
// BADCALKEY-NEXT: note: known keys: against, result, command, mape_percent
// BINARY: binary.json: error: not UTF-8 text: byte 0xff at offset 0 (invalid start byte)
// BINARY-NOT: Traceback
// BADFLAG: error: device profile '{{.*}}flag.json': 'cube_nd_operands' must be true or false, got 'no'
// BADFLAG-NOT: Traceback
// BADSHORT: error: device profile '{{.*}}short.json': 'short_soc' must be a text (the platform config's Short_SoC_version), got 310
// BADSHORT-NOT: Traceback
// BADMEMORY: error: device profile '{{.*}}memory.json': 'memory_type' must be a text naming the device memory ("LPDDR4X", "HBM2"), got ' '
// BADMEMORY-NOT: Traceback
// BADCALMAPE: error: device profile '{{.*}}mape.json': 'calibration' 'mape_percent' must map each table to a percentage

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = ge.sigmoid %b : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

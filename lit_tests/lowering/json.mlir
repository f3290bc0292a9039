// The task list as JSON: export from a lowered graph, import back to the same
// rt module, and a located diagnostic (never a traceback) for bad JSON.
// RUN: ge-opt %s --lower-to-tasks -o %t.mlir
// RUN: ge-translate --export-tasks-json %t.mlir | filecheck %s
// RUN: ge-translate --export-tasks-json %t.mlir -o %t.json
// RUN: ge-translate --import-tasks-json %t.json -o %t.back.mlir
// RUN: ge-translate --export-tasks-json %t.back.mlir | diff %t.json -
// RUN: ge-opt %t.back.mlir | diff %t.back.mlir -
// ge-run runs the JSON as it runs the rt module it describes; a malformed one is located in it.
// RUN: ge-run %t.back.mlir --timing-only --report json | grep makespan_us > %t.ir.time
// RUN: ge-run %t.json --timing-only --report json | grep makespan_us | diff %t.ir.time -
// RUN: not ge-run %S/Inputs/truncated.json 2>&1 | filecheck %s --check-prefix=TRUNCATED
// A ge module must be lowered first.
// RUN: not ge-translate --export-tasks-json %s 2>&1 | filecheck %s --check-prefix=NOT-LOWERED

// CHECK:      {
// CHECK-NEXT:   "format": "geir.task-list",
// CHECK-NEXT:   "version": 1,
// CHECK-NEXT:   "name": "main",
// CHECK-NEXT:   "arena_size": 1536,
// CHECK-NEXT:   "weight_size": 512,
// CHECK-NEXT:   "num_events": 1,
// CHECK-NEXT:   "ub_size": 0,
// CHECK-NEXT:   "inputs": [
// CHECK-NEXT:     {"name": "x", "ref": {"space": "arena", "offset": 0, "shape": [2, 2], "dtype": "f32"}}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "outputs": [
// CHECK-NEXT:     {"name": "y", "ref": {"space": "arena", "offset": 1024, "shape": [2, 2], "dtype": "f32"}}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "weights": [
// 0.5, 1, 2, -0.125 as little-endian f32, base64
// CHECK-NEXT:     {"name": "scale", "offset": 0, "shape": [2, 2], "dtype": "f32", "data": "AAAAPwAAgD8AAABAAAAAvg=="}
// CHECK-NEXT:   ],
// CHECK-NEXT:   "streams": [
// CHECK-NEXT:     {"id": 0, "priority": 0, "tasks": [
// CHECK-NEXT:       {"kind": "kernel", "op": "ge.mul", "engine": "AICore", "block_dim": 1, "inputs": [{"space": "arena", "offset": 0, "shape": [2, 2], "dtype": "f32"}, {"space": "weights", "offset": 0, "shape": [2, 2], "dtype": "f32"}], "outputs": [{"space": "arena", "offset": 512, "shape": [2, 2], "dtype": "f32"}], "attributes": {}, "flops": 4, "bytes": 48, "loc": "{{.*}}json.mlir:{{[0-9]+}}:8", "name": "%m"},
// CHECK-NEXT:       {"kind": "record", "event": 0, "loc": "{{.*}}"},
// CHECK-NEXT:       {"kind": "end_graph", "loc": ""}
// CHECK-NEXT:     ]},
// CHECK-NEXT:     {"id": 1, "priority": 0, "tasks": [
// CHECK-NEXT:       {"kind": "wait", "event": 0, "loc": "{{.*}}"},
// Attributes: plain JSON where that is exact (i64, f64, strings, lists), MLIR text otherwise.
// CHECK-NEXT:       {"kind": "kernel", "op": "ge.leaky_relu", "engine": "AICore", "block_dim": 1, {{.*}} "attributes": {"alpha": {"mlir": "1.000000e-01 : f32"}}, "flops": 8, "bytes": 32, "loc": "lrelu", "name": "%y"},
// CHECK-NEXT:       {"kind": "end_graph", "loc": ""}
// CHECK-NEXT:     ]}
// CHECK-NEXT:   ]
// CHECK-NEXT: }

// NOT-LOWERED: error: the module has no 'rt.model' (a ge module needs --lower-to-tasks first)
ge.graph @main(%x: tensor<2x2xf32> {ge.name = "x"}) -> (tensor<2x2xf32> {ge.name = "y"}) {
  %scale = ge.const {value = dense<[[0.5, 1.0], [2.0, -0.125]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %m = ge.mul %x, %scale : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %y = ge.leaky_relu %m {alpha = 0.1 : f32, stream = 1} : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("lrelu")
  ge.return %y : (tensor<2x2xf32>) -> ()
}

// A hand-written file: optional keys left out, attributes in both encodings.
// RUN: ge-translate --import-tasks-json %S/Inputs/minimal.json | filecheck %s --check-prefix=MINIMAL
// MINIMAL: rt.kernel {attrs = {alpha = 2.500000e-01 : f32, dims = [1, 2], note = "hand written"}, engine = "AICore", inputs = {{\[}}["arena", 0, tensor<4xf32>]], op = "ge.leaky_relu", outputs = {{\[}}["arena", 512, tensor<4xf32>]]} : () -> ()

// Malformed JSON: the position of the JSON error.
// RUN: not ge-translate --import-tasks-json %S/Inputs/malformed.json 2>&1 | filecheck %s --check-prefix=MALFORMED
// MALFORMED: malformed.json:5:3: error: malformed task-list JSON: Expecting ',' delimiter
// MALFORMED-NOT: Traceback
// RUN: not ge-translate --import-tasks-json %S/Inputs/truncated.json 2>&1 | filecheck %s --check-prefix=TRUNCATED
// TRUNCATED: truncated.json:2:1: error: malformed task-list JSON: Expecting value
// RUN: echo '[1, 2' | not ge-translate --import-tasks-json - 2>&1 | filecheck %s --check-prefix=STDIN
// STDIN: <stdin>:2:1: error: malformed task-list JSON: Expecting

// Schema violations: the path of the bad value, at the object that holds it.
// RUN: not ge-translate --import-tasks-json %S/Inputs/wrong_type.json 2>&1 | filecheck %s --check-prefix=TYPE
// TYPE: wrong_type.json:9:7: error: invalid task list: streams[0].tasks[1].event: expected an integer, got "zero"
// RUN: not ge-translate --import-tasks-json %S/Inputs/newer_version.json 2>&1 | filecheck %s --check-prefix=VERSION
// VERSION: newer_version.json:1:1: error: invalid task list: version: unsupported version 2 (this geir reads version 1)
// RUN: not ge-translate --import-tasks-json %S/Inputs/unknown_kind.json 2>&1 | filecheck %s --check-prefix=KIND
// KIND: unknown_kind.json:2:23: error: invalid task list: streams[0].tasks[0].kind: unknown task kind "launch"
// RUN: not ge-translate --import-tasks-json %S/Inputs/short_weight.json 2>&1 | filecheck %s --check-prefix=WEIGHT
// WEIGHT: short_weight.json:3:4: error: invalid task list: weights[0].data: holds 4 bytes, but shape [4] of f32 needs 16
// A splat weight stays one value: 4 GiB of ones import as a dense splat, never written out as a blob.
// RUN: ge-translate --import-tasks-json %S/Inputs/large_splat.json | filecheck %s --check-prefix=SPLAT
// SPLAT: weights = {{\[\["w", 0, dense<1.000000e\+00> : tensor<1024x1024x1024xf32>\]\]}}
// RUN: not ge-translate --import-tasks-json %S/Inputs/huge_shape.json 2>&1 | filecheck %s --check-prefix=HUGE
// HUGE: huge_shape.json:3:4: error: invalid task list: weights[0].shape: [64, 1000000000000000000] holds 6.4e+19 elements, more than a tensor's bytes can number (1.15e+18 at most)
// RUN: not ge-translate --import-tasks-json %S/Inputs/bad_space.json 2>&1 | filecheck %s --check-prefix=SPACE
// SPACE: bad_space.json:9:18: error: invalid task list: streams[0].tasks[0].outputs[0].space: expected "arena", "weights" or "ub", got "heap"

// A task list the rt verifier rejects: the error points at the task's object.
// RUN: not ge-translate --import-tasks-json %S/Inputs/unmatched_wait.json 2>&1 | filecheck %s --check-prefix=WAIT
// WAIT: unmatched_wait.json:12:7: error: 'rt.wait' op waits for event 1, but no 'rt.record' in the model records it
// RUN: not ge-translate --import-tasks-json %S/Inputs/out_of_arena.json 2>&1 | filecheck %s --check-prefix=ARENA
// ARENA: out_of_arena.json:7:7: error: 'rt.kernel' op output #0 [512, 528) lies outside the arena (arena_size = 16)

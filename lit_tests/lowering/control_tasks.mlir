// The control tasks of the task sink (labels, stream switch and activation):
// the custom form is a fixed point, the generic form reads back, and the JSON
// form round-trips exactly.
// RUN: ge-opt %s > %t.1 && ge-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: ge-opt %s --mlir-print-op-generic | ge-opt | diff %t.1 -
// RUN: ge-opt %s | filecheck %s
// RUN: ge-translate --export-tasks-json %s -o %t.json
// RUN: filecheck %s --check-prefix=JSON < %t.json
// RUN: ge-translate --import-tasks-json %t.json -o %t.3
// RUN: ge-translate --export-tasks-json %t.3 | diff %t.json -

// CHECK:      rt.label_switch {index = ["arena", 0, tensor<i1>], labels = [1, 0]} : () -> ()
// CHECK-NEXT: rt.label_set {label = 0 : i64} : () -> ()
// CHECK-NEXT: rt.stream_active {stream = 1 : i64} : () -> ()
// CHECK-NEXT: rt.label_goto {label = 2 : i64} : () -> ()
// CHECK-NEXT: rt.label_set {label = 1 : i64} : () -> ()
// CHECK-NEXT: rt.stream_switch {cond = ["arena", 0, tensor<i1>], condition = "eq", true_stream = 1 : i64, value = 0 : i64} : () -> ()
// CHECK-NEXT: rt.label_set {label = 2 : i64, loc = "leave"} : () -> ()

// JSON:      {"kind": "label_switch", "index": {"space": "arena", "offset": 0, "shape": [], "dtype": "i1"}, "labels": [1, 0], "loc": ""},
// JSON-NEXT: {"kind": "label_set", "label": 0, "loc": ""},
// JSON-NEXT: {"kind": "stream_active", "stream": 1, "loc": ""},
// JSON-NEXT: {"kind": "label_goto", "label": 2, "loc": ""},
// JSON-NEXT: {"kind": "label_set", "label": 1, "loc": ""},
// JSON-NEXT: {"kind": "stream_switch", "cond": {"space": "arena", "offset": 0, "shape": [], "dtype": "i1"}, "condition": "eq", "value": 0, "true_stream": 1, "loc": ""},

rt.model ({
  rt.stream ({
    rt.label_switch {index = ["arena", 0, tensor<i1>], labels = [1, 0]} : () -> ()
    rt.label_set {label = 0} : () -> ()
    rt.stream_active {stream = 1} : () -> ()
    rt.label_goto {label = 2} : () -> ()
    rt.label_set {label = 1} : () -> ()
    rt.stream_switch {cond = ["arena", 0, tensor<i1>], condition = "eq", value = 0, true_stream = 1} : () -> ()
    rt.label_set {label = 2, loc = "leave"} : () -> ()
    rt.end_graph : () -> ()
  }) {id = 0} : () -> ()
  rt.stream ({
    rt.kernel {op = "ge.relu", engine = "AICore", inputs = [["arena", 512, tensor<4xf32>]], outputs = [["arena", 1024, tensor<4xf32>]]} : () -> ()
  }) {id = 1} : () -> ()
}) {sym_name = "m", arena_size = 2048, inputs = [["p", ["arena", 0, tensor<i1>]], ["x", ["arena", 512, tensor<4xf32>]]], outputs = [["y", ["arena", 1024, tensor<4xf32>]]]} : () -> ()

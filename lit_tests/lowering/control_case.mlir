// lower-to-tasks on ge.case, as GE's CaseOpLabelMaker lays it out: one
// rt.label_switch (rtLabelSwitchByIndex) over the N branch labels in region
// order, each branch but the last ending in a goto past the last; the branches
// start at one arena base and a value a branch computes is written straight into
// the case's result. A case of one branch has no label at all. partition-streams
// gives each branch a stream of its own, started after its label.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge}' -Rpass='.*' -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge},insert-events,lower-to-tasks' 2>/dev/null | filecheck %s --check-prefix=STREAMS
// A constant index is its branch, inlined (an index out of range: the last).
// RUN: ge-opt %s --canonicalize | filecheck %s --check-prefix=CANON

// CHECK-LABEL: rt.model
// CHECK:      rt.label_switch {index = ["arena", 0, tensor<i32>], labels = [0, 1, 2]
// CHECK-NEXT: rt.label_set {label = 0 : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.relu", outputs = {{\[}}["arena", [[RES:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT: rt.label_goto {label = 3 : i64
// CHECK-NEXT: rt.label_set {label = 1 : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.neg", outputs = {{\[}}["arena", [[BASE:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.abs", outputs = {{\[}}["arena", [[RES]], tensor<4xf32>]]
// CHECK-NEXT: rt.label_goto {label = 3 : i64
// CHECK-NEXT: rt.label_set {label = 2 : i64
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.exp", outputs = {{\[}}["arena", [[BASE]], tensor<4xf32>]]
// CHECK-NEXT: rt.kernel {{.*}}op = "ge.sqrt", outputs = {{\[}}["arena", [[RES]], tensor<4xf32>]]
// CHECK-NEXT: rt.label_set {label = 3 : i64
// CHECK-NEXT: rt.end_graph

// REMARK: control_case.mlir:{{[0-9]+}}:8: remark: partition-streams: the regions of 'ge.case' on stream(s) 1, 2, 3, started by a stream-active task after each branch's label on stream 0 (GE assigns a subgraph's streams itself)

// STREAMS-LABEL: rt.model
// STREAMS:      rt.label_switch {{.*}}labels = [0, 1, 2]
// STREAMS-NEXT: rt.label_set {label = 0
// STREAMS-NEXT: rt.stream_active {{{.*}}stream = 1 : i64}
// STREAMS-NEXT: rt.wait
// STREAMS-NEXT: rt.label_goto {label = 3
// STREAMS-NEXT: rt.label_set {label = 1
// STREAMS-NEXT: rt.stream_active {{{.*}}stream = 2 : i64}
// STREAMS-NEXT: rt.wait
// STREAMS-NEXT: rt.label_goto {label = 3
// STREAMS-NEXT: rt.label_set {label = 2
// STREAMS-NEXT: rt.stream_active {{{.*}}stream = 3 : i64}
// STREAMS-NEXT: rt.wait
// STREAMS-NEXT: rt.label_set {label = 3

// CANON-LABEL: ge.graph @three
// CANON: ge.case
// CANON-LABEL: ge.graph @constant
// CANON-NOT: ge.case
// CANON: ge.exp
// CANON-NOT: ge.relu
// CANON: ge.return
ge.graph @three(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.case %i ({
    %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a : (tensor<4xf32>) -> ()
  }, {
    %b = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    %b2 = ge.abs %b : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %b2 : (tensor<4xf32>) -> ()
  }, {
    %c = ge.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    %c2 = ge.sqrt %c : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %c2 : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// CHECK-LABEL: rt.model
// CHECK-NOT:  rt.label
// CHECK:      rt.kernel {{.*}}op = "ge.sqrt"
// CHECK-NOT:  rt.label
// CHECK:      rt.end_graph
ge.graph @one(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.case %i ({
    %a = ge.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

ge.graph @constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = ge.const {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %r = ge.case %i ({
    %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a : (tensor<4xf32>) -> ()
  }, {
    %c = ge.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %c : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

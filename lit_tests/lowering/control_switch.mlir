// lower-to-tasks on a ge.switch / ge.merge diamond (TF v1's cond), as GE's
// SwitchToStreamSwitchPass and MergeToStreamMergePass lower it: the switch is
// bypassed (a branch reads its data), two rt.stream_switch tasks on the
// predicate (cast to i32) start the true or the false branch's stream, each branch writes its
// value into the merge's slot and its index into value_index and starts the
// merge stream (rt.stream_active), whose memcpy (GE's StreamMerge) writes the
// merge's result and records the event the switching stream waits for.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge}' -Rpass='partition-streams' -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=ge},insert-events,lower-to-tasks' -o /dev/null

// CHECK-LABEL: rt.model
// The predicate cast to i32 (GE's Cast), a buffer only the switches read.
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.kernel {attrs = {to = i32}{{.*}}inputs = {{\[}}["arena", 0, tensor<i1>]]{{.*}}op = "ge.cast", outputs = {{\[}}["arena", [[P:[0-9]+]], tensor<i32>]]
// CHECK-NEXT:   rt.stream_switch {cond = ["arena", [[P]], tensor<i32>], condition = "ne"{{.*}}true_stream = [[T:[0-9]+]] : i64, value = 0 : i64}
// CHECK-NEXT:   rt.stream_switch {cond = ["arena", [[P]], tensor<i32>], condition = "eq"{{.*}}true_stream = [[F:[0-9]+]] : i64, value = 0 : i64}
// CHECK-NEXT:   rt.wait {event = [[E:[0-9]+]]
// CHECK-NEXT:   rt.kernel {{.*}}inputs = {{\[}}["arena", [[M:[0-9]+]], tensor<4xf32>], ["arena", [[X:[0-9]+]], tensor<4xf32>]]{{.*}}op = "ge.mul"
// CHECK-NEXT:   rt.end_graph
// The true branch: relu reads the switch's data; add writes the merge's slot in place.
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.kernel {{.*}}inputs = {{\[}}["arena", [[X]], tensor<4xf32>]]{{.*}}op = "ge.relu"
// CHECK-NEXT:   rt.kernel {{.*}}op = "ge.add", outputs = {{\[}}["arena", [[SLOT:[0-9]+]], tensor<4xf32>]]
// CHECK-NEXT:   rt.memcpy {dst = ["arena", [[I:[0-9]+]], tensor<i32>]{{.*}}src = ["weights", [[ONE:[0-9]+]], tensor<i32>]
// CHECK-NEXT:   rt.stream_active {{{.*}}stream = [[MS:[0-9]+]] : i64}
// CHECK-NEXT: }) {id = [[T]] : i64
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.kernel {{.*}}op = "ge.neg", outputs = {{\[}}["arena", [[SLOT]], tensor<4xf32>]]
// CHECK-NEXT:   rt.memcpy {dst = ["arena", [[I]], tensor<i32>]{{.*}}src = ["weights", {{[0-9]+}}, tensor<i32>]
// CHECK-NEXT:   rt.stream_active {{{.*}}stream = [[MS]] : i64}
// CHECK-NEXT: }) {id = [[F]] : i64
// CHECK:      rt.stream ({
// CHECK-NEXT:   rt.memcpy {dst = ["arena", [[M]], tensor<4xf32>]{{.*}}src = ["arena", [[SLOT]], tensor<4xf32>]
// CHECK-NEXT:   rt.record {event = [[E]]
// CHECK-NEXT: }) {id = [[MS]] : i64
// CHECK:      weights = [{{.*}}dense<1> : tensor<i32>]{{.*}}dense<0> : tensor<i32>]

// REMARK: control_switch.mlir:{{[0-9]+}}:12: remark: partition-streams: the 1 switch(es) on this predicate, their branches and 1 merge(s) on stream {{[0-9]+}}; lower-to-tasks runs each branch and the merges on a stream of their own, started by stream-switch and stream-active tasks (GE's SwitchToStreamSwitchPass, MergeToStreamMergePass)
ge.graph @diamond(%p: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>) {
  %f, %t = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %a = ge.neg %f : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.relu %t : (tensor<4xf32>) -> tensor<4xf32>
  %b2 = ge.add %b, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m, %i = ge.merge %a, %b2 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  %y = ge.mul %m, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %y, %i : (tensor<4xf32>, tensor<i32>) -> ()
}

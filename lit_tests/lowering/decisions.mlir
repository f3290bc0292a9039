// lower-to-tasks honours the decisions earlier passes wrote on the ops: engine,
// stream (a stream's queue is the block order filtered by stream id), offsets,
// block_dim, the event ops (on their stream, or inferred from the neighbouring
// kernels), ge.offset on inputs and the graph's ge.stream_priorities.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s

// CHECK-LABEL: rt.model ({
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.kernel {block_dim = 2 : i64, {{.*}} engine = "AICore", {{.*}} inputs = {{\[}}["arena", 0, tensor<4x4xf32>]], {{.*}} op = "ge.relu", outputs = {{\[}}["arena", 64, tensor<4x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.record {event = 0 : i64, loc = "{{.*}}"} : () -> ()
// The second pair has no stream attribute: the wait guards the next kernel (%d, stream 0).
// CHECK-NEXT:      rt.wait {event = 1 : i64, loc = "{{.*}}"} : () -> ()
// Fresh buffers start past every planned byte (192, aligned up to 512).
// CHECK-NEXT:      rt.kernel {{{.*}} inputs = {{\[}}["arena", 512, tensor<4x4xf32>]], {{.*}} op = "ge.neg", outputs = {{\[}}["arena", 1024, tensor<4x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 0 : i64, priority = 0 : i64} : () -> ()
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.kernel {{{.*}} op = "ge.sigmoid", outputs = {{\[}}["arena", 128, tensor<4x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.wait {event = 0 : i64, {{.*}}} : () -> ()
// CHECK-NEXT:      rt.kernel {{{.*}} engine = "AICPU", {{.*}} inputs = {{\[}}["arena", 64, tensor<4x4xf32>], ["arena", 128, tensor<4x4xf32>]], {{.*}} op = "ge.add", outputs = {{\[}}["arena", 512, tensor<4x4xf32>]]} : () -> ()
// ... and the record announces the kernel before it (%c, stream 1).
// CHECK-NEXT:      rt.record {event = 1 : i64, {{.*}}} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 1 : i64, priority = 5 : i64} : () -> ()
// CHECK-NEXT:  }) {arena_size = 1536 : i64, inputs = {{\[}}["x", ["arena", 0, tensor<4x4xf32>]]], num_events = 2 : i64, outputs = {{\[}}["y", ["arena", 1024, tensor<4x4xf32>]]], sym_name = "main", weight_size = 0 : i64, weights = []} : () -> ()
ge.graph @main(%x: tensor<4x4xf32> {ge.name = "x", ge.offset = 0}) -> (tensor<4x4xf32> {ge.name = "y"}) attributes {ge.stream_priorities = [0, 5]} {
  %a = ge.relu %x {engine = "AICore", stream = 0, offsets = [64], block_dim = 2} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  %b = ge.sigmoid %x {stream = 1, offsets = [128]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %c = ge.add %a, %b {stream = 1, engine = "AICPU"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.record_event {event = 1} : () -> ()
  ge.wait_event {event = 1} : () -> ()
  %d = ge.neg %c : (tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.return %d : (tensor<4x4xf32>) -> ()
}

// Debug info: each task keeps the location of the ge op it came from.
// RUN: ge-opt %s --lower-to-tasks --mlir-print-debuginfo | filecheck %s --check-prefix=LOC
// LOC: rt.kernel {{.*}} op = "ge.relu", {{.*}} loc("{{.*}}decisions.mlir":27:8)
// LOC: }) {arena_size = {{.*}} loc("{{.*}}decisions.mlir":26:1)

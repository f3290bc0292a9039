// lower-to-tasks on a graph with no scheduling decisions: every op on stream 0
// with its OpDef's engine, a fresh 512-byte-aligned arena buffer per tensor
// (inputs first), block_dim left to the emulator, constants in the weight space,
// I/O bindings named by ge.name, and zero-copy outputs.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s
// The output is a pure rt module that parses, verifies and prints back the same.
// RUN: ge-opt %s --lower-to-tasks | ge-opt | filecheck %s

// CHECK-LABEL: module {
// CHECK-NEXT:  rt.model ({
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.kernel {bytes = 96 : i64, engine = "AICore", flops = 8 : i64, inputs = {{\[}}["arena", 0, tensor<2x4xf32>], ["arena", 512, tensor<2x4xf32>]], loc = "{{.*}}defaults.mlir:{{[0-9]+}}:8", name = "%0", op = "ge.add", outputs = {{\[}}["arena", 132096, tensor<2x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.kernel {bytes = 64 : i64, engine = "AICore", flops = 8 : i64, inputs = {{\[}}["arena", 132096, tensor<2x4xf32>]], loc = "act", name = "%1", op = "ge.relu", outputs = {{\[}}["arena", 132608, tensor<2x4xf32>]]} : () -> ()
// A constant operand is read from the weight space; the reshape is a kernel too.
// CHECK-NEXT:      rt.kernel {{{.*}} inputs = {{\[}}["arena", 132608, tensor<2x4xf32>], ["weights", 0, tensor<1xi64>]], {{.*}} op = "ge.reshape", outputs = {{\[}}["arena", 133120, tensor<8xf32>]]} : () -> ()
// Every ge op becomes one kernel, even one whose result nobody reads.
// CHECK-NEXT:      rt.kernel {{{.*}} name = "%sq", op = "ge.reshape", outputs = {{\[}}["arena", 133632, tensor<8xf32>]]} : () -> ()
// An AICPU op keeps its default engine.
// CHECK-NEXT:      rt.kernel {bytes = 20 : i64, engine = "AICPU", flops = 12 : i64, inputs = {{\[}}["weights", 512, tensor<2x2xf32>]], {{.*}} op = "ge.det", outputs = {{\[}}["arena", 134144, tensor<f32>]]} : () -> ()
// No block_dim: the emulator's cost model sizes the kernel for the device it simulates.
// CHECK-NEXT:      rt.kernel {bytes = 262144 : i64, engine = "AICore", {{.*}} inputs = {{\[}}["arena", 1024, tensor<256x256xf16>]], {{.*}} op = "ge.sigmoid", outputs = {{\[}}["arena", 134656, tensor<256x256xf16>]]} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 0 : i64, priority = 0 : i64} : () -> ()
// Outputs are the kernels' own buffers; unnamed ones are output<i>, unnamed inputs keep their SSA name.
// CHECK-NEXT:  }) {arena_size = 265728 : i64, inputs = {{\[}}["input", ["arena", 0, tensor<2x4xf32>]], ["y", ["arena", 512, tensor<2x4xf32>]], ["big", ["arena", 1024, tensor<256x256xf16>]]], num_events = 0 : i64, outputs = {{\[}}["sum", ["arena", 132608, tensor<2x4xf32>]], ["output_1", ["arena", 133120, tensor<8xf32>]], ["det", ["arena", 134144, tensor<f32>]], ["output_3", ["arena", 134656, tensor<256x256xf16>]]], sym_name = "main", weight_size = 1024 : i64, weights = {{\[}}["shape", 0, dense<8> : tensor<1xi64>], ["m", 512, dense<{{.*}}> : tensor<2x2xf32>]]} : () -> ()
// CHECK-NEXT: }
// CHECK-NOT: ge.
ge.graph @main(%x: tensor<2x4xf32> {ge.name = "input"}, %y: tensor<2x4xf32>, %big: tensor<256x256xf16> {ge.name = "big"}) -> (tensor<2x4xf32> {ge.name = "sum"}, tensor<8xf32>, tensor<f32> {ge.name = "det"}, tensor<256x256xf16>) {
  %0 = ge.add %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = ge.relu %0 : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("act")
  %shape = ge.const {value = dense<8> : tensor<1xi64>} : () -> tensor<1xi64>
  %2 = ge.reshape %1, %shape : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<8xf32>
  %sq = ge.reshape %2, %shape : (tensor<8xf32>, tensor<1xi64>) -> tensor<8xf32>
  %m = ge.const {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %d = ge.det %m : (tensor<2x2xf32>) -> tensor<f32>
  %s = ge.sigmoid %big : (tensor<256x256xf16>) -> tensor<256x256xf16>
  ge.return %1, %2, %d, %s : (tensor<2x4xf32>, tensor<8xf32>, tensor<f32>, tensor<256x256xf16>) -> ()
}

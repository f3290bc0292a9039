// An rt module written by hand: every task kind, two streams, weights as
// dense_resource blobs. Both printed forms are fixed points, upstream MLIR reads
// the generic form back byte for byte, and the JSON form round-trips exactly.
// RUN: ge-opt %s > %t.1 && ge-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: ge-opt %s --mlir-print-op-generic > %t.g1 && ge-opt %t.g1 --mlir-print-op-generic > %t.g2 && diff %t.g1 %t.g2
// RUN: ge-opt %t.g1 | diff %t.1 -
// RUN: ge-opt %s | filecheck %s
// RUN: ge-translate --export-tasks-json %s -o %t.json
// RUN: ge-translate --import-tasks-json %t.json -o %t.3
// RUN: ge-translate --export-tasks-json %t.3 | diff %t.json -
// RUN: ge-opt %t.3 | diff %t.3 -

// CHECK-LABEL: rt.model ({
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.kernel {attrs = {alpha = 1.000000e+00 : f32, transB = 1 : i64}, block_dim = 2 : i64, bytes = 4.500000e+00 : f64, engine = "AICore", flops = 64 : i64, inputs = {{\[}}["arena", 0, tensor<2x4xf32>], ["weights", 0, tensor<4x4xf32>], unit], loc = "gemm", name = "%y", op = "ge.gemm", outputs = {{\[}}["arena", 512, tensor<2x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.record {event = 0 : i64} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 0 : i64, priority = 1 : i64} : () -> ()
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.wait {event = 0 : i64, loc = "join"} : () -> ()
// CHECK-NEXT:      rt.memcpy {dst = ["arena", 1024, tensor<2x4xf32>], src = ["arena", 512, tensor<2x4xf32>]} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 4 : i64} : () -> ()
// CHECK-NEXT:  }) {arena_size = 1536 : i64, inputs = {{\[}}["x", ["arena", 0, tensor<2x4xf32>]]], num_events = 1 : i64, outputs = {{\[}}["y", ["arena", 512, tensor<2x4xf32>]], ["y copy", ["arena", 1024, tensor<2x4xf32>]]], sym_name = "main", weight_size = 512 : i64, weights = {{\[}}["fc.weight", 0, dense_resource<fc_w> : tensor<4x4xf32>]]} : () -> ()
// CHECK:       fc_w: "0x04000000
module {
  rt.model ({
    rt.stream ({
      rt.kernel {op = "ge.gemm", engine = "AICore", block_dim = 2, attrs = {alpha = 1.0 : f32, transB = 1}, inputs = [["arena", 0, tensor<2x4xf32>], ["weights", 0, tensor<4x4xf32>], unit], outputs = [["arena", 512, tensor<2x4xf32>]], flops = 64, bytes = 4.5, loc = "gemm", name = "%y"} : () -> ()
      rt.record {event = 0} : () -> ()
      rt.end_graph : () -> ()
    }) {id = 0, priority = 1} : () -> ()
    rt.stream ({
      rt.wait {event = 0, loc = "join"} : () -> ()
      rt.memcpy {src = ["arena", 512, tensor<2x4xf32>], dst = ["arena", 1024, tensor<2x4xf32>]} : () -> ()
      rt.end_graph : () -> ()
    }) {id = 4} : () -> ()
  }) {sym_name = "main", arena_size = 1536, weight_size = 512, num_events = 1,
      inputs = [["x", ["arena", 0, tensor<2x4xf32>]]],
      outputs = [["y", ["arena", 512, tensor<2x4xf32>]], ["y copy", ["arena", 1024, tensor<2x4xf32>]]],
      weights = [["fc.weight", 0, dense_resource<fc_w> : tensor<4x4xf32>]]} : () -> ()
}
{-#
  dialect_resources: {
    builtin: {
      fc_w: "0x040000000000803F000000000000000000000000000000000000803F000000000000000000000000000000000000803F000000000000000000000000000000000000803F"
    }
  }
#-}

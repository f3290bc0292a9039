// Constants become weight blobs (named by loc, else SSA name; dense_resource
// blobs stay blobs), ge.none operands become absent refs (unit), decision and
// pinning attributes leave the kernel's attrs, and outputs that are not a
// kernel's own buffer (a value returned twice, an input, a constant) are copied
// into their binding by rt.memcpy at the end of the stream.
// RUN: ge-opt %s --lower-to-tasks | filecheck %s
// RUN: ge-opt %s --lower-to-tasks | ge-opt | filecheck %s

// CHECK-LABEL: rt.model ({
// CHECK-NEXT:    rt.stream ({
// CHECK-NEXT:      rt.kernel {attrs = {strides = [1, 1]}, {{.*}} inputs = {{\[}}["arena", 0, tensor<1x2x4x4xf32>], ["weights", 0, tensor<2x2x1x1xf32>], ["weights", 512, tensor<2xf32>]], {{.*}} op = "ge.conv2d", outputs = {{\[}}["arena", 512, tensor<1x2x4x4xf32>]]} : () -> ()
// CHECK-NEXT:      rt.kernel {{{.*}} inputs = {{\[}}["arena", 512, tensor<1x2x4x4xf32>], unit, ["weights", 1024, tensor<f32>]], {{.*}} op = "ge.clip", outputs = {{\[}}["arena", 1024, tensor<1x2x4x4xf32>]]} : () -> ()
// An op without a default engine falls back to AICPU; no results, no outputs.
// CHECK-NEXT:      rt.kernel {attrs = {type = "prefetch"}, {{.*}} engine = "AICPU", inputs = {{\[}}["arena", 1024, tensor<1x2x4x4xf32>]], {{.*}} op = "ge.cmo", outputs = []} : () -> ()
// CHECK-NEXT:      rt.memcpy {dst = ["arena", 1536, tensor<1x2x4x4xf32>], loc = "{{.*}}", src = ["arena", 1024, tensor<1x2x4x4xf32>]} : () -> ()
// CHECK-NEXT:      rt.memcpy {dst = ["arena", 2048, tensor<1x2x4x4xf32>], loc = "{{.*}}", src = ["arena", 0, tensor<1x2x4x4xf32>]} : () -> ()
// CHECK-NEXT:      rt.memcpy {dst = ["arena", 2560, tensor<2xf32>], loc = "{{.*}}", src = ["weights", 512, tensor<2xf32>]} : () -> ()
// CHECK-NEXT:      rt.end_graph : () -> ()
// CHECK-NEXT:    }) {id = 0 : i64, priority = 0 : i64} : () -> ()
// CHECK-NEXT:  }) {arena_size = 3072 : i64, inputs = {{\[}}["x", ["arena", 0, tensor<1x2x4x4xf32>]]], num_events = 0 : i64, outputs = {{\[}}["conv", ["arena", 1024, tensor<1x2x4x4xf32>]], ["conv_again", ["arena", 1536, tensor<1x2x4x4xf32>]], ["x_echo", ["arena", 2048, tensor<1x2x4x4xf32>]], ["bias", ["arena", 2560, tensor<2xf32>]]], sym_name = "main", weight_size = 1536 : i64, weights = {{\[}}["conv.weight", 0, dense_resource<conv_w> : tensor<2x2x1x1xf32>], ["b", 512, dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>], ["hi", 1024, dense<6.000000e+00> : tensor<f32>]]} : () -> ()
// CHECK:       dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      conv_w: "0x040000000000803F00000000000000000000803F"
ge.graph @main(%x: tensor<1x2x4x4xf32> {ge.name = "x"}) -> (tensor<1x2x4x4xf32> {ge.name = "conv"}, tensor<1x2x4x4xf32> {ge.name = "conv_again"}, tensor<1x2x4x4xf32> {ge.name = "x_echo"}, tensor<2xf32> {ge.name = "bias"}) {
  %w = ge.weights {value = dense_resource<conv_w> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32> loc("conv.weight")
  %b = ge.const {value = dense<[5.0e-01, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %none = ge.none : () -> none
  %y = ge.conv2d %x, %w, %b {strides = [1, 1], stream_label = "main", engine_pin = "AICore"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %hi = ge.const {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %s = ge.clip %y, %none, %hi : (tensor<1x2x4x4xf32>, none, tensor<f32>) -> tensor<1x2x4x4xf32>
  ge.cmo %s {type = "prefetch"} : (tensor<1x2x4x4xf32>) -> ()
  ge.return %s, %s, %x, %b : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<2xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000803F00000000000000000000803F"
    }
  }
#-}

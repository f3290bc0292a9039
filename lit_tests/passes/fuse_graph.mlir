// fuse-graph: the erf and tanh forms of GELU that exporters write op by op
// become the one ge.gelu CANN runs; the decomposed ops go. A window average pooling runs
// on the cube, as a depthwise convolution. A remark per fusion
// (-Rpass=fuse-graph). Constants within 0.1% match (they may already be f16).
// RUN: ge-opt %s --fuse-graph --split-input-file | filecheck %s
// RUN: ge-opt %s --fuse-graph --split-input-file -Rpass=fuse-graph -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// CHECK-LABEL: ge.graph @gelu
// CHECK-NOT:     ge.div
// CHECK-NOT:     ge.erf
// CHECK:         %y = ge.gelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    ge.return %y
// REMARK: remark: fused the erf form of GELU (Div, Erf, Add, Mul, Mul) into 'ge.gelu'
ge.graph @gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = ge.const {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %d = ge.div %x, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = ge.erf %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = ge.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = ge.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// Another constant is another function: nothing is fused. An intermediate read
// elsewhere stays.
// CHECK-LABEL: ge.graph @not_gelu
// CHECK-NOT: ge.gelu
// CHECK: ge.return
ge.graph @not_gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %d = ge.div %x, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = ge.erf %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = ge.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = ge.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// CHECK-LABEL: ge.graph @shared
// CHECK: %e = ge.erf
// CHECK: %y = ge.gelu %x
// CHECK: ge.return %y, %e
ge.graph @shared(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %s = ge.const {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %d = ge.div %x, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = ge.erf %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = ge.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m = ge.mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.mul %m, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  ge.return %y, %e : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
}

// -----

// GE's GeluONNXFusionPass also takes the half of x first, as a hand-written
// x * 0.5 * (1 + erf(x / sqrt 2)) exports; each Mul's operands in either order.
// CHECK-LABEL: ge.graph @gelu_half_of_x
// CHECK-NOT:     ge.erf
// CHECK:         %y = ge.gelu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    ge.return %y
// REMARK: remark: fused the erf form of GELU (Div, Erf, Add, Mul, Mul) into 'ge.gelu'
ge.graph @gelu_half_of_x(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = ge.const {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %h = ge.mul %half, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d = ge.div %x, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = ge.erf %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = ge.add %one, %e : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.mul %a, %h : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// The tanh form (GE's GeluFusionPass; GPT-2's gelu_new): the half taken of x,
// as torch exports it.
// CHECK-LABEL: ge.graph @gelu_tanh
// CHECK-NOT:     ge.tanh
// CHECK-NOT:     ge.pow
// CHECK:         %y = ge.gelu %x {approximate = "tanh"} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    ge.return %y
// REMARK: remark: fused the tanh form of GELU (Pow, Mul, Add, Mul, Tanh, Add, Mul, Mul) into 'ge.gelu' (approximate = "tanh")
ge.graph @gelu_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %three = ge.const {value = dense<3.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %c = ge.const {value = dense<4.471500e-02> : tensor<f32>} : () -> tensor<f32>
  %s = ge.const {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %h = ge.mul %x, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %p = ge.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m0 = ge.mul %p, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a0 = ge.add %x, %m0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m1 = ge.mul %a0, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %t = ge.tanh %m1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a1 = ge.add %t, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %y = ge.mul %h, %a1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// The tanh form with the half taken of the sum (GE's other pattern).
// CHECK-LABEL: ge.graph @gelu_tanh_half_of_sum
// CHECK:         %y = ge.gelu %x {approximate = "tanh"}
// CHECK-NEXT:    ge.return %y
ge.graph @gelu_tanh_half_of_sum(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %three = ge.const {value = dense<3.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %c = ge.const {value = dense<4.471500e-02> : tensor<f32>} : () -> tensor<f32>
  %s = ge.const {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %p = ge.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m0 = ge.mul %c, %p : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a0 = ge.add %m0, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m1 = ge.mul %s, %a0 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = ge.tanh %m1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a1 = ge.add %one, %t : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m2 = ge.mul %a1, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %y = ge.mul %x, %m2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// Another cubic coefficient is another function: nothing is fused.
// CHECK-LABEL: ge.graph @not_gelu_tanh
// CHECK-NOT: ge.gelu
// CHECK: ge.tanh
ge.graph @not_gelu_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %three = ge.const {value = dense<3.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %c = ge.const {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %s = ge.const {value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %one = ge.const {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %h = ge.mul %x, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %p = ge.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m0 = ge.mul %p, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %a0 = ge.add %x, %m0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m1 = ge.mul %a0, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %t = ge.tanh %m1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a1 = ge.add %t, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %y = ge.mul %h, %a1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  ge.return %y : (tensor<2x8xf32>) -> ()
}

// -----

// Average pooling on the cube (GE's AvgPoolV2FusionPass): a window pooling that
// is not global becomes a depthwise convolution with an assist filter. Every
// window averaging over its full size (pads counted, or none): weights of
// 1 / (kh x kw), nothing else.
// CHECK-LABEL: ge.graph @avg_pool_full_windows
// CHECK-NOT:     ge.avg_pool
// CHECK:         %y_assist = ge.const {value = dense<2.500000e-01> : tensor<8x1x2x2xf32>}
// CHECK-NEXT:    %y = ge.conv2d %x, %y_assist {group = 8 : i64, kernel_shape = [2, 2], pads = [0, 0, 0, 0], strides = [2, 2]} : (tensor<1x8x6x6xf32>, tensor<8x1x2x2xf32>) -> tensor<1x8x3x3xf32>
// CHECK-NOT:     ge.mul
// CHECK:         ge.return %y
// REMARK: remark: average pooling 2 x 2 on the cube: a depthwise convolution with an assist filter{{$}}
ge.graph @avg_pool_full_windows(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32> {
  %y = ge.avg_pool %x {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
  ge.return %y : (tensor<1x8x3x3xf32>) -> ()
}

// -----

// count_include_pad = 0 with pads: weights of 1, then a Mul by each output
// position's 1 / count (a corner window of 3 x 3 averages 4 elements, an edge 6,
// the rest 9), broadcast over batch and channels.
// CHECK-LABEL: ge.graph @avg_pool_excluding_pads
// CHECK:         %y_assist = ge.const {value = dense<1.000000e+00> : tensor<4x1x3x3xf32>}
// CHECK-NEXT:    %y_sum = ge.conv2d %x, %y_assist {group = 4 : i64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}
// CHECK-NEXT:    %y_coefficient = ge.const {value = dense<{{\[\[\[\[}}2.500000e-01, 0.166666672, 2.500000e-01], [0.166666672, 0.111111112, 0.166666672], [2.500000e-01, 0.166666672, 2.500000e-01]]]]> : tensor<1x1x3x3xf32>}
// CHECK-NEXT:    %y = ge.mul %y_sum, %y_coefficient : (tensor<2x4x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    ge.return %y
// REMARK: remark: average pooling 3 x 3 on the cube: a depthwise convolution with an assist filter, times each window's 1 / count
ge.graph @avg_pool_excluding_pads(%x: tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32> {
  %y = ge.avg_pool %x {count_include_pad = 0 : i64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  ge.return %y : (tensor<2x4x3x3xf32>) -> ()
}

// -----

// A ceil-mode window that hangs over the end: the convolution pads the overhang
// with zeros and the Mul divides by what the window holds of the map.
// CHECK-LABEL: ge.graph @avg_pool_ceil_mode
// CHECK:         %y_sum = ge.conv2d %x, %y_assist {group = 2 : i64, kernel_shape = [2, 2], pads = [0, 0, 1, 1], strides = [2, 2]} : (tensor<1x2x5x5xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x3x3xf32>
// CHECK:         %y = ge.mul %y_sum, %y_coefficient
ge.graph @avg_pool_ceil_mode(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = ge.avg_pool %x {ceil_mode = 1 : i64, kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  ge.return %y : (tensor<1x2x3x3xf32>) -> ()
}

// -----

// What GE leaves on the vector pooling stays: a global window, a stride over
// AvgPoolV2's 63, a dynamic shape, an integer map.
// CHECK-LABEL: ge.graph @avg_pool_kept
// CHECK-NOT:     ge.conv2d
// CHECK-COUNT-4: ge.avg_pool
// CHECK-NOT:     ge.conv2d
ge.graph @avg_pool_kept(%x: tensor<1x4x7x7xf32>, %big: tensor<1x4x128x128xf32>, %d: tensor<?x4x8x8xf32>, %i: tensor<1x4x8x8xi32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>, tensor<?x4x4x4xf32>, tensor<1x4x4x4xi32>) {
  %g = ge.avg_pool %x {kernel_shape = [7, 7]} : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  %s = ge.avg_pool %big {kernel_shape = [2, 2], strides = [64, 64]} : (tensor<1x4x128x128xf32>) -> tensor<1x4x2x2xf32>
  %n = ge.avg_pool %d {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  %q = ge.avg_pool %i {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x4x8x8xi32>) -> tensor<1x4x4x4xi32>
  ge.return %g, %s, %n, %q : (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>, tensor<?x4x4x4xf32>, tensor<1x4x4x4xi32>) -> ()
}

// -----

// An ONNX QDQ model: ATC converts one only after AMCT's convert_qat_model has
// made each quantized layer an AscendQuant, int8 weights and an AscendDequant;
// here the pairs stay as written, and one warning, at the first DequantizeLinear
// a convolution or matrix product reads, says so.
// CHECK-LABEL: ge.graph @qdq
// CHECK: ge.quantize_linear
// CHECK: ge.dequantize_linear
// RUN: ge-opt %s --fuse-graph --split-input-file -o /dev/null 2>&1 | filecheck %s --check-prefix=QDQ
// QDQ: [[# @LINE + 7]]:9: warning: an ONNX QDQ (quantization-aware) model: its QuantizeLinear and DequantizeLinear run as written, each a kernel, around float layers; ATC converts such a model only after AMCT's convert_qat_model makes each quantized Conv, Gemm or MatMul an AscendQuant, int8 weights and an AscendDequant, which geir does not model
// QDQ-NOT: warning
ge.graph @qdq(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = ge.const {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = ge.const {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %w = ge.const {value = dense<1.000000e+00> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %q = ge.quantize_linear %x, %s, %z : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  %dq = ge.dequantize_linear %q, %s, %z : (tensor<4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8xf32>
  %y = ge.matmul %dq, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %q2 = ge.quantize_linear %y, %s, %z : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  %dq2 = ge.dequantize_linear %q2, %s, %z : (tensor<4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8xf32>
  %y2 = ge.matmul %dq2, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  ge.return %y2 : (tensor<4x8xf32>) -> ()
}

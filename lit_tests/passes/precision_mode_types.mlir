// precision-mode: what keeps its type. ONNX fixes Resize's scales to f32 and
// LayerNormalization's statistics to f32/bf16; TopK runs on AICPU, where the
// precision mode does not choose kernels; a model's cast that would convert a
// type to itself disappears.
// RUN: ge-opt %s --split-input-file --precision-mode='mode=force_fp16' | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --split-input-file --precision-mode='mode=force_fp32' | filecheck %s --check-prefix=FP32
// RUN: ge-opt %s --split-input-file --precision-mode='mode=force_fp32 device=910A' | filecheck %s --check-prefix=FP32-910A
// RUN: ge-opt %s --split-input-file --precision-mode='mode=force_fp16 device=310P3' | filecheck %s --check-prefix=FP16-310P

// FP16-LABEL: ge.graph @edges
// FP16-NEXT:    %x_f16 = ge.cast %x {to = f16} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf16>
// FP16-NEXT:    %scales = ge.const {{.*}} : () -> tensor<4xf32>
// FP16-NEXT:    %none = ge.none
// FP16-NEXT:    %up = ge.resize %x_f16, %none, %scales {mode = "nearest"} : (tensor<1x2x4x4xf16>, none, tensor<4xf32>) -> tensor<1x2x8x8xf16>
// FP16-NEXT:    %up_f32 = ge.cast %up {to = f32}
// FP16-NEXT:    %e = ge.exp %h : (tensor<2x4xf16>) -> tensor<2x4xf16>
// FP16-NEXT:    %e_f32 = ge.cast %e {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// FP16-NEXT:    %sc = ge.const {value = dense<1.000000e+00> : tensor<4xf16>}
// FP16-NEXT:    %ln, %mean, %inv = ge.layer_norm %e, %sc {axis = -1 : i64} : (tensor<2x4xf16>, tensor<4xf16>) -> (tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
// FP16-NEXT:    %ln_f32 = ge.cast %ln {to = f32}
// FP16-NEXT:    %v, %i = ge.top_k %e_f32 {k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
// FP16-NEXT:    ge.return %up_f32, %e_f32, %ln_f32, %mean, %v
ge.graph @edges(%x: tensor<1x2x4x4xf32>, %h: tensor<2x4xf16>) -> (tensor<1x2x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x2xf32>) {
  %scales = ge.const {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %none = ge.none : () -> none
  %up = ge.resize %x, %none, %scales {mode = "nearest"} : (tensor<1x2x4x4xf32>, none, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  %c = ge.cast %h {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %e = ge.exp %c : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %sc = ge.const {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %ln, %mean, %inv = ge.layer_norm %e, %sc {axis = -1} : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %v, %i = ge.top_k %e {k = 2} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  ge.return %up, %e, %ln, %mean, %v : (tensor<1x2x8x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> ()
}

// -----

// force_fp32 raises an f16 graph to f32; on 910A, whose cube has no f32, the
// matrix product keeps f16 (ATC's fp16-in/fp16-out fallback).
// FP32-LABEL: ge.graph @half
// FP32-NEXT:    %x_f32 = ge.cast %x {to = f32} : (tensor<2x8xf16>) -> tensor<2x8xf32>
// FP32-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf32>}
// FP32-NEXT:    %m = ge.matmul %x_f32, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// FP32-NEXT:    %r = ge.relu %m : (tensor<2x4xf32>) -> tensor<2x4xf32>
// FP32-NEXT:    %r_f16 = ge.cast %r {to = f16} : (tensor<2x4xf32>) -> tensor<2x4xf16>
// FP32-NEXT:    ge.return %r_f16 : (tensor<2x4xf16>) -> ()
// FP32-910A-LABEL: ge.graph @half
// FP32-910A-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf16>}
// FP32-910A-NEXT:    %m = ge.matmul %x, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
// FP32-910A-NEXT:    %m_f32 = ge.cast %m {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// FP32-910A-NEXT:    %r = ge.relu %m_f32 : (tensor<2x4xf32>) -> tensor<2x4xf32>
// FP32-910A-NEXT:    %r_f16 = ge.cast %r {to = f16}
// FP32-910A-NEXT:    ge.return %r_f16
// In force_fp16 an f16 graph stays as it is.
// FP16-LABEL: ge.graph @half
// FP16-NOT:     ge.cast
// FP16:         ge.return %r : (tensor<2x4xf16>) -> ()
ge.graph @half(%x: tensor<2x8xf16>) -> tensor<2x4xf16> {
  %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf16>} : () -> tensor<8x4xf16>
  %m = ge.matmul %x, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  %r = ge.relu %m : (tensor<2x4xf16>) -> tensor<2x4xf16>
  ge.return %r : (tensor<2x4xf16>) -> ()
}

// -----

// The device's chip decides which ops run on AI Core, where the mode chooses
// kernels: the 910B's Cast converts int64 to f16, so the mask's cast computes in
// f16; the 310P's converts int64 to f32 on AICPU only, so it keeps f32 and its
// result is cast to f16 for the multiply.
// FP16-LABEL: ge.graph @int64_mask
// FP16:         %c = ge.cast %m {to = f16} : (tensor<2x4xi64>) -> tensor<2x4xf16>
// FP16-NEXT:    %y = ge.mul %c, %x_f16
// FP16-310P-LABEL: ge.graph @int64_mask
// FP16-310P:         %c = ge.cast %m {to = f32} : (tensor<2x4xi64>) -> tensor<2x4xf32>
// FP16-310P-NEXT:    %c_f16 = ge.cast %c {to = f16} : (tensor<2x4xf32>) -> tensor<2x4xf16>
// FP16-310P-NEXT:    %y = ge.mul %c_f16, %x_f16
ge.graph @int64_mask(%m: tensor<2x4xi64>, %x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = ge.cast %m {to = f32} : (tensor<2x4xi64>) -> tensor<2x4xf32>
  %y = ge.mul %c, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %y : (tensor<2x4xf32>) -> ()
}

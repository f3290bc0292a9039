// precision-mode: each of ATC's --precision_mode values on one graph, with
// ge.cast where types change and the graph's signature as written.
// RUN: ge-opt %s --precision-mode='mode=force_fp16' | filecheck %s --check-prefix=FP16
// The default is the device profile's default_precision_mode: force_fp16 on
// the Ascend devices, must_keep_origin_dtype on the GPU-class V100.
// RUN: ge-opt %s --precision-mode | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --pass-pipeline='precision-mode{device=310P3}' | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --precision-mode='device=V100' | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --precision-mode='mode=must_keep_origin_dtype' | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --precision-mode='mode=allow_fp32_to_fp16' | filecheck %s --check-prefix=CUBE
// RUN: ge-opt %s --precision-mode='mode=allow_mix_precision' | filecheck %s --check-prefix=MIX
// An f32 graph has nothing to raise to f32.
// RUN: ge-opt %s --precision-mode='mode=force_fp32' | filecheck %s --check-prefix=KEEP

// force_fp16: one cast after the input, the weights converted, every op in f16,
// one cast back before the output; the integer path keeps its types.
// FP16-LABEL: ge.graph @main(%x: tensor<2x8xf32>, %n: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2xi64>)
// FP16-NEXT:    %x_f16 = ge.cast %x {to = f16} : (tensor<2x8xf32>) -> tensor<2x8xf16>
// FP16-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf16>} : () -> tensor<8x4xf16>
// FP16-NEXT:    %m = ge.matmul %x_f16, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
// FP16-NEXT:    %r = ge.relu %m : (tensor<2x4xf16>) -> tensor<2x4xf16>
// FP16-NEXT:    %s = ge.softmax %r : (tensor<2x4xf16>) -> tensor<2x4xf16>
// FP16-NEXT:    %y = ge.sigmoid %s : (tensor<2x4xf16>) -> tensor<2x4xf16>
// FP16-NEXT:    %y_f32 = ge.cast %y {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// FP16-NEXT:    %k = ge.add %n, %n : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
// FP16-NEXT:    ge.return %y_f32, %k : (tensor<2x4xf32>, tensor<2xi64>) -> ()

// must_keep_origin_dtype: the graph as written.
// KEEP-LABEL: ge.graph @main
// KEEP-NOT:     ge.cast
// KEEP:         %m = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
// KEEP-NOT:     f16

// allow_fp32_to_fp16: the cube op in f16, the vector ops keep f32.
// CUBE-LABEL: ge.graph @main
// CUBE-NEXT:    %x_f16 = ge.cast %x {to = f16}
// CUBE-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf16>}
// CUBE-NEXT:    %m = ge.matmul %x_f16, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
// CUBE-NEXT:    %m_f32 = ge.cast %m {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// CUBE-NEXT:    %r = ge.relu %m_f32 : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CUBE-NEXT:    %s = ge.softmax %r : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CUBE-NEXT:    %y = ge.sigmoid %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CUBE-NEXT:    %k = ge.add %n, %n
// CUBE-NEXT:    ge.return %y, %k

// allow_mix_precision: matmul is on the white list, relu (grey) follows it in
// f16, softmax is on the black list and keeps f32, sigmoid (grey) follows it.
// MIX-LABEL: ge.graph @main
// MIX-NEXT:    %x_f16 = ge.cast %x {to = f16}
// MIX-NEXT:    %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf16>}
// MIX-NEXT:    %m = ge.matmul %x_f16, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
// MIX-NEXT:    %r = ge.relu %m : (tensor<2x4xf16>) -> tensor<2x4xf16>
// MIX-NEXT:    %r_f32 = ge.cast %r {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
// MIX-NEXT:    %s = ge.softmax %r_f32 : (tensor<2x4xf32>) -> tensor<2x4xf32>
// MIX-NEXT:    %y = ge.sigmoid %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
// MIX-NEXT:    %k = ge.add %n, %n
// MIX-NEXT:    ge.return %y, %k
ge.graph @main(%x: tensor<2x8xf32>, %n: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2xi64>) {
  %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %m = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = ge.relu %m : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = ge.softmax %r : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = ge.sigmoid %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %k = ge.add %n, %n : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  ge.return %y, %k : (tensor<2x4xf32>, tensor<2xi64>) -> ()
}

// precision-mode converts an f32 constant beyond f16's range the way GE's
// host conversion does: to the largest finite f16 of its sign, not infinity,
// so an attention mask built as (1 - m) * finfo(f32).min stays finite where
// m is 1 (0 * -65504 = 0, where 0 * -inf would be NaN).
// RUN: ge-opt %s --precision-mode='mode=force_fp16' | filecheck %s
// RUN: ge-opt %s --precision-mode='mode=force_fp16' | ge-run - --interpret | filecheck %s --check-prefix=RAN

// CHECK-LABEL: ge.graph @main
// CHECK:         ge.const {value = dense<-6.550400e+04> : tensor<2xf16>}
// CHECK:         ge.const {value = dense<[6.550400e+04, 1.000000e+00]> : tensor<2xf16>}
// RAN: output_0: float32[2] mean=-32752
// RAN: output_1: float32[2] mean=0.5
ge.graph @main() -> (tensor<2xf32>, tensor<2xf32>) {
  %m = ge.const {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %one = ge.const {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %min = ge.const {value = dense<-3.40282347e+38> : tensor<2xf32>} : () -> tensor<2xf32>
  %big = ge.const {value = dense<[1.0e+30, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %d = ge.sub %one, %m : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mask = ge.mul %d, %min : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = ge.mul %d, %big : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  ge.return %mask, %b : (tensor<2xf32>, tensor<2xf32>) -> ()
}

// fuse-graph: the erf form of GELU that exporters write op by op becomes the
// one ge.gelu CANN runs; the decomposed ops go. A remark per fusion
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

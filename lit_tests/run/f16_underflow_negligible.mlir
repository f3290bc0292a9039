// A masked softmax (attention's -100 on the masked scores, as Swin's shifted
// windows add it): exp(-100), about 1e-44, flushes to zero in f16, but beside
// the row's other probabilities it is below what f16 rounds off them, and the
// device's zero there changes no sum. No underflow warning; the same row
// scaled below f16's floor as a whole is one (f16_underflow.mlir).
// RUN: ge-run %s 2>&1 | filecheck %s
// RUN: ge-run %s --interpret --precision-mode force_fp16 2>&1 | filecheck %s
// RUN: ge-run %s --report json 2>/dev/null | filecheck %s --check-prefix=JSON
// CHECK-NOT: warning
// CHECK: y: float32[2, 4]
// JSON-NOT: "f16_underflow":
module {
  ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
    %mask = ge.const {value = dense<[[0.000000e+00, 0.000000e+00, -1.000000e+02, -1.000000e+02]]> : tensor<1x4xf32>} : () -> tensor<1x4xf32> loc("mask")
    %s = ge.add %x, %mask : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32> loc("masked")
    %y = ge.softmax %s : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("attention")
    ge.return %y : (tensor<2x4xf32>) -> ()
  }
}

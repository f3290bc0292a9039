// Locations are kept and printed with --mlir-print-debuginfo; an op without an
// explicit loc gets its position in the file.
// RUN: ge-opt %s --mlir-print-debuginfo | filecheck %s
// RUN: ge-opt %s --mlir-print-debuginfo | ge-opt --mlir-print-debuginfo | filecheck %s
// RUN: ge-opt %s | filecheck %s --check-prefix=NODEBUG

#conv_loc = loc("resnet/conv1")
ge.graph @g(%a: tensor<2xf32>) {
  // CHECK: ge.relu %a : (tensor<2xf32>) -> tensor<2xf32> loc("onnx_relu_7")
  %0 = ge.relu %a : (tensor<2xf32>) -> tensor<2xf32> loc("onnx_relu_7")
  // CHECK: ge.sigmoid %0 : (tensor<2xf32>) -> tensor<2xf32> loc("model.onnx":3:14)
  %1 = ge.sigmoid %0 : (tensor<2xf32>) -> tensor<2xf32> loc("model.onnx":3:14)
  // CHECK: ge.tanh %1 : (tensor<2xf32>) -> tensor<2xf32> loc("resnet/conv1")
  %2 = ge.tanh %1 : (tensor<2xf32>) -> tensor<2xf32> loc(#conv_loc)
  // CHECK: ge.neg %2 : (tensor<2xf32>) -> tensor<2xf32> loc(fused["a", "b"("x.py":1:2)])
  %3 = ge.neg %2 : (tensor<2xf32>) -> tensor<2xf32> loc(fused["a", "b"("x.py":1:2)])
  // CHECK: ge.abs %3 : (tensor<2xf32>) -> tensor<2xf32> loc({{.*}}locations.mlir":[[# @LINE + 1]]:8)
  %4 = ge.abs %3 : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}
// NODEBUG-NOT: loc(

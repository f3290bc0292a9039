// The custom form is a fixed point of print(parse(.)), and names survive.
// RUN: ge-opt %s > %t.1 && ge-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: ge-opt %s | filecheck %s
// The generic form is a fixed point too, and describes the same module.
// RUN: ge-opt %s --mlir-print-op-generic > %t.g1 && ge-opt %t.g1 --mlir-print-op-generic > %t.g2 && diff %t.g1 %t.g2
// RUN: ge-opt %t.1 --mlir-print-op-generic | diff %t.g1 -

// CHECK-LABEL: ge.graph @main(%x: tensor<1x4xf32> {ge.name = "x"}, %k: tensor<i64>) -> (tensor<1x2xf32>, tensor<1x4xf32>)
ge.graph @main(%x: tensor<1x4xf32> {ge.name = "x"}, %k: tensor<i64>) -> (tensor<1x2xf32>, tensor<1x4xf32>) {
  // CHECK-NEXT: %relu = ge.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %relu = ge.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  // CHECK-NEXT: %halves:2 = ge.split %relu {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  %halves:2 = ge.split %relu {axis = 1, num_outputs = 2} : (tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  // CHECK-NEXT: %sum = ge.add %halves#0, %halves#1 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %sum = ge.add %halves#0, %halves#1 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  // CHECK: %values, %indices = ge.top_k %x, %k2 {axis = -1 : i64} : (tensor<1x4xf32>, tensor<1xi64>) -> (tensor<1x?xf32>, tensor<1x?xi64>)
  %one = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %k2 = ge.reshape %k, %one : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %values, %indices = ge.top_k %x, %k2 {axis = -1} : (tensor<1x4xf32>, tensor<1xi64>) -> (tensor<1x?xf32>, tensor<1x?xi64>)
  // CHECK: ge.return %sum, %relu : (tensor<1x2xf32>, tensor<1x4xf32>) -> ()
  ge.return %sum, %relu : (tensor<1x2xf32>, tensor<1x4xf32>) -> ()
}

// specialize-shapes and a branch that is invalid for the bound shapes (a model
// with one branch per input layout): a condition that folds after binding
// replaces the If by its taken branch before the other is inferred; a condition
// known only at run time leaves an invalid branch with its dynamic types (read
// through a ge.identity to them), and ge-run reports the error only if the host
// takes that branch.
// RUN: ge-opt %s --split-input-file --pass-pipeline='specialize-shapes{shapes="x=2x4x1"}' | filecheck %s

// The condition is dim 2 == 1: true once x is 2x4x1, so the then branch is the graph.
// CHECK-LABEL: ge.graph @main
// CHECK-NOT:     ge.if
// CHECK-NOT:     ge.shape
// CHECK:         %t = ge.squeeze %x, %ax2 : (tensor<2x4x1xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK-NEXT:    %y = ge.sigmoid %t : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT:     ge.squeeze
ge.graph @main(%x: tensor<?x?x?xf32> {ge.name = "x"}) -> (tensor<?x?xf32> {ge.name = "y"}) {
  %ax1 = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax2 = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.shape %x : (tensor<?x?x?xf32>) -> tensor<3xi64>
  %d = ge.gather %s, %ax2 {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %c = ge.equal %d, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  %r = ge.if %c ({
    %t = ge.squeeze %x, %ax2 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %t : (tensor<?x?xf32>) -> ()
  }, {
    %e = ge.squeeze %x, %ax1 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %e : (tensor<?x?xf32>) -> ()
  }) : (tensor<1xi1>) -> tensor<?x?xf32>
  %y = ge.sigmoid %r : (tensor<?x?xf32>) -> tensor<?x?xf32>
  ge.return %y : (tensor<?x?xf32>) -> ()
}

// -----

// The condition is an input: the then branch is specialised, the else branch
// (squeezing the dim of size 4) keeps its types.
// CHECK-LABEL: ge.graph @main
// CHECK:         ge.if %c
// CHECK-NEXT:      %t = ge.squeeze %x, %ax2 : (tensor<2x4x1xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:           %[[WIDE:.+]] = ge.identity %x : (tensor<2x4x1xf32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:      %e = ge.squeeze %[[WIDE]], %ax1 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
ge.graph @main(%c: tensor<i1> {ge.name = "c"}, %x: tensor<?x?x?xf32> {ge.name = "x"}) -> (tensor<?x?xf32> {ge.name = "y"}) {
  %ax1 = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax2 = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = ge.if %c ({
    %t = ge.squeeze %x, %ax2 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %t : (tensor<?x?xf32>) -> ()
  }, {
    %e = ge.squeeze %x, %ax1 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %e : (tensor<?x?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?x?xf32>
  %y = ge.sigmoid %r : (tensor<?x?xf32>) -> tensor<?x?xf32>
  ge.return %y : (tensor<?x?xf32>) -> ()
}

// The generic form is MLIR's: quoted names, %N numbering, sorted attributes,
// %0:2 / %0#1, ^bb0 entry labels, attributes after regions.
// RUN: ge-opt %s --mlir-print-op-generic | filecheck %s
// RUN: ge-opt %s --print-op-generic | filecheck %s

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "ge.graph"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<2x4xf32>):
// CHECK-NEXT:     %0 = "ge.relu"(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:     %1:2 = "ge.split"(%0) {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT:     %2 = "ge.mul"(%1#1, %1#0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:     "ge.return"(%2) : (tensor<2x2xf32>) -> ()
// CHECK-NEXT:   }) {arg_attrs = [{ge.name = "in"}], function_type = (tensor<2x4xf32>) -> tensor<2x2xf32>, sym_name = "g"} : () -> ()
// CHECK-NEXT: }) : () -> ()
ge.graph @g(%a: tensor<2x4xf32> {ge.name = "in"}) -> tensor<2x2xf32> {
  %r = ge.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s:2 = ge.split %r {num_outputs = 2, axis = 1} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %m = ge.mul %s#1, %s#0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  ge.return %m : (tensor<2x2xf32>) -> ()
}

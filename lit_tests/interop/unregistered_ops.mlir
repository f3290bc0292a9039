// An op no dialect defines prints in MLIR's generic form, in ge-opt's default
// output too, so upstream MLIR reads it and prints it back byte for byte.
// REQUIRES: mlir-peer
// RUN: ge-opt --allow-unregistered-dialect %s > %t
// RUN: iree-opt --allow-unregistered-dialect %t | diff %t -
// RUN: filecheck %s < %t

// CHECK: %0 = "t.source"() <{mode = "fast"}> {n = 3 : i64} : () -> tensor<4xf32>
%0 = "t.source"() <{mode = "fast"}> {n = 3} : () -> tensor<4xf32>
// CHECK: "t.region"(%0) ({
"t.region"(%0) ({
^bb0(%arg0: tensor<4xf32>):
  "t.yield"(%arg0) : (tensor<4xf32>) -> ()
}) : (tensor<4xf32>) -> ()

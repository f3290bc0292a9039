// Upstream MLIR reads the generic form of a lowered task list (nested arrays,
// unit refs, dense_resource weights inside an array) and prints it back byte for byte.
// REQUIRES: mlir-peer
// RUN: ge-opt %S/constants_and_bindings.mlir --lower-to-tasks --mlir-print-op-generic > %t
// RUN: iree-opt --allow-unregistered-dialect --mlir-print-op-generic %t | diff %t -
// RUN: ge-opt %S/decisions.mlir --lower-to-tasks --mlir-print-op-generic > %t.2
// RUN: iree-opt --allow-unregistered-dialect --mlir-print-op-generic %t.2 | diff %t.2 -

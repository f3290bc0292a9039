// A size bound far beyond any memory is a diagnostic, never numpy's MemoryError:
// specialising folds the shape arithmetic, but not an Expand whose result would
// hold 10^12 elements (counted before its kernel runs), and the plan then
// exceeds the device's memory.
// RUN: not ge-run %s --input-shape batch=99999999999 --timing-only 2>&1 | filecheck %s
// CHECK: error: reuse-memory: the plan needs {{[0-9]+}} B (arena {{[0-9]+}} B, zero-copy I/O {{[0-9]+}} B, weights {{[0-9]+}} B), more than the 68719476736 B of device 910B2; the biggest live set
// CHECK-NOT: internal error
// A gear module asked for a size no gear has says so before drawing inputs of
// that size, alone or beside another model.
// RUN: ge-translate --import-onnx %onnx/shape_chain.onnx --dynamic-batch-size=1,4 --input-shape seq=2 -o %t.gears.mlir
// RUN: not ge-run %t.gears.mlir --input-shape batch=99999999999 2>&1 | filecheck %s --check-prefix=NOGEAR
// RUN: not ge-run %t.gears.mlir %s --input-shape batch=99999999999 2>&1 | filecheck %s --check-prefix=NOGEAR
// NOGEAR: --input-shape: error: no gear fits the inputs (batch=99999999999); the gears are: batch=1; batch=4
// NOGEAR-NOT: internal error
// A gear too large for this machine's memory is said before its inputs are
// padded to it; timed only, nothing is padded and the plan meets the device's
// memory.
// RUN: ge-translate --import-onnx %onnx/shape_chain.onnx --dynamic-batch-size=99999999999 --input-shape seq=2 -o %t.huge.mlir
// RUN: not ge-run %t.huge.mlir --input-shape batch=5 2>&1 | filecheck %s --check-prefix=PADDED
// PADDED: --input-shape: error: gear batch=99999999999 takes inputs of {{[0-9]+}} B, more than this machine's {{[0-9]+}} B: run it --timing-only
// RUN: not ge-run %t.huge.mlir --input-shape batch=5 --timing-only 2>&1 | filecheck %s --check-prefix=TIMED
// TIMED: error: reuse-memory: the plan needs {{[0-9]+}} B
// TIMED-NOT: internal error
ge.graph @main(%x: tensor<?x16xf32> {ge.name = "x", ge.symbols = ["batch", ""]}) -> (tensor<?x16xf32> {ge.name = "y"}) {
  %s = ge.shape %x : (tensor<?x16xf32>) -> tensor<2xi64>
  %one = ge.const {value = dense<1.000000e+00> : tensor<1x16xf32>} : () -> tensor<1x16xf32>
  %e = ge.expand %one, %s : (tensor<1x16xf32>, tensor<2xi64>) -> tensor<?x16xf32>
  %y = ge.add %x, %e : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  ge.return %y : (tensor<?x16xf32>) -> ()
}

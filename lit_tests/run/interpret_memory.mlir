// A result larger than this machine's memory is said before the kernel runs, at
// the op, not met as numpy's MemoryError (or the kernel killed filling it).
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s
// CHECK: interpret_memory.mlir:8:10: error: 'ge.constant_of_shape' failed: its results need 4398046511104 B, more than this machine's {{[0-9]+}} B
// CHECK-NOT: Traceback
ge.graph @main(%x: tensor<1xf32>) -> tensor<1xf32> {
  %shape = ge.const {value = dense<1099511627776> : tensor<1xi64>} : () -> tensor<1xi64>
  %big = ge.constant_of_shape %shape : (tensor<1xi64>) -> tensor<1099511627776xf32>
  %r = ge.relu %x : (tensor<1xf32>) -> tensor<1xf32>
  ge.return %r : (tensor<1xf32>) -> ()
}

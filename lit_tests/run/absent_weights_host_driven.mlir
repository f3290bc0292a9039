// A graph without its weights whose sizes depend on values runs host-driven,
// and the host decides what to launch from the numerics: it has no timing-only
// run, so the diagnostic names the weight and does not suggest one.
// RUN: not ge-run %s 2>&1 | filecheck %s
// RUN: not ge-run %s --timing-only 2>&1 | filecheck %s --check-prefix=TIMING
// CHECK: absent_weights_host_driven.mlir:[[# @LINE + 9]]:8: error: a host-driven run (control flow or data-dependent sizes) needs the values of weight 'w', which the model does not hold (it was imported without its weights); the host decides what to launch from the values, so it has no timing-only run: import the model with its weights file beside it
// CHECK-NOT: Traceback
// TIMING: error: --timing-only cannot run control flow or data-dependent sizes
// TIMING-NOT: Traceback
// RUN: rm -f %t.npz
// RUN: not ge-run %s -o %t.npz 2>&1 | filecheck %s --check-prefix=CHECK
// RUN: not test -e %t.npz

ge.graph @main(%x: tensor<4x4xf32>) -> (tensor<2x?xi64>) {
  %w = ge.weights {value = dense_resource<w> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %p = ge.mul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = ge.nonzero %p : (tensor<4x4xf32>) -> tensor<2x?xi64>
  ge.return %y : (tensor<2x?xi64>) -> ()
}

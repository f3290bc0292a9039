// A loop whose scan outputs, stacked over its trip count, cannot fit where the
// run keeps them is said at the loop before its trips run, not after memory
// runs out: the interpreter keeps them in this machine's memory, a host-driven
// run in the device's (or this machine's, whichever is less).
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s --check-prefix=INTERP
// INTERP: loop_stack_too_large.mlir:17:12: error: 'ge.loop' would stack its scan outputs over 1000000000000 trips, 1.6e+13 bytes, more than this machine's memory
// INTERP-NOT: internal error
// RUN: not ge-run %s --device 910B2 --precision-mode must_keep_origin_dtype 2>&1 | filecheck %s --check-prefix=HOST
// HOST: loop_stack_too_large.mlir:17:12: error: 'ge.loop' would stack its scan outputs over 1000000000000 trips, 1.6e+13 bytes, more than {{device 910B2's|this machine's}} memory
// HOST-NOT: internal error
// The trips that fit run: three of them.
// RUN: sed 's/1000000000000/3/' %s > %t.mlir && ge-run %t.mlir --interpret | filecheck %s --check-prefix=FITS
// FITS: float32[3, 4]
ge.graph @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %m = ge.const {value = dense<1000000000000> : tensor<i64>} : () -> tensor<i64>
  %c = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %y, %s = ge.loop %m, %c, %x ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    %n = ge.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ge.yield %ci, %n, %n : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>)
  ge.return %y, %s : (tensor<4xf32>, tensor<?x4xf32>) -> ()
}

// canonicalize folds every pure op whose operands are all constants, whatever
// its size, as GE's constant folding does: a model that builds its weights
// with ConstantOfShape (the onnx package's light_* models) gets weights, not
// kernels that fill them on every run. fold-limit=N folds only results of at
// most N elements; GE's _do_not_constant_folding attribute keeps an op.
// RUN: ge-opt %s --canonicalize --split-input-file | filecheck %s
// RUN: ge-opt %s --pass-pipeline='builtin.module(canonicalize{fold-limit=64})' --split-input-file \
// RUN:   | filecheck %s --check-prefix=LIMIT

// A ConstantOfShape of a constant shape is a splat weight: one value, never
// expanded (100 M elements here).
// CHECK-LABEL: ge.graph @weights_from_constant_of_shape
// CHECK-NEXT:    %w = ge.const {value = dense<2.000000e-02> : tensor<4096x25088xf32>}
// CHECK-NEXT:    %y = ge.matmul %x, %w
// LIMIT-LABEL: ge.graph @weights_from_constant_of_shape
// LIMIT:         ge.constant_of_shape
ge.graph @weights_from_constant_of_shape(%x: tensor<1x4096xf32>) -> tensor<1x25088xf32> {
  %s = ge.const {value = dense<[4096, 25088]> : tensor<2xi64>} : () -> tensor<2xi64>
  %w = ge.constant_of_shape %s {value = dense<2.000000e-02> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<4096x25088xf32>
  %y = ge.matmul %x, %w : (tensor<1x4096xf32>, tensor<4096x25088xf32>) -> tensor<1x25088xf32>
  ge.return %y : (tensor<1x25088xf32>) -> ()
}

// -----

// A position table computed from constants (Range, then Expand to 49 x 49,
// as an exported Swin or T5 computes its relative positions) is a constant:
// no AICPU kernel builds it on every run.
// CHECK-LABEL: ge.graph @position_table
// CHECK-NEXT:    %t = ge.const {value = dense_resource<{{folded.*}}> : tensor<49x49xi64>}
// CHECK-NEXT:    ge.return %t
// LIMIT-LABEL: ge.graph @position_table
// LIMIT:         %r = ge.const
// LIMIT:         %t = ge.expand %r
ge.graph @position_table() -> tensor<49x49xi64> {
  %start = ge.const {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %limit = ge.const {value = dense<49> : tensor<i64>} : () -> tensor<i64>
  %delta = ge.const {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = ge.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<49xi64>
  %s = ge.const {value = dense<[49, 49]> : tensor<2xi64>} : () -> tensor<2xi64>
  %t = ge.expand %r, %s : (tensor<49xi64>, tensor<2xi64>) -> tensor<49x49xi64>
  ge.return %t : (tensor<49x49xi64>) -> ()
}

// -----

// GE's _do_not_constant_folding keeps an op a kernel.
// CHECK-LABEL: ge.graph @kept
// CHECK:         ge.constant_of_shape %s {_do_not_constant_folding
// LIMIT-LABEL: ge.graph @kept
// LIMIT:         ge.constant_of_shape %s {_do_not_constant_folding
ge.graph @kept() -> tensor<4x4xf32> {
  %s = ge.const {value = dense<[4, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %w = ge.constant_of_shape %s {_do_not_constant_folding, value = dense<1.000000e+00> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<4x4xf32>
  ge.return %w : (tensor<4x4xf32>) -> ()
}

// -----

// In a graph without its weights (the table's bytes are absent) a gather of
// constants still folds, as GE would fold it: a constant without bytes, and no
// kernel. What needs its values says so, as for any absent weight.
// CHECK-LABEL: ge.graph @absent_weights
// CHECK-NEXT:    %g = ge.const {value = dense_resource<table_folded> : tensor<4x8xf32>}
// CHECK-NEXT:    ge.return %g
// LIMIT-LABEL: ge.graph @absent_weights
// LIMIT-NEXT:    %g = ge.const {value = dense_resource<table_folded> : tensor<4x8xf32>}
ge.graph @absent_weights() -> tensor<4x8xf32> {
  %t = ge.const {value = dense_resource<table> : tensor<512x8xf32>} : () -> tensor<512x8xf32>
  %i = ge.const {value = dense<[0, 1, 2, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
  %g = ge.gather %t, %i {axis = 0 : i64} : (tensor<512x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  ge.return %g : (tensor<4x8xf32>) -> ()
}

// -----

// A weight standardised by a training-mode batch norm over constants (timm's
// ScaledStdConv, NF-ResNet's convolutions) folds: its running statistics are
// read by nothing, so the one result read becomes a constant and no kernel
// standardises the weight on every run. fold-limit=64 leaves its 192 elements.
// CHECK-LABEL: ge.graph @standardised_weight
// CHECK-NEXT:    %w = ge.const {value = dense_resource<{{folded.*}}> : tensor<1x8x24xf32>}
// CHECK-NEXT:    ge.return %w
// LIMIT-LABEL: ge.graph @standardised_weight
// LIMIT:         ge.batch_norm
ge.graph @standardised_weight() -> tensor<1x8x24xf32> {
  %v = ge.const {value = dense<[[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0]]]> : tensor<1x8x24xf32>} : () -> tensor<1x8x24xf32>
  %g = ge.const {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = ge.const {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %m = ge.const {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %s = ge.const {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %w, %rm, %rv = ge.batch_norm %v, %g, %b, %m, %s {epsilon = 1.0e-05 : f32, momentum = 1.0 : f32, training_mode = 1 : i64} : (tensor<1x8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x24xf32>, tensor<8xf32>, tensor<8xf32>)
  ge.return %w : (tensor<1x8x24xf32>) -> ()
}

// -----

// Its running statistics read, the batch norm stays: folding gives one result.
// CHECK-LABEL: ge.graph @statistics_read
// CHECK:         ge.batch_norm
// LIMIT-LABEL: ge.graph @statistics_read
// LIMIT:         ge.batch_norm
ge.graph @statistics_read(%x: tensor<1x8x24xf32>) -> (tensor<1x8x24xf32>, tensor<8xf32>) {
  %g = ge.const {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = ge.const {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %m = ge.const {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %s = ge.const {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %v = ge.const {value = dense<2.0> : tensor<1x8x24xf32>} : () -> tensor<1x8x24xf32>
  %w, %rm, %rv = ge.batch_norm %v, %g, %b, %m, %s {epsilon = 1.0e-05 : f32, momentum = 1.0 : f32, training_mode = 1 : i64} : (tensor<1x8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x24xf32>, tensor<8xf32>, tensor<8xf32>)
  ge.return %w, %rm : (tensor<1x8x24xf32>, tensor<8xf32>) -> ()
}

// fuse-graph: LayerNorm spelled op by op, as PyTorch exports nn.LayerNorm before
// opset 17, becomes the one ge.layer_norm CANN runs (GE's LayerNormONNXFusionPass):
// ReduceMean, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, and the Mul by gamma
// and Add of beta when constants of the normalized dims' shape follow. The means
// keep their dims and reduce trailing axes; epsilon is a scalar of at most 0.1;
// nothing else reads an intermediate. A remark per fusion (-Rpass=fuse-graph).
// RUN: ge-opt %s --fuse-graph --split-input-file | filecheck %s
// RUN: ge-opt %s --fuse-graph --split-input-file -Rpass=fuse-graph -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// CHECK-LABEL: ge.graph @affine
// CHECK-NOT:     ge.reduce_mean
// CHECK-NOT:     ge.sqrt
// CHECK:         %y = ge.layer_norm %x, %gamma, %beta {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    ge.return %y
// REMARK: [[# @LINE + 14]]:8: remark: fused LayerNorm from axis 2 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) into 'ge.layer_norm'
ge.graph @affine(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %gamma = ge.weights {value = dense_resource<gamma> : tensor<8xf32>} : () -> tensor<8xf32>
  %beta = ge.weights {value = dense_resource<beta> : tensor<8xf32>} : () -> tensor<8xf32>
  %mean = ge.reduce_mean %x {axes = [-1]} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %square = ge.pow %centred, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %variance = ge.reduce_mean %square {axes = [-1]} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %std = ge.sqrt %shifted : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %normed = ge.div %centred, %std : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %scaled = ge.mul %gamma, %normed : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y = ge.add %scaled, %beta : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  ge.return %y : (tensor<2x4x8xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      gamma: "0x040000000000C03F0000C03F0000C03F0000C03F0000C03F0000C03F0000C03F0000C03F",
      beta: "0x040000000000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E"
    }
  }
#-}

// -----

// Without gamma and beta (the epsilon on the left, opset 18's axes as an operand,
// a Cast before the square as older PyTorch writes it): the scale is ones, as GE
// fuses the Mul by 1 and Add of 0 it inserts. Two trailing axes normalize from axis 1.
// CHECK-LABEL: ge.graph @plain
// CHECK:         %normed_gamma = ge.const {value = dense<1.000000e+00> : tensor<4x8xf16>} : () -> tensor<4x8xf16>
// CHECK-NEXT:    %normed = ge.layer_norm %x, %normed_gamma {axis = 1 : i64, epsilon = 1.00135803E-5 : f32} : (tensor<2x4x8xf16>, tensor<4x8xf16>) -> tensor<2x4x8xf16>
// CHECK-NEXT:    ge.return %normed
// REMARK: remark: fused LayerNorm from axis 1 (ReduceMean, Sub, Cast, Pow, ReduceMean, Add, Sqrt, Div) into 'ge.layer_norm'
ge.graph @plain(%x: tensor<2x4x8xf16>) -> tensor<2x4x8xf16> {
  %axes = ge.const {value = dense<[-2, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %two = ge.const {value = dense<2.000000e+00> : tensor<1xf16>} : () -> tensor<1xf16>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f16>} : () -> tensor<f16>
  %mean = ge.reduce_mean %x, %axes : (tensor<2x4x8xf16>, tensor<2xi64>) -> tensor<2x1x1xf16>
  %centred = ge.sub %x, %mean : (tensor<2x4x8xf16>, tensor<2x1x1xf16>) -> tensor<2x4x8xf16>
  %cast = ge.cast %centred {to = f16} : (tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  %square = ge.pow %cast, %two : (tensor<2x4x8xf16>, tensor<1xf16>) -> tensor<2x4x8xf16>
  %variance = ge.reduce_mean %square, %axes : (tensor<2x4x8xf16>, tensor<2xi64>) -> tensor<2x1x1xf16>
  %shifted = ge.add %eps, %variance : (tensor<f16>, tensor<2x1x1xf16>) -> tensor<2x1x1xf16>
  %std = ge.sqrt %shifted : (tensor<2x1x1xf16>) -> tensor<2x1x1xf16>
  %normed = ge.div %centred, %std : (tensor<2x4x8xf16>, tensor<2x1x1xf16>) -> tensor<2x4x8xf16>
  ge.return %normed : (tensor<2x4x8xf16>) -> ()
}

// -----

// A Mul by a computed gamma is not LayerNorm's scale: the normalization fuses, the
// Mul and Add stay after it.
// CHECK-LABEL: ge.graph @computed_gamma
// CHECK:         %normed = ge.layer_norm %x, %normed_gamma
// CHECK-NEXT:    %scaled = ge.mul %normed, %g
// CHECK-NEXT:    %y = ge.add %scaled, %beta
// REMARK: remark: fused LayerNorm from axis 1 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div) into 'ge.layer_norm'
ge.graph @computed_gamma(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %beta = ge.const {value = dense<2.500000e-01> : tensor<8xf32>} : () -> tensor<8xf32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %square = ge.pow %centred, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %scaled = ge.mul %normed, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y = ge.add %scaled, %beta : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  ge.return %y : (tensor<4x8xf32>) -> ()
}

// -----

// A dynamic batch fuses; a normalized dim of unknown size does not (GE's pass
// leaves unknown shapes).
// CHECK-LABEL: ge.graph @dynamic_batch
// CHECK:         %normed = ge.layer_norm %x, %normed_gamma {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK-LABEL: ge.graph @dynamic_normalized_dim
// CHECK-NOT:     ge.layer_norm
// CHECK:         ge.div
// REMARK: remark: fused LayerNorm from axis 1 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div) into 'ge.layer_norm'
ge.graph @dynamic_batch(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  %centred = ge.sub %x, %mean : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
  %square = ge.pow %centred, %two : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %std = ge.sqrt %shifted : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %normed = ge.div %centred, %std : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
  ge.return %normed : (tensor<?x8xf32>) -> ()
}
ge.graph @dynamic_normalized_dim(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<4x?xf32>, tensor<4x1xf32>) -> tensor<4x?xf32>
  %square = ge.pow %centred, %two : (tensor<4x?xf32>, tensor<f32>) -> tensor<4x?xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x?xf32>, tensor<4x1xf32>) -> tensor<4x?xf32>
  ge.return %normed : (tensor<4x?xf32>) -> ()
}

// -----

// Not LayerNorm, nothing fused: a mean over a leading axis (a channel norm of NCHW,
// which LayerNorm's trailing axes cannot say), an "epsilon" over 0.1, a cube for
// the square, means that drop their dims, and a centred x read elsewhere.
// CHECK-LABEL: ge.graph @leading_axis
// CHECK-NOT:   ge.layer_norm
// CHECK:       ge.div
// CHECK-LABEL: ge.graph @large_epsilon
// CHECK-NOT:   ge.layer_norm
// CHECK:       ge.div
// CHECK-LABEL: ge.graph @cube
// CHECK-NOT:   ge.layer_norm
// CHECK:       ge.div
// CHECK-LABEL: ge.graph @no_keepdims
// CHECK-NOT:   ge.layer_norm
// CHECK:       ge.div
// CHECK-LABEL: ge.graph @centred_read_elsewhere
// CHECK-NOT:   ge.layer_norm
// CHECK:       ge.div
// REMARK-NOT:  remark
ge.graph @leading_axis(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<2x4x8xf32>) -> tensor<2x1x8xf32>
  %centred = ge.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  %square = ge.pow %centred, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<2x4x8xf32>) -> tensor<2x1x8xf32>
  %shifted = ge.add %variance, %eps : (tensor<2x1x8xf32>, tensor<f32>) -> tensor<2x1x8xf32>
  %std = ge.sqrt %shifted : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %normed = ge.div %centred, %std : (tensor<2x4x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  ge.return %normed : (tensor<2x4x8xf32>) -> ()
}
ge.graph @large_epsilon(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %square = ge.pow %centred, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  ge.return %normed : (tensor<4x8xf32>) -> ()
}
ge.graph @cube(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = ge.const {value = dense<3.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %square = ge.pow %centred, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  ge.return %normed : (tensor<4x8xf32>) -> ()
}
ge.graph @no_keepdims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %shape = ge.const {value = dense<[4, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %mean = ge.reduce_mean %x {axes = [1], keepdims = 0 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  %mean2 = ge.reshape %mean, %shape : (tensor<4xf32>, tensor<2xi64>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean2 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %square = ge.pow %centred, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1], keepdims = 0 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  %variance2 = ge.reshape %variance, %shape : (tensor<4xf32>, tensor<2xi64>) -> tensor<4x1xf32>
  %shifted = ge.add %variance2, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  ge.return %normed : (tensor<4x8xf32>) -> ()
}
ge.graph @centred_read_elsewhere(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %two = ge.const {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %eps = ge.const {value = dense<9.99999974E-6> : tensor<f32>} : () -> tensor<f32>
  %mean = ge.reduce_mean %x {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %centred = ge.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %square = ge.pow %centred, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %variance = ge.reduce_mean %square {axes = [1]} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %shifted = ge.add %variance, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = ge.sqrt %shifted : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %normed = ge.div %centred, %std : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  ge.return %normed, %centred : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
}

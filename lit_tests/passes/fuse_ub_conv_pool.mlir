// fuse-ub on an Atlas inference device: a ResNet-style first convolution, its
// ReLU and its max pooling run as one kernel (CANN's
// TbeAippConvReluMaxpoolingFusion, MaxPoolV3 case). The pooling is fused into
// the ReLU; the convolution, the chain's head, writes the pooled result
// (fused_result_bytes = 8 x 64 x 56 x 56 x 2 bytes) and does the ReLU's and the
// pooling's vector work (fused_flops = 8 x (64 x 112 x 112 + 9 x 64 x 56 x 56)). Only with small channel,
// only on the 310P, and only for the documented shapes.
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true},assign-engines,fuse-ub{device=310P3}' --split-input-file | filecheck %s
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true},assign-engines,fuse-ub{device=310P3}' --split-input-file -Rpass=fuse-ub -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true},assign-engines,fuse-ub{device=910B2}' --split-input-file | filecheck %s --check-prefix=TRAINING
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub{device=310P3}' --split-input-file | filecheck %s --check-prefix=NOC04
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 enable-small-channel=true}' --split-input-file | filecheck %s --check-prefix=PIPELINE

// CHECK-LABEL: ge.graph @resnet_stem
// CHECK: %c = ge.conv2d %x, %w {{.*}}fused_flops = 20873216 : i64, fused_output, fused_result_bytes = 3211264 : i64
// CHECK: %r = ge.relu %c {{.*}}fused_operand = 0 : i64, fused_output
// CHECK: %p = ge.max_pool %r {{.*}}fused_operand = 0 : i64
// REMARK: remark: fused into 'ge.conv2d' (UB fusion): operand #0 stays in the unified buffer
// REMARK: remark: fused into 'ge.relu' (UB fusion, conv + relu + max pool): the chain writes the pooled result
// TRAINING-LABEL: ge.graph @resnet_stem
// TRAINING-NOT: fused_result_bytes
// TRAINING: %p = ge.max_pool %r {engine = "AICore", kernel_shape
// NOC04-LABEL: ge.graph @resnet_stem
// NOC04-NOT: fused_result_bytes
// NOC04: %p = ge.max_pool %r {engine = "AICore", kernel_shape
// PIPELINE: rt.kernel {attrs = {{{.*}}fused_result_bytes = 3211264 : i64{{.*}}op = "ge.conv2d"
// PIPELINE: rt.kernel {attrs = {{{.*}}fused_operand = 0 : i64{{.*}}op = "ge.max_pool"
ge.graph @resnet_stem(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x56x56xf16> {
  %c = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16>
  %r = ge.relu %c : (tensor<8x64x112x112xf16>) -> tensor<8x64x112x112xf16>
  %p = ge.max_pool %r {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<8x64x112x112xf16>) -> tensor<8x64x56x56xf16>
  ge.return %p : (tensor<8x64x56x56xf16>) -> ()
}

// -----

// No activation between them: the pooling is fused into the convolution itself.
// CHECK-LABEL: ge.graph @no_relu
// CHECK: %c = ge.conv2d %x, %w {{.*}}fused_output, fused_result_bytes = 401408 : i64
// CHECK: %p = ge.max_pool %c {{.*}}fused_operand = 0 : i64
ge.graph @no_relu(%x: tensor<1x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<1x64x56x56xf16> {
  %c = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %p = ge.max_pool %c {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  ge.return %p : (tensor<1x64x56x56xf16>) -> ()
}

// -----

// A batch norm after the convolution (GE folds it into the convolution first)
// keeps the rule: conv, batch norm, ReLU and pooling are one kernel. Two
// activations are one too many.
// CHECK-LABEL: ge.graph @batch_norm
// CHECK: %c = ge.conv2d %x, %w {{.*}}fused_result_bytes = 401408 : i64
// CHECK: %p = ge.max_pool %r {{.*}}fused_operand = 0 : i64
// CHECK: %c2 = ge.conv2d %x, %w {engine = "AICore", fused_flops = 2408448 : i64, fused_output, pads
// CHECK-NOT: fused_result_bytes
// CHECK: ge.return
ge.graph @batch_norm(%x: tensor<1x3x224x224xf16>, %w: tensor<64x3x7x7xf16>, %s: tensor<64xf16>, %b: tensor<64xf16>, %m: tensor<64xf16>, %v: tensor<64xf16>) -> (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) {
  %c = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %n = ge.batch_norm %c, %s, %b, %m, %v : (tensor<1x64x112x112xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<1x64x112x112xf16>
  %r = ge.relu %n : (tensor<1x64x112x112xf16>) -> tensor<1x64x112x112xf16>
  %p = ge.max_pool %r {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  %c2 = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %r2 = ge.relu %c2 : (tensor<1x64x112x112xf16>) -> tensor<1x64x112x112xf16>
  %l2 = ge.leaky_relu %r2 : (tensor<1x64x112x112xf16>) -> tensor<1x64x112x112xf16>
  %p2 = ge.max_pool %l2 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  ge.return %p, %p2 : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> ()
}

// -----

// Outside the documented case nothing joins: a ceil-mode pooling (GoogLeNet's
// stem), a 3 x 3 convolution (SqueezeNet's), a sigmoid between them, more than
// 96 output channels, a convolution result read twice.
// CHECK-LABEL: ge.graph @not_fused
// CHECK-NOT: fused_result_bytes
// CHECK: ge.return
ge.graph @not_fused(%x: tensor<1x3x224x224xf16>, %w: tensor<64x3x7x7xf16>, %w3: tensor<64x3x3x3xf16>, %wide: tensor<128x3x7x7xf16>) -> (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x128x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x64x112x112xf16>) {
  %c1 = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %p1 = ge.max_pool %c1 {ceil_mode = 1 : i64, kernel_shape = [3, 3], pads = [0, 0, 0, 0], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  %c2 = ge.conv2d %x, %w3 {pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x3x3xf16>) -> tensor<1x64x112x112xf16>
  %p2 = ge.max_pool %c2 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  %c3 = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %s3 = ge.sigmoid %c3 : (tensor<1x64x112x112xf16>) -> tensor<1x64x112x112xf16>
  %p3 = ge.max_pool %s3 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  %c4 = ge.conv2d %x, %wide {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<128x3x7x7xf16>) -> tensor<1x128x112x112xf16>
  %p4 = ge.max_pool %c4 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x128x112x112xf16>) -> tensor<1x128x56x56xf16>
  %c5 = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf16>
  %p5 = ge.max_pool %c5 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
  ge.return %p1, %p2, %p3, %p4, %p5, %c5 : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x128x56x56xf16>, tensor<1x64x56x56xf16>, tensor<1x64x112x112xf16>) -> ()
}

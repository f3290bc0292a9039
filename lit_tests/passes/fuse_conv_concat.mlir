// fuse-conv-concat: GE's ConvConcatFusionPass. A static 4-D channel concat whose
// inputs come from convolutions (bare, or under a relu / leaky relu) or max pools,
// each read only by the concat, with every input but the last a whole number of
// C0 blocks, is marked strided_write: the producers write into its channel slices
// and it needs no task. On in ge-default (option fuse-conv-concat), as in GE.
// RUN: ge-opt %s --fuse-conv-concat --split-input-file | filecheck %s
// RUN: ge-opt %s --fuse-conv-concat --split-input-file -Rpass=fuse-conv-concat -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='fuse-conv-concat{enable=false}' --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' --split-input-file | filecheck %s --check-prefix=PIPELINE
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 fuse-conv-concat=false}' --split-input-file | filecheck %s --check-prefix=OFF

// A fire module: two convolution + relu branches joined on the channels.
// CHECK-LABEL: ge.graph @fire
// CHECK: ge.concat {{.*}}strided_write
// REMARK: fuse_conv_concat.mlir:[[# @LINE + 8]]:8: remark: 2 producers write into the concat's channel slices (StridedWrite): no task
// OFF-NOT: strided_write
// PIPELINE: rt.kernel {attrs = {{{.*}}strided_write{{.*}}op = "ge.concat"
ge.graph @fire(%x: tensor<4x16x8x8xf16>, %w1: tensor<32x16x1x1xf16>, %w3: tensor<32x16x3x3xf16>) -> tensor<4x64x8x8xf16> {
  %a = ge.conv2d %x, %w1 : (tensor<4x16x8x8xf16>, tensor<32x16x1x1xf16>) -> tensor<4x32x8x8xf16>
  %ra = ge.relu %a : (tensor<4x32x8x8xf16>) -> tensor<4x32x8x8xf16>
  %b = ge.conv2d %x, %w3 {pads = [1, 1, 1, 1]} : (tensor<4x16x8x8xf16>, tensor<32x16x3x3xf16>) -> tensor<4x32x8x8xf16>
  %rb = ge.relu %b : (tensor<4x32x8x8xf16>) -> tensor<4x32x8x8xf16>
  %y = ge.concat %ra, %rb {axis = 1 : i64} : (tensor<4x32x8x8xf16>, tensor<4x32x8x8xf16>) -> tensor<4x64x8x8xf16>
  ge.return %y : (tensor<4x64x8x8xf16>) -> ()
}

// -----

// An inception block's pool branch joins convolution branches; the last input's
// channels need not be whole C0 blocks (24 here).
// CHECK-LABEL: ge.graph @conv_and_pool
// CHECK: ge.concat {{.*}}strided_write
// REMARK: remark: 2 producers write
ge.graph @conv_and_pool(%x: tensor<2x16x8x8xf16>, %w: tensor<16x16x1x1xf16>, %p: tensor<2x24x16x16xf16>) -> tensor<2x40x8x8xf16> {
  %a = ge.conv2d %x, %w : (tensor<2x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<2x16x8x8xf16>
  %m = ge.max_pool %p {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<2x24x16x16xf16>) -> tensor<2x24x8x8xf16>
  %y = ge.concat %a, %m {axis = 1 : i64} : (tensor<2x16x8x8xf16>, tensor<2x24x8x8xf16>) -> tensor<2x40x8x8xf16>
  ge.return %y : (tensor<2x40x8x8xf16>) -> ()
}

// -----

// Not fused: an input but the last with 24 channels (not whole C0 blocks), a
// producer read twice, an input that is not a convolution's, another axis, and
// an f32 concat (a precision mode that keeps f32).
// CHECK-LABEL: ge.graph @not_fused
// CHECK-NOT: strided_write
// REMARK-NOT: remark:
ge.graph @not_fused(%x: tensor<1x16x8x8xf16>, %w24: tensor<24x16x1x1xf16>, %w16: tensor<16x16x1x1xf16>, %xf: tensor<1x16x8x8xf32>, %wf: tensor<16x16x1x1xf32>) -> (tensor<1x40x8x8xf16>, tensor<1x32x8x8xf16>, tensor<1x32x8x8xf16>, tensor<2x16x8x8xf16>, tensor<1x32x8x8xf32>) {
  %a = ge.conv2d %x, %w24 : (tensor<1x16x8x8xf16>, tensor<24x16x1x1xf16>) -> tensor<1x24x8x8xf16>
  %b = ge.conv2d %x, %w16 : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %unaligned = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x24x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x40x8x8xf16>
  %c = ge.conv2d %x, %w16 : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %twice = ge.concat %c, %c {axis = 1 : i64} : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x32x8x8xf16>
  %d = ge.conv2d %x, %w16 : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %s = ge.sigmoid %x : (tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
  %other = ge.concat %s, %d {axis = 1 : i64} : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x32x8x8xf16>
  %e = ge.conv2d %x, %w16 : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %f = ge.conv2d %x, %w16 : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %batch = ge.concat %e, %f {axis = 0 : i64} : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<2x16x8x8xf16>
  %g = ge.conv2d %xf, %wf : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %h = ge.conv2d %xf, %wf : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %f32 = ge.concat %g, %h {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  ge.return %unaligned, %twice, %other, %batch, %f32 : (tensor<1x40x8x8xf16>, tensor<1x32x8x8xf16>, tensor<1x32x8x8xf16>, tensor<2x16x8x8xf16>, tensor<1x32x8x8xf32>) -> ()
}

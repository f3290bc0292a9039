// insert-trans-data: GE's TransData where a feature map crosses between the
// user's NCHW and the NC1HWC0 the AI core's convolutions, poolings and batch
// norms read and write. Elementwise ops, channel concats of whole C0 blocks,
// slices and splits that cut the channels at whole C0 blocks, and reductions
// over H and W keep the layout they are given; every other op, and
// the graph's results, take NCHW. An AIPP writes the 5-D layout itself.
// RUN: ge-opt %s --insert-trans-data --split-input-file | filecheck %s
// RUN: ge-opt %s --insert-trans-data --split-input-file -Rpass=insert-trans-data -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='insert-trans-data{enable=false}' --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{insert-trans-data=false}' --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' --split-input-file | filecheck %s --check-prefix=PIPELINE
// A second run finds every conversion in place and adds none.
// RUN: ge-opt %s --pass-pipeline='insert-trans-data,insert-trans-data' --split-input-file | filecheck %s

// OFF-NOT: ge.trans_data
// OFF-NOT: op = "ge.trans_data"

// An image into a convolution, through ReLU and pooling, out through a flatten:
// one TransData in, one out.
// CHECK-LABEL: ge.graph @classifier
// CHECK: %[[IN:.*]] = ge.trans_data %x {dst_format = "NC1HWC0", src_format = "NCHW"}
// CHECK: ge.conv2d %[[IN]], %w
// CHECK-NOT: ge.trans_data
// CHECK: %[[P:.*]] = ge.global_avg_pool
// CHECK: %[[OUT:.*]] = ge.trans_data %[[P]] {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK: ge.flatten %[[OUT]]
// CHECK-NOT: ge.trans_data
// REMARK: remark: TransData NCHW -> NC1HWC0 of tensor<2x3x32x32xf16> before 'ge.conv2d'
// REMARK: remark: TransData NC1HWC0 -> NCHW of tensor<2x16x1x1xf16> before 'ge.flatten'
// PIPELINE: rt.kernel {attrs = {dst_format = "NC1HWC0", src_format = "NCHW"}, bytes = 24576 : i64
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE: rt.kernel {attrs = {dst_format = "NCHW", src_format = "NC1HWC0"}
// PIPELINE-SAME: op = "ge.trans_data"
// The 310P's Gemm of 2 rows and 10 classes takes FRACTAL_NZ (insert_trans_data_nz.mlir):
// its two operands (the weight is an argument here) go in, its result comes out.
// PIPELINE: rt.kernel {attrs = {dst_format = "{{(FRACTAL_NZ|ND)}}", src_format = "{{(ND|FRACTAL_NZ)}}"}
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE: rt.kernel {attrs = {dst_format = "{{(FRACTAL_NZ|ND)}}", src_format = "{{(ND|FRACTAL_NZ)}}"}
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE: rt.kernel {attrs = {dst_format = "{{(FRACTAL_NZ|ND)}}", src_format = "{{(ND|FRACTAL_NZ)}}"}
// PIPELINE-SAME: op = "ge.trans_data"
// PIPELINE-NOT: op = "ge.trans_data"
// PIPELINE: // -----
ge.graph @classifier(%x: tensor<2x3x32x32xf16>, %w: tensor<16x3x3x3xf16>, %fc: tensor<10x16xf16>) -> tensor<2x10xf16> {
  %c = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<2x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<2x16x32x32xf16>
  %r = ge.relu %c : (tensor<2x16x32x32xf16>) -> tensor<2x16x32x32xf16>
  %m = ge.max_pool %r {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<2x16x32x32xf16>) -> tensor<2x16x16x16xf16>
  %p = ge.global_avg_pool %m : (tensor<2x16x16x16xf16>) -> tensor<2x16x1x1xf16>
  %f = ge.flatten %p : (tensor<2x16x1x1xf16>) -> tensor<2x16xf16>
  %y = ge.gemm %f, %fc {transB = 1 : i64} : (tensor<2x16xf16>, tensor<10x16xf16>) -> tensor<2x10xf16>
  ge.return %y : (tensor<2x10xf16>) -> ()
}

// -----

// A value read by two convolutions converts once; a 5-D result the graph returns
// goes back to NCHW.
// CHECK-LABEL: ge.graph @shared
// CHECK-COUNT-1: ge.trans_data %x
// CHECK: %[[A:.*]] = ge.conv2d
// CHECK: %[[B:.*]] = ge.conv2d
// CHECK: %[[S:.*]] = ge.add %[[A]], %[[B]]
// CHECK-NEXT: %[[T:.*]] = ge.sum %[[S]], %[[A]], %[[B]]
// CHECK-NEXT: %[[R:.*]] = ge.trans_data %[[T]] {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK-NEXT: ge.return %[[R]]
ge.graph @shared(%x: tensor<1x16x8x8xf16>, %w: tensor<16x16x1x1xf16>, %v: tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16> {
  %a = ge.conv2d %x, %w : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %b = ge.conv2d %x, %v : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %s = ge.add %a, %b : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
  %t = ge.sum %s, %a, %b : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
  ge.return %t : (tensor<1x16x8x8xf16>) -> ()
}

// -----

// A squeeze-excite block: the mean over H and W stays 5-D, a mean over the
// channels does not; an elementwise op given one 5-D and one NCHW map converts
// the NCHW one.
// CHECK-LABEL: ge.graph @squeeze_excite
// CHECK: %[[X:.*]] = ge.trans_data %x {dst_format = "NC1HWC0", src_format = "NCHW"}
// CHECK: %[[C:.*]] = ge.conv2d %[[X]]
// CHECK-NEXT: %[[S:.*]] = ge.reduce_mean %[[C]] {axes = [2, 3]
// CHECK-NEXT: %[[E:.*]] = ge.sigmoid %[[S]]
// CHECK-NEXT: %[[G:.*]] = ge.mul %[[C]], %[[E]]
// CHECK-NEXT: %[[T:.*]] = ge.trans_data %[[G]] {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK-NEXT: ge.reduce_mean %[[T]] {axes = [1]
// CHECK: %[[Y:.*]] = ge.trans_data %y {dst_format = "NC1HWC0", src_format = "NCHW"}
// CHECK-NEXT: ge.add %[[G]], %[[Y]]
ge.graph @squeeze_excite(%x: tensor<1x16x8x8xf16>, %w: tensor<16x16x1x1xf16>, %y: tensor<1x16x8x8xf16>) -> (tensor<1x1x8x8xf16>, tensor<1x16x8x8xf16>) {
  %c = ge.conv2d %x, %w : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %s = ge.reduce_mean %c {axes = [2, 3], keepdims = 1 : i64} : (tensor<1x16x8x8xf16>) -> tensor<1x16x1x1xf16>
  %e = ge.sigmoid %s : (tensor<1x16x1x1xf16>) -> tensor<1x16x1x1xf16>
  %g = ge.mul %c, %e : (tensor<1x16x8x8xf16>, tensor<1x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %k = ge.reduce_mean %g {axes = [1], keepdims = 1 : i64} : (tensor<1x16x8x8xf16>) -> tensor<1x1x8x8xf16>
  %z = ge.add %g, %y : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
  ge.return %k, %z : (tensor<1x1x8x8xf16>, tensor<1x16x8x8xf16>) -> ()
}

// -----

// A concat along the channels keeps NC1HWC0 when every input fills whole C0
// blocks; with 8 channels it runs in NCHW.
// CHECK-LABEL: ge.graph @concats
// CHECK: %[[W:.*]] = ge.concat %a, %b {axis = 1
// CHECK: %[[N1:.*]] = ge.trans_data %c {dst_format = "NCHW"
// CHECK: %[[N2:.*]] = ge.trans_data %d {dst_format = "NCHW"
// CHECK: ge.concat %[[N1]], %[[N2]] {axis = 1
ge.graph @concats(%x: tensor<1x16x8x8xf16>, %w: tensor<16x16x1x1xf16>, %v: tensor<8x16x1x1xf16>) -> (tensor<1x32x8x8xf16>, tensor<1x16x8x8xf16>) {
  %a = ge.conv2d %x, %w : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %b = ge.conv2d %x, %w : (tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x8x8xf16>
  %c = ge.conv2d %x, %v : (tensor<1x16x8x8xf16>, tensor<8x16x1x1xf16>) -> tensor<1x8x8x8xf16>
  %d = ge.conv2d %x, %v : (tensor<1x16x8x8xf16>, tensor<8x16x1x1xf16>) -> tensor<1x8x8x8xf16>
  %wide = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x32x8x8xf16>
  %narrow = ge.concat %c, %d {axis = 1 : i64} : (tensor<1x8x8x8xf16>, tensor<1x8x8x8xf16>) -> tensor<1x16x8x8xf16>
  ge.return %wide, %narrow : (tensor<1x32x8x8xf16>, tensor<1x16x8x8xf16>) -> ()
}

// -----

// A slice or a split that cuts the channels at whole C0 blocks keeps NC1HWC0 (the
// formats CANN's StridedSliceD and SplitVD select); cut inside a block, it runs
// in NCHW. A split along H keeps NC1HWC0 whatever the channels.
// CHECK-LABEL: ge.graph @slices
// CHECK: %first = ge.slice %a, %c16, %c48, %axis
// CHECK-NEXT: %[[N:.*]] = ge.trans_data %a {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK-NEXT: %odd = ge.slice %[[N]], %c8, %c48, %axis
// CHECK-NEXT: %thirds:3 = ge.split %a {axis = 1
// CHECK-NEXT: %[[N2:.*]] = ge.trans_data %b {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK-NEXT: %halves:2 = ge.split %[[N2]] {axis = 1
// CHECK-NEXT: %rows:2 = ge.split %b {axis = 2
ge.graph @slices(%x: tensor<1x16x8x8xf16>, %w: tensor<48x16x1x1xf16>, %v: tensor<24x16x1x1xf16>) -> (tensor<1x32x8x8xf16>, tensor<1x40x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x12x8x8xf16>, tensor<1x24x4x8xf16>) {
  %c8 = ge.const {value = dense<8> : tensor<1xi64>} : () -> tensor<1xi64>
  %c16 = ge.const {value = dense<16> : tensor<1xi64>} : () -> tensor<1xi64>
  %c48 = ge.const {value = dense<48> : tensor<1xi64>} : () -> tensor<1xi64>
  %axis = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = ge.conv2d %x, %w : (tensor<1x16x8x8xf16>, tensor<48x16x1x1xf16>) -> tensor<1x48x8x8xf16>
  %b = ge.conv2d %x, %v : (tensor<1x16x8x8xf16>, tensor<24x16x1x1xf16>) -> tensor<1x24x8x8xf16>
  %first = ge.slice %a, %c16, %c48, %axis : (tensor<1x48x8x8xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x32x8x8xf16>
  %odd = ge.slice %a, %c8, %c48, %axis : (tensor<1x48x8x8xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x40x8x8xf16>
  %thirds:3 = ge.split %a {axis = 1, num_outputs = 3} : (tensor<1x48x8x8xf16>) -> (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>)
  %halves:2 = ge.split %b {axis = 1, num_outputs = 2} : (tensor<1x24x8x8xf16>) -> (tensor<1x12x8x8xf16>, tensor<1x12x8x8xf16>)
  %rows:2 = ge.split %b {axis = 2, num_outputs = 2} : (tensor<1x24x8x8xf16>) -> (tensor<1x24x4x8xf16>, tensor<1x24x4x8xf16>)
  ge.return %first, %odd, %thirds#1, %halves#0, %rows#1 : (tensor<1x32x8x8xf16>, tensor<1x40x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x12x8x8xf16>, tensor<1x24x4x8xf16>) -> ()
}

// -----

// A small-channel convolution reads C04; an AIPP writes the layout its
// convolution reads, so it needs no TransData.
// CHECK-LABEL: ge.graph @first_layers
// CHECK: ge.trans_data %x {dst_format = "NC1HWC0_C04", src_format = "NCHW"}
// CHECK-NOT: ge.trans_data %i
ge.graph @first_layers(%x: tensor<1x3x16x16xf16>, %w: tensor<16x3x3x3xf16>, %i: tensor<1x16x16x3xui8>) -> (tensor<1x16x14x14xf16>, tensor<1x16x14x14xf16>) {
  %a = ge.conv2d %x, %w {small_channel} : (tensor<1x3x16x16xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x14x14xf16>
  %p = ge.aipp %i {crop_size = [16, 16], dtype = f16} : (tensor<1x16x16x3xui8>) -> tensor<1x3x16x16xf16>
  %b = ge.conv2d %p, %w {small_channel} : (tensor<1x3x16x16xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x14x14xf16>
  %ra = ge.relu %a : (tensor<1x16x14x14xf16>) -> tensor<1x16x14x14xf16>
  %rb = ge.relu %b : (tensor<1x16x14x14xf16>) -> tensor<1x16x14x14xf16>
  ge.return %ra, %rb : (tensor<1x16x14x14xf16>, tensor<1x16x14x14xf16>) -> ()
}

// -----

// A feature pyramid's upsampling runs in the 5-D layout: the sum of a lateral
// convolution and an upsampled coarser level needs no conversion.
// CHECK-LABEL: ge.graph @pyramid
// CHECK-COUNT-1: ge.trans_data %x
// CHECK-NOT: ge.trans_data
// CHECK: %s = ge.add %lateral, %up
// CHECK-NEXT: ge.trans_data %s {dst_format = "NCHW"
ge.graph @pyramid(%x: tensor<1x16x16x16xf16>, %w: tensor<16x16x1x1xf16>, %v: tensor<16x16x2x2xf16>, %scales: tensor<4xf32>) -> tensor<1x16x16x16xf16> {
  %lateral = ge.conv2d %x, %w : (tensor<1x16x16x16xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x16x16xf16>
  %coarse = ge.conv2d %x, %v {strides = [2, 2]} : (tensor<1x16x16x16xf16>, tensor<16x16x2x2xf16>) -> tensor<1x16x8x8xf16>
  %none = ge.none : () -> none
  %up = ge.resize %coarse, %none, %scales {mode = "nearest"} : (tensor<1x16x8x8xf16>, none, tensor<4xf32>) -> tensor<1x16x16x16xf16>
  %s = ge.add %lateral, %up : (tensor<1x16x16x16xf16>, tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16>
  ge.return %s : (tensor<1x16x16x16xf16>) -> ()
}

// -----

// A 1-D convolution runs as a 2-D one over H = 1, in NC1HWC0 like any other:
// its (N, C, W) input converts in, the GELU after it keeps the 5-D layout, and
// the transpose that feeds a layer norm reads NCHW again.
// CHECK-LABEL: ge.graph @conv1d
// CHECK:      %[[X:.*]] = ge.trans_data %x {dst_format = "NC1HWC0", src_format = "NCHW"}
// CHECK-NEXT: %[[C:.*]] = ge.conv2d %[[X]], %w
// CHECK-NEXT: %[[G:.*]] = ge.gelu %[[C]]
// CHECK-NEXT: %[[GN:.*]] = ge.trans_data %[[G]] {dst_format = "NCHW", src_format = "NC1HWC0"}
// CHECK-NEXT: ge.transpose %[[GN]]
ge.graph @conv1d(%x: tensor<1x16x100xf16>, %w: tensor<32x16x3xf16>) -> tensor<1x98x32xf16> {
  %c = ge.conv2d %x, %w : (tensor<1x16x100xf16>, tensor<32x16x3xf16>) -> tensor<1x32x98xf16>
  %g = ge.gelu %c : (tensor<1x32x98xf16>) -> tensor<1x32x98xf16>
  %t = ge.transpose %g {perm = [0, 2, 1]} : (tensor<1x32x98xf16>) -> tensor<1x98x32xf16>
  ge.return %t : (tensor<1x98x32xf16>) -> ()
}

// small-channel: ATC's --enable_small_channel. A convolution with at most four
// input channels (and one group) is marked small_channel: it reads its channels
// in the C04 layout, so the cube pads them to 4, not to 16. Off by default, as
// in ATC; in ge-default the option is enable-small-channel.
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true}' --split-input-file | filecheck %s
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true}' --split-input-file -Rpass=small-channel -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --small-channel --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 enable-small-channel=true}' --split-input-file | filecheck %s --check-prefix=PIPELINE

// CHECK-LABEL: ge.graph @first_layer
// CHECK: %c = ge.conv2d %x, %w {{.*}}small_channel
// REMARK: remark: 3 input channels: C04 layout (small channel)
// REMARK-NEXT: %c = ge.conv2d %x, %w
// REMARK: remark: 3 input channels: C04 layout (small channel)
// REMARK-NEXT: %c = ge.conv2d %xh
// REMARK: remark: 4 input channels: C04 layout (small channel)
// REMARK-NEXT: %d = ge.conv2d %c
// REMARK-NOT: remark:
// OFF-NOT: small_channel
// PIPELINE: rt.kernel {attrs = {{{.*}}small_channel{{.*}}op = "ge.conv2d"
ge.graph @first_layer(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16> {
  %c = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16>
  ge.return %c : (tensor<8x64x112x112xf16>) -> ()
}

// -----

// Five channels, a grouped convolution, or a 1 x 1 kernel (no window to pack;
// CANN's Conv2D offers no C04 format for it) keep the C0 layout.
// CHECK-LABEL: ge.graph @not_small
// CHECK-NOT: small_channel
ge.graph @not_small(%x: tensor<1x5x8x8xf16>, %w: tensor<16x5x3x3xf16>, %y: tensor<1x4x8x8xf16>, %g: tensor<4x1x3x3xf16>, %p: tensor<16x3x1x1xf16>, %i: tensor<1x3x8x8xf16>) -> (tensor<1x16x6x6xf16>, tensor<1x4x6x6xf16>, tensor<1x16x8x8xf16>) {
  %a = ge.conv2d %x, %w : (tensor<1x5x8x8xf16>, tensor<16x5x3x3xf16>) -> tensor<1x16x6x6xf16>
  %b = ge.conv2d %y, %g {group = 4 : i64} : (tensor<1x4x8x8xf16>, tensor<4x1x3x3xf16>) -> tensor<1x4x6x6xf16>
  %c = ge.conv2d %i, %p : (tensor<1x3x8x8xf16>, tensor<16x3x1x1xf16>) -> tensor<1x16x8x8xf16>
  ge.return %a, %b, %c : (tensor<1x16x6x6xf16>, tensor<1x4x6x6xf16>, tensor<1x16x8x8xf16>) -> ()
}

// -----

// On the 310P family the C04 input is for the first layer only (CANN's Conv2D:
// is_first_layer on Ascend310P): the convolution that reads the model's input,
// through a cast, is marked; a later one on four channels keeps C0 there, and is
// marked on a chip without that rule.
// CHECK-LABEL: ge.graph @later_layer
// CHECK: ge.conv2d {{.*}}small_channel
// CHECK: ge.conv2d {{.*}}small_channel
// P310-LABEL: ge.graph @later_layer
// P310: %c = ge.conv2d %xh, %w {{.*}}small_channel
// P310-NOT: small_channel
// P310: ge.return
// RUN: ge-opt %s --pass-pipeline='small-channel{enable=true device=310P3}' --split-input-file | filecheck %s --check-prefix=P310
ge.graph @later_layer(%x: tensor<1x3x16x16xf32>, %w: tensor<4x3x3x3xf16>, %v: tensor<8x4x3x3xf16>) -> tensor<1x8x12x12xf16> {
  %xh = ge.cast %x {to = f16} : (tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf16>
  %c = ge.conv2d %xh, %w : (tensor<1x3x16x16xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x14x14xf16>
  %d = ge.conv2d %c, %v : (tensor<1x4x14x14xf16>, tensor<8x4x3x3xf16>) -> tensor<1x8x12x12xf16>
  ge.return %d : (tensor<1x8x12x12xf16>) -> ()
}

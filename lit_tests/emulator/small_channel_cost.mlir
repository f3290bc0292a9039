// A first layer on three channels pads them to C0 = 16 on the cube; with
// ATC's --enable_small_channel (ge-default's enable-small-channel) it reads
// them in the C04 layout and its kernel does about a quarter of the
// multiplications; each of its blocks still drains its results and pays its
// fixed cost, so it takes about two fifths of the time. (The graph's image goes into the
// 5-D layout and its feature map back out through TransData kernels of their
// own, as GE compiles it: ge-default{insert-trans-data=false} leaves them out.)
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 insert-trans-data=false}' | ge-run - --device 310P3 --timing-only | filecheck %s --check-prefix=C0
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 enable-small-channel=true insert-trans-data=false}' | ge-run - --device 310P3 --timing-only | filecheck %s --check-prefix=C04
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3}' | ge-run - --device 310P3 --timing-only | filecheck %s --check-prefix=TRANS
// C0: makespan {{ +}}174.045 us
// C04: makespan {{ +}}67.540 us
// TRANS: 4 tasks (3 kernels
// TRANS: makespan {{ +}}325.551 us
ge.graph @first_layer(%x: tensor<8x3x224x224xf16>, %w: tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16> {
  %c = ge.conv2d %x, %w {pads = [3, 3, 3, 3], strides = [2, 2]} : (tensor<8x3x224x224xf16>, tensor<64x3x7x7xf16>) -> tensor<8x64x112x112xf16>
  ge.return %c : (tensor<8x64x112x112xf16>) -> ()
}

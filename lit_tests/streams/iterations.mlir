// partition-streams{iterations=N}: plans are judged over N back-to-back frames
// (double-buffered), so the cost strategy pipelines a DVPP -> AICore chain that
// it keeps on one stream for a single frame.
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams' | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{iterations=8}' | filecheck %s --check-prefix=EIGHT

// ONE-NOT: stream = 1
// EIGHT: ge.dvpp_decode {{.*}}stream = [[D:[0-9]+]] : i64
// EIGHT: ge.conv2d {{.*}}stream = [[C:[0-9]+]] : i64
// EIGHT-NOT: ge.dvpp_resize {{.*}}stream = [[C]] : i64
ge.graph @frames(%jpeg: tensor<200000xui8>) -> tensor<1x16x112x112xf16> {
  %w = ge.const {value = dense<1.000000e-02> : tensor<16x3x3x3xf16>} : () -> tensor<16x3x3x3xf16>
  %w2 = ge.const {value = dense<1.000000e-02> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %img = ge.dvpp_decode %jpeg {height = 1080, width = 1920, channels = 3} : (tensor<200000xui8>) -> tensor<1080x1920x3xui8>
  %small = ge.dvpp_resize %img {height = 112, width = 112} : (tensor<1080x1920x3xui8>) -> tensor<112x112x3xui8>
  %f = ge.cast %small {to = f16} : (tensor<112x112x3xui8>) -> tensor<112x112x3xf16>
  %t = ge.transpose %f {perm = [2, 0, 1]} : (tensor<112x112x3xf16>) -> tensor<3x112x112xf16>
  %s = ge.const {value = dense<[1, 3, 112, 112]> : tensor<4xi64>} : () -> tensor<4xi64>
  %x = ge.reshape %t, %s : (tensor<3x112x112xf16>, tensor<4xi64>) -> tensor<1x3x112x112xf16>
  %c1 = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x3x112x112xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x112x112xf16>
  %c2 = ge.conv2d %c1, %w2 {pads = [1, 1, 1, 1]} : (tensor<1x16x112x112xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x112x112xf16>
  %c3 = ge.conv2d %c2, %w2 {pads = [1, 1, 1, 1]} : (tensor<1x16x112x112xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x112x112xf16>
  ge.return %c3 : (tensor<1x16x112x112xf16>) -> ()
}

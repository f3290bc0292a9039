// must_keep_origin_dtype cannot keep an f32 matrix op on a device whose cube
// has no f32 (ATC refuses the model): an error at each such op.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --precision-mode='mode=must_keep_origin_dtype device=310P3'
// RUN: ge-opt %s --split-input-file --verify-diagnostics --precision-mode='mode=must_keep_origin_dtype device=910A'
// An unknown mode names the known ones.
// RUN: not ge-opt %s --precision-mode='mode=fp8' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: precision-mode: unknown mode 'fp8'; known: force_fp16, allow_fp32_to_fp16, must_keep_origin_dtype, allow_mix_precision, force_fp32
// RUN: not ge-opt %s --pass-pipeline='ge-default{precision-mode=half}' 2>&1 | filecheck %s --check-prefix=PIPELINE
// PIPELINE: error: precision-mode: unknown mode 'half'
// PIPELINE-NOT: Traceback

ge.graph @conv(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error@+2 {{precision-mode: 'ge.conv2d' computes in f32, but the cube unit of device}}
  // expected-note@+1 {{use force_fp16 or allow_fp32_to_fp16}}
  %y = ge.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  ge.return %y : (tensor<1x3x4x4xf32>) -> ()
}

// -----

// An f16 matrix op and f32 vector ops are what such a cube runs.
ge.graph @half_cube(%x: tensor<2x8xf16>, %w: tensor<8x4xf16>) -> tensor<2x4xf32> {
  %m = ge.matmul %x, %w : (tensor<2x8xf16>, tensor<8x4xf16>) -> tensor<2x4xf16>
  %c = ge.cast %m {to = f32} : (tensor<2x4xf16>) -> tensor<2x4xf32>
  %r = ge.relu %c : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %r : (tensor<2x4xf32>) -> ()
}

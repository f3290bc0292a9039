// --precision-mode on the commands: ge-translate applies the pass on import,
// ge-run hands it to ge-default.
// RUN: ge-translate --import-onnx %onnx/conv_relu.onnx --precision-mode=allow_mix_precision --elide-large-constants | filecheck %s --check-prefix=IMPORT
// RUN: ge-translate --import-onnx %onnx/conv_relu.onnx --precision-mode=must_keep_origin_dtype | filecheck %s --check-prefix=KEEP
// RUN: not ge-translate --import-onnx %onnx/conv_relu.onnx --precision-mode=fp8 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not ge-translate --import-tasks-json %s --precision-mode=force_fp16 2>&1 | filecheck %s --check-prefix=NOTIMPORT
// RUN: not ge-run %onnx/conv_relu.onnx --precision-mode=fp8 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not ge-run %onnx/conv_relu.onnx --precision-mode=force_fp16 --pipeline lower-to-tasks 2>&1 | filecheck %s --check-prefix=PIPELINE

// IMPORT:      ge.graph @main(%input_0: tensor<1x3x8x8xf32> {ge.name = "input:0"}) -> (tensor<1x4x8x8xf32> {ge.name = "output"})
// IMPORT-NEXT:   %input_0_f16 = ge.cast %input_0 {to = f16}
// IMPORT:        ge.conv2d %input_0_f16, {{.*}} -> tensor<1x4x8x8xf16>
// IMPORT-NEXT:   %output = ge.relu %conv1_out : (tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
// IMPORT-NEXT:   %output_f32 = ge.cast %output {to = f32}
// IMPORT-NEXT:   ge.return %output_f32 : (tensor<1x4x8x8xf32>) -> ()
// KEEP-NOT: f16
// BAD: error: precision-mode: unknown mode 'fp8'
// NOTIMPORT: error: --precision-mode goes with --import-onnx
// PIPELINE: error: precision_mode applies to the default pipeline

// insert-aipp: ATC's --insert_op_conf. Each aipp_op block of the configuration
// turns its input (related_input_rank) into the uint8 N x H x W x C image AIPP
// reads and puts a ge.aipp before the input's readers: crop, R/B swap,
// (pixel - mean_chn - min_chn) * var_reci_chn per channel, into the type the
// model reads. Without a configuration the pass does nothing. In ge-default
// the option is insert-op-conf; the AIPP then fuses into the convolution.
// RUN: ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_crop.cfg}' | filecheck %s
// RUN: ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_crop.cfg}' -Rpass=insert-aipp -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --insert-aipp | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 insert-op-conf=%S/Inputs/aipp_crop.cfg}' | filecheck %s --check-prefix=PIPELINE
// RUN: ge-opt %s --pass-pipeline='ge-default{device=310P3 insert-op-conf=%S/Inputs/aipp_crop.cfg}' -Rpass=fuse-ub -o /dev/null 2>&1 | filecheck %s --check-prefix=FUSED
// ge-translate's --insert-op-conf: AIPP at import, as ATC's option.
// RUN: ge-translate --import-onnx %examples/tiny_cnn.onnx --insert-op-conf %S/Inputs/aipp_plain.cfg | filecheck %s --check-prefix=TRANSLATE
// RUN: not ge-translate --export-tasks-json %s --insert-op-conf %S/Inputs/aipp_plain.cfg 2>&1 | filecheck %s --check-prefix=TRANSLATE-ONLY

// CHECK-LABEL: ge.graph @first_layer(%x: tensor<2x8x8x3xui8>, %w: tensor<16x3x3x3xf32>)
// CHECK-NEXT: %x_aipp = ge.aipp %x {crop_size = [4, 4], dtype = f32, input_format = "RGB888_U8", load_start_pos = [2, 1], mean_chn = [1, 0, 0], min_chn = [1.000000e+01, 2.000000e+01, 3.000000e+01], rbuv_swap = true, var_reci_chn = [5.000000e-01, 2.500000e-01, 2.000000e+00]} : (tensor<2x8x8x3xui8>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: %c = ge.conv2d %x_aipp, %w
// REMARK: remark: AIPP on input 0: RGB888_U8 8 x 8 -> 3 x 4 x 4
// OFF: ge.graph @first_layer(%x: tensor<2x3x4x4xf32>
// OFF-NOT: ge.aipp
// under force_fp16 AIPP gives the model f16 itself: no cast after it
// PIPELINE-NOT: op = "ge.cast"{{.*}}tensor<2x3x4x4
// PIPELINE: rt.kernel {attrs = {{{.*}}dtype = f16{{.*}}fused_output{{.*}}op = "ge.aipp"
// PIPELINE: rt.kernel {attrs = {aipp_input{{.*}}op = "ge.conv2d"
// TRANSLATE: ge.graph @main(%image: tensor<1x32x32x3xui8> {ge.name = "image"})
// TRANSLATE-NEXT: %image_aipp = ge.aipp %image {crop_size = [32, 32], dtype = f32, input_format = "RGB888_U8"
// TRANSLATE-ONLY: error: --insert-op-conf goes with --import-onnx
// FUSED: remark: fused into 'ge.conv2d' (UB fusion, AIPP + convolution): the convolution reads the uint8 image
ge.graph @first_layer(%x: tensor<2x3x4x4xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x2x2xf32> {
  %c = ge.conv2d %x, %w : (tensor<2x3x4x4xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x2x2xf32>
  ge.return %c : (tensor<2x16x2x2xf32>) -> ()
}

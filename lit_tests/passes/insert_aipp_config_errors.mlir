// More of insert-aipp's diagnostics: each at the configuration line at fault,
// with the line and a caret; and the inputs AIPP cannot feed.
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_second_block.cfg}' 2>&1 | filecheck %s --check-prefix=SECOND
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_bad_bool.cfg}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_bad_int.cfg}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_negative.cfg}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_padding.cfg}' 2>&1 | filecheck %s --check-prefix=PADDING
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_no_format.cfg}' 2>&1 | filecheck %s --check-prefix=NOFORMAT
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_format_number.cfg}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_unknown_block.cfg}' 2>&1 | filecheck %s --check-prefix=BLOCK
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_empty.cfg}' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_start_without_crop.cfg}' 2>&1 | filecheck %s --check-prefix=NOCROP
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_twice.cfg}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_crop_outside.cfg}' 2>&1 | filecheck %s --check-prefix=OUTSIDE
// RUN: not ge-opt %S/Inputs/aipp_not_an_image.mlir --split-input-file --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_plain.cfg}' 2>&1 | filecheck %s --check-prefix=IMAGE

// SECOND: aipp_second_block.cfg:5:1: error: a second 'aipp_op' for input 0 (related_input_rank)
// SECOND-NEXT: {{^}}aipp_op {
// SECOND-NEXT: {{^}}^
// BOOL: aipp_bad_bool.cfg:4:9: error: AIPP field 'crop' takes true or false, not 2
// BOOL-NEXT: {{^}}  crop: 2
// BOOL-NEXT: {{^}}        ^
// INT: aipp_bad_int.cfg:4:21: error: AIPP field 'src_image_size_w' takes an integer, not 2.5
// NEGATIVE: aipp_negative.cfg:4:3: error: AIPP field 'src_image_size_w' must not be negative
// PADDING: aipp_padding.cfg:4:3: error: AIPP padding (padding: true) is not supported
// NOFORMAT: aipp_no_format.cfg:1:1: error: AIPP block needs 'input_format' (RGB888_U8 or YUV400_U8)
// NAME: aipp_format_number.cfg:3:17: error: AIPP field 'input_format' takes a name, not 3
// BLOCK: aipp_unknown_block.cfg:1:1: error: unknown AIPP configuration block 'model' (expected 'aipp_op')
// EMPTY: aipp_empty.cfg:1:1: error: AIPP configuration has no 'aipp_op' block
// NOCROP: aipp_start_without_crop.cfg:4:3: error: AIPP field 'load_start_pos_w' needs 'crop: true'
// NOCROP-NEXT: {{^}}  load_start_pos_w: 3
// TWICE: aipp_twice.cfg:4:3: error: AIPP field 'aipp_mode' is set twice
// OUTSIDE: aipp_crop_outside.cfg:5:3: error: the crop (4 x 4 from (2, 0)) leaves the 4 x 4 source image
// OUTSIDE-NEXT: {{^}}  load_start_pos_h: 2
// IMAGE: aipp_plain.cfg:1:1: error: AIPP feeds an N x C x H x W float image; input 0 is tensor<4xf32>
// IMAGE: aipp_plain.cfg:1:1: error: AIPP needs the input's C, H and W; input 0 is tensor<1x?x4x4xf32>
// IMAGE: aipp_plain.cfg:3:3: error: RGB888_U8 gives 3 channel(s); input 0 has 8 (tensor<1x8x8x3xf32> has its channels last: AIPP feeds an N x C x H x W input, ATC's input format for ONNX)

ge.graph @g(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %y = ge.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  ge.return %y : (tensor<1x3x4x4xf32>) -> ()
}

// insert-aipp's diagnostics: each points at the configuration line at fault,
// with the line and a caret, and the tool exits non-zero without output.
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_dynamic.cfg}' 2>&1 | filecheck %s --check-prefix=DYNAMIC
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_yuv.cfg}' 2>&1 | filecheck %s --check-prefix=FORMAT
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_unknown_field.cfg}' 2>&1 | filecheck %s --check-prefix=FIELD
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_syntax.cfg}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_wrong_size.cfg}' 2>&1 | filecheck %s --check-prefix=SIZE
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_gray.cfg}' 2>&1 | filecheck %s --check-prefix=CHANNELS
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_rank.cfg}' 2>&1 | filecheck %s --check-prefix=RANK
// RUN: not ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/no_such.cfg}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: rm -f %t.mlir && not ge-opt %s --pass-pipeline='ge-default{insert-op-conf=%S/Inputs/aipp_dynamic.cfg}' -o %t.mlir && not test -e %t.mlir

// DYNAMIC: aipp_dynamic.cfg:2:3: error: only static AIPP is supported (aipp_mode: static)
// DYNAMIC-NEXT: {{^}}  aipp_mode: dynamic
// DYNAMIC-NEXT: {{^}}  ^
// FORMAT: aipp_yuv.cfg:3:3: error: AIPP input_format 'YUV420SP_U8' is not supported
// FORMAT-NEXT: {{^}}  input_format: YUV420SP_U8
// FORMAT-NEXT: {{^}}  ^
// FORMAT-NEXT: note: supported: RGB888_U8, YUV400_U8
// FIELD: aipp_unknown_field.cfg:4:3: error: unknown AIPP field 'crop_size'
// FIELD-NEXT: {{^}}  crop_size: 224
// FIELD: note: known fields: aipp_mode, crop, crop_size_h, crop_size_w,
// SYNTAX: aipp_syntax.cfg:3:16: error: AIPP configuration: unexpected 'RGB888_U8'; expected ':'
// SYNTAX-NEXT: {{^}}  input_format RGB888_U8
// SYNTAX-NEXT: {{^}}               ^
// SIZE: aipp_wrong_size.cfg:6:3: error: the AIPP output is 6 x 6; input 0 is 4 x 4 (the crop must be the model input's size)
// SIZE-NEXT: {{^}}  crop_size_h: 6
// SIZE: insert_aipp_errors.mlir:[[# @LINE + 8]]:1: note: in graph @g
// CHANNELS: aipp_gray.cfg:3:3: error: YUV400_U8 gives 1 channel(s); input 0 has 3
// CHANNELS-NEXT: {{^}}  input_format: YUV400_U8
// RANK: aipp_rank.cfg:3:3: error: related_input_rank 3: the graph has 1 input(s)
// RANK-NEXT: {{^}}  related_input_rank: 3
// MISSING: error: cannot read AIPP configuration '{{.*}}no_such.cfg': No such file or directory
// MISSING-NOT: Traceback

ge.graph @g(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %y = ge.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  ge.return %y : (tensor<1x3x4x4xf32>) -> ()
}

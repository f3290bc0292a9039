// insert-aipp with one aipp_op block per input (related_input_rank): each input
// becomes its image, the AIPPs come first in input order, and a dynamic batch
// stays dynamic (ge-run binds it at run time).
// RUN: ge-opt %s --pass-pipeline='insert-aipp{config=%S/Inputs/aipp_two_inputs.cfg}' | filecheck %s
// RUN: ge-run %s --pipeline 'ge-default{insert-op-conf=%S/Inputs/aipp_two_inputs.cfg}' --input-shape x=2x3x4x4 --input-shape y=2x1x4x4 | filecheck %s --check-prefix=EMU

// CHECK: ge.graph @g(%x: tensor<?x4x4x3xui8>, %y: tensor<?x6x6x1xui8>)
// CHECK-NEXT: %x_aipp = ge.aipp %x {crop_size = [4, 4], dtype = f32, input_format = "RGB888_U8"
// CHECK-NEXT: %y_aipp = ge.aipp %y {crop_size = [4, 4], dtype = f32, input_format = "YUV400_U8", load_start_pos = [1, 2]
// CHECK-NEXT: %a = ge.relu %x_aipp
// CHECK-NEXT: %b = ge.relu %y_aipp
// EMU: races           none
// EMU: output_0: float32[2, 3, 4, 4]
// EMU: output_1: float32[2, 1, 4, 4]
ge.graph @g(%x: tensor<?x3x4x4xf32>, %y: tensor<?x1x4x4xf32>) -> (tensor<?x3x4x4xf32>, tensor<?x1x4x4xf32>) {
  %a = ge.relu %x : (tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32>
  %b = ge.relu %y : (tensor<?x1x4x4xf32>) -> tensor<?x1x4x4xf32>
  ge.return %a, %b : (tensor<?x3x4x4xf32>, tensor<?x1x4x4xf32>) -> ()
}

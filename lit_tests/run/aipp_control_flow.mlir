// ge-run of a model with static AIPP and control flow: the host-driven run the
// report compares with runs the same model, AIPP included, on the same uint8
// images, and gets the same outputs.
// RUN: ge-run %s --pipeline 'ge-default{insert-op-conf=%S/../passes/Inputs/aipp_crop.cfg}' | filecheck %s

// CHECK: sink vs host    task sink {{[0-9.]+}} us, 1 launch(es), 0 host round trips; host-driven {{.*}}; outputs differ by 0 at most
// CHECK: races           none
// CHECK: y: float32[1, 3, 4, 4]
ge.graph @main(%x: tensor<1x3x4x4xf32> {ge.name = "x"}, %p: tensor<i1> {ge.name = "p"}) -> (tensor<1x3x4x4xf32> {ge.name = "y"}) {
  %a = ge.if %p ({
    %r = ge.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    ge.yield %r : (tensor<1x3x4x4xf32>) -> ()
  }, {
    ge.yield %x : (tensor<1x3x4x4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<1x3x4x4xf32>
  ge.return %a : (tensor<1x3x4x4xf32>) -> ()
}

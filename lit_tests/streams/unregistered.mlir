// An unregistered op inside a ge.graph is scheduled like any op (AICPU, no cost
// hint) and keeps its properties; schedule-stats says why it cannot emulate it.
// RUN: ge-opt %s --allow-unregistered-dialect --pass-pipeline='assign-engines,partition-streams,insert-events,schedule-stats' 2>&1 | filecheck %s

// CHECK: makespan                    not emulated: 'my.op' op is not a registered ge op
// CHECK: %b = "my.op"(%a) <{mode = "fast"}> {stream = {{[0-9]+}} : i64}
ge.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = "my.op"(%a) <{mode = "fast"}> : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %c : (tensor<4xf32>) -> ()
}

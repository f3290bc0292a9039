// partition-streams{strategy=cost}'s search, as its remarks report it: the
// candidate it started from (a list schedule with seeded perturbed priorities
// here), what iterated local search on the emulator improved, and the plan that
// keeps fewer events at (almost) the same makespan. Its plan runs race-free and
// the events schedule-stats counts are the ones the last remark names. Its
// tensors (8 MiB) are large enough that a second stream gains more than its events cost.
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=cost},insert-events,schedule-stats' -Rpass=partition-streams -o /dev/null 2>&1 | filecheck %s

// CHECK: === schedule stats: @main ===
// CHECK: events (present)            3
// CHECK: races                       0
// CHECK: remark: cost: chose the list schedule on {{[0-9]}} streams with perturbed priorities (sample {{[0-9]+}}) ({{[0-9.]+}} us; single stream {{[0-9.]+}} us) of {{[0-9]+}} candidates measured by the emulator
// CHECK: remark: cost: {{[0-9]+}} kick(s) of iterated local search improved it: {{[0-9.]+}} -> {{[0-9.]+}} us
// CHECK: remark: cost: 4 -> 3 events kept ({{[0-9]+}} move(s)), at {{[0-9.]+}} us: within 0.2% of the fastest plan found ({{[0-9.]+}} us), fewer events win
ge.graph @main(%x: tensor<4x524288xf32> {ge.name = "x"}) -> (tensor<4x524288xf32> {ge.name = "y"}, tensor<4x524288xf32> {ge.name = "z"}) {
  %v0 = ge.abs %x {engine = "AICore"} : (tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v1 = ge.min %v0, %x {engine = "AICore"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v2 = ge.neg %v0 {engine = "HCCL"} : (tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v3 = ge.abs %x {engine = "AICore"} : (tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v4 = ge.max %v1, %v0 {engine = "HCCL"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v5 = ge.mul %v3, %x {engine = "AICore"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v6 = ge.sub %v0, %v4 {engine = "AICPU"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v7 = ge.min %v4, %v2 {engine = "AICore"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v8 = ge.relu %v2 {engine = "HCCL"} : (tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v9 = ge.max %v3, %v4 {engine = "DVPP"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v10 = ge.mul %v7, %v4 {engine = "AICore"} : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> tensor<4x524288xf32>
  %v11 = ge.sigmoid %v5 {engine = "AICPU"} : (tensor<4x524288xf32>) -> tensor<4x524288xf32>
  ge.return %v11, %v5 : (tensor<4x524288xf32>, tensor<4x524288xf32>) -> ()
}

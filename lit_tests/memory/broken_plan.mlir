// What reuse-memory refuses, written by hand: %b2 (stream 1) on %s's bytes.
// In block order %s is dead once %b has read it, but %a on stream 0 may still
// be reading it when %b2 is written; the emulator's race checker says so.
// RUN: ge-opt %s --lower-to-tasks | not ge-run - 2>&1 | filecheck %s
// CHECK: races           1
// CHECK-NEXT: read-write race on arena bytes [0, 1024) between stream 0 task 2 (ge.neg @ {{.*}}broken_plan.mlir:14:8) and stream 1 task 2 (ge.abs @ {{.*}}broken_plan.mlir:17:9): no event orders them
// CHECK: the emulator found 1 data race(s)
// The plan reuse-memory makes for the same schedule is clean:
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=CLEAN
// CLEAN: races           none
ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x", ge.offset = 5120}) -> (tensor<16x16xf32> {ge.name = "y"}) {
  %s = ge.relu %x {offsets = [0], stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  %a = ge.neg %s {offsets = [1024], stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.exp %s {offsets = [2048], stream = 1} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b2 = ge.abs %b {offsets = [0], stream = 1} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.record_event {event = 1, stream = 1} : () -> ()
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %j = ge.add %a, %b2 {offsets = [0], stream = 0} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = ge.sigmoid %j {offsets = [4096], stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.return %y : (tensor<16x16xf32>) -> ()
}

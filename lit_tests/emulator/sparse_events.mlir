// Event ids far apart (one of 10^9) cost the emulator a table entry per event
// used, not per id up to the largest; the device's own limit is still said.
// RUN: ge-run %s --device 910B2 | filecheck %s
// CHECK: makespan
// CHECK: races           none
// CHECK: warning         event ids up to 1000000000, more than the device's 65536 events
ge.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  ge.record_event {stream = 0 : i64, event = 1000000000 : i64} : () -> ()
  ge.wait_event {stream = 1 : i64, event = 1000000000 : i64} : () -> ()
  %b = ge.sigmoid %a {stream = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %b : (tensor<4xf32>) -> ()
}

// Branches on two streams write their slices of one concat. The concat's
// buffer is taken before its first producer, so it is ordered by the op the
// branches fork from (%s), which happens before both writers: nothing another
// stream may still read shares its bytes. The emulator finds no race, and the
// numbers are the interpreter's.
// RUN: ge-opt %s --reuse-memory='print-plan=true' -o /dev/null 2>&1 | filecheck %s
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU
// RUN: ge-run %s --interpret | filecheck %s --check-prefix=NUM
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=NUM

// The buffer of %c is taken at node 0 (%s), on stream 0, and held to the join.
// CHECK: %c{{ +}}[[C:[0-9]+]]{{ +}}2048{{ +}}0..5{{ +}}0
// CHECK-NEXT: %a{{ +}}[[C]]{{ +}}1024{{ +}}0..5{{ +}}0{{ +}}in %c at +0
// CHECK: %b2{{ +}}{{[0-9]+}}{{ +}}1024{{ +}}0..5{{ +}}0{{ +}}in %c at +1024

// EMU: races           none
// NUM: y: float32[1, 32, 4, 4] mean=

ge.graph @main(%x: tensor<1x16x4x4xf32> {ge.name = "x"}) -> (tensor<1x32x4x4xf32> {ge.name = "y"}) {
  %s = ge.relu %x {stream = 0} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  %a = ge.neg %s {stream = 0} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.exp %s {stream = 1} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %b2 = ge.abs %b {stream = 1} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.record_event {event = 1, stream = 1} : () -> ()
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %c = ge.concat %a, %b2 {axis = 1 : i64, stream = 0} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = ge.sigmoid %c {stream = 0} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  ge.return %y : (tensor<1x32x4x4xf32>) -> ()
}

// A cycle of waits: stream 0 waits for event 1 before recording event 0, and
// stream 1 waits for event 0 before recording event 1. The emulator does not
// hang: it reports the deadlock, naming the stalled waits and the cycle, and
// exits with code 3.
// RUN: not ge-run %s --timing-only > %t.out 2> %t.err
// RUN: filecheck %s --input-file %t.out
// RUN: filecheck %s --input-file %t.err --check-prefix=ERR
// RUN: not ge-run %s --timing-only --mode host --report json | filecheck %s --check-prefix=JSON

// CHECK: deadlock        deadlock: a cycle of waits: stream 0 (at stream 0 task 1 (wait event 1 @ {{.*}}deadlock.mlir:30:3)) -> stream 1 (at stream 1 task 1 (wait event 0 @ {{.*}}deadlock.mlir:33:3)) -> stream 0
// CHECK-NEXT: stream 0 task 1 (wait event 1 @ {{.*}}): needs stream 1 task 2 (record event 1 @ {{.*}}deadlock.mlir:34:3), which is behind stream 1 task 1
// CHECK-NEXT: stream 1 task 1 (wait event 0 @ {{.*}}): needs stream 0 task 2 (record event 0 @ {{.*}}deadlock.mlir:31:3), which is behind stream 0 task 1

// ERR: ge-run: the emulator found a deadlock (see the report); exit code 3

// JSON: "deadlock": {
// JSON-NEXT: "message": "deadlock: a cycle of waits:
// JSON: "stalled": [
// JSON: "stream": 0,
// JSON-NEXT: "index": 1,
// JSON-NEXT: "kind": "wait",
// JSON: "event": 1,
// JSON: "cycle": [
// JSON-NEXT: 0,
// JSON-NEXT: 1
// JSON-NEXT: ]

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.wait_event {event = 1, stream = 0} : () -> ()
  ge.record_event {event = 0, stream = 0} : () -> ()
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  ge.record_event {event = 1, stream = 1} : () -> ()
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

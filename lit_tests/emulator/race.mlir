// A two-stream schedule without the event on its cross-stream edge: the race
// checker names both tasks, their streams and locations and the bytes; races
// are findings (exit code 3), found in timing-only mode too, never a traceback.
// RUN: not ge-run %s --timing-only > %t.out 2> %t.err
// RUN: filecheck %s --input-file %t.out
// RUN: filecheck %s --input-file %t.err --check-prefix=ERR
// RUN: not ge-run %s --report json 2>&1 | filecheck %s --check-prefix=JSON

// CHECK: races           1
// CHECK-NEXT: write-read race on arena bytes [1024, 1056) between stream 1 task 0 (ge.neg @ {{.*}}race.mlir:33:8) and stream 0 task 1 (ge.add @ {{.*}}race.mlir:34:8): no event orders them
// CHECK: deadlock        none

// ERR: ge-run: the emulator found 1 data race(s) (see the report); exit code 3
// ERR-NOT: Traceback

// JSON: "races": [
// JSON-NEXT: {
// JSON-NEXT: "kind": "write-read",
// JSON-NEXT: "first": {
// JSON-NEXT: "stream": 1,
// JSON-NEXT: "index": 0,
// JSON: "op": "ge.neg",
// JSON: "second": {
// JSON-NEXT: "stream": 0,
// JSON-NEXT: "index": 1,
// JSON: "op": "ge.add",
// JSON: "bytes": [
// JSON-NEXT: 1024,
// JSON-NEXT: 1056

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

// A stream's parts make room for the output copies lower-to-tasks appends to
// them, and only those: the ten ops' results the graph returns are written in
// place (no copy); the returned input is copied on stream 0. Under
// max-tasks-per-stream=8 the stream splits in two (the copy, five ops, the
// record and the end; then the wait, five ops and the end), not in parts of two
// as when every returned value took room on every part. The emulator runs the
// split plan race-free.
// RUN: ge-opt %s --pass-pipeline='partition-streams{strategy=single},insert-events{max-tasks-per-stream=8}' \
// RUN:   -Rpass=insert-events -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s --input-file %t.mlir
// RUN: ge-opt %t.mlir --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU

// REMARK: remark: insert-events: split 1 stream(s) longer than 8 tasks
// CHECK:      %v4 = ge.relu %v3 {stream = 0 : i64}
// CHECK-NEXT: ge.record_event {event = 0 : i64, stream = 0 : i64}
// CHECK-NEXT: ge.wait_event {event = 0 : i64, stream = 1 : i64}
// CHECK-NEXT: %v5 = ge.relu %v4 {stream = 1 : i64}
// CHECK-NOT:  ge.wait_event
// EMU: on 2 streams
// EMU: races none
ge.graph @outputs(%x: tensor<4x16xf32> {ge.name = "x"}) -> (tensor<4x16xf32> {ge.name = "x_out"}, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %v0 = ge.relu %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v1 = ge.relu %v0 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v2 = ge.relu %v1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v3 = ge.relu %v2 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v4 = ge.relu %v3 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v5 = ge.relu %v4 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v6 = ge.relu %v5 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v7 = ge.relu %v6 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v8 = ge.relu %v7 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %v9 = ge.relu %v8 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  ge.return %x, %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> ()
}

// insert-events: a record/wait pair per cross-stream dependency not already
// implied by stream order and other events; event ids reused.
// RUN: ge-opt %s --split-input-file --insert-events | filecheck %s
// RUN: ge-opt %s --split-input-file --insert-events='reduce=false' | filecheck %s --check-prefix=ALL
// RUN: ge-opt %s --split-input-file --insert-events='reuse-ids=false' | filecheck %s --check-prefix=FRESH
// RUN: ge-opt %s --split-input-file --insert-events -Rpass=insert-events -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// A diamond across two streams: fork and join.
// CHECK-LABEL: ge.graph @diamond
// CHECK:      %a = ge.relu
// CHECK-NEXT: ge.record_event {event = [[E0:[0-9]+]] : i64, stream = 0 : i64}
// CHECK:      ge.wait_event {event = [[E0]] : i64, stream = 1 : i64}
// CHECK-NEXT: %c = ge.tanh
// CHECK-NEXT: ge.record_event {event = [[E1:[0-9]+]] : i64, stream = 1 : i64}
// CHECK:      ge.wait_event {event = [[E1]] : i64, stream = 0 : i64}
// CHECK-NEXT: %d = ge.add
ge.graph @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.sigmoid %a {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.tanh %a {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  %d = ge.add %b, %c {stream = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %d : (tensor<4xf32>) -> ()
}

// -----

// %c on stream 1 reads %a and %b of stream 0: waiting for %b implies %a
// (GE's OptimizeByRecvEvents keeps the last sender too). %e on stream 2 reads
// %a and %c: waiting for %c implies %a through the first event — a transitive
// step GE's rules do not take.
// CHECK-LABEL: ge.graph @transitive
// CHECK-COUNT-2: ge.wait_event
// CHECK-NOT: ge.wait_event
// ALL-LABEL: ge.graph @transitive
// ALL-COUNT-4: ge.wait_event
// REMARK: remark: insert-events: 4 cross-stream dependencies; GE's rule inserts 3 events, kept 2 after transitive reduction, using 2 event ids
ge.graph @transitive(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.sigmoid %a {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.add %a, %b {stream = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = ge.add %a, %c {stream = 2} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %e : (tensor<4xf32>) -> ()
}

// -----

// A chain ping-ponging between two streams. The second event cannot take id 0:
// its wait (before %c on stream 0) could consume the first record before the
// first wait did. The third can: the first wait is done before both its record
// and its wait. reuse-ids=false gives each event its own id.
// CHECK-LABEL: ge.graph @ping_pong
// CHECK: ge.wait_event {event = 0 : i64
// CHECK: ge.wait_event {event = 1 : i64
// CHECK: ge.wait_event {event = 0 : i64
// FRESH-LABEL: ge.graph @ping_pong
// FRESH: ge.wait_event {event = 0 : i64
// FRESH: ge.wait_event {event = 1 : i64
// FRESH: ge.wait_event {event = 2 : i64
ge.graph @ping_pong(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.relu %a {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.relu %b {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %d = ge.relu %c {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %d : (tensor<4xf32>) -> ()
}

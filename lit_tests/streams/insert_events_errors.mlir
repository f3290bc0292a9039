// insert-events runs once: a graph that already has events is an error.
// RUN: ge-opt %s --insert-events --verify-diagnostics -o /dev/null
ge.graph @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'ge.record_event' op: insert-events found a graph that is already synchronised; run it once, after partition-streams}}
  ge.record_event {event = 0, stream = 0} : () -> ()
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.sigmoid %a {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %b : (tensor<4xf32>) -> ()
}

// partition-streams: bad options and a graph that is already synchronised.
// RUN: ge-opt %s --partition-streams --verify-diagnostics -o /dev/null
// RUN: not ge-opt %s --partition-streams='strategy=fastest' -o /dev/null 2>&1 | filecheck %s --check-prefix=STRAT
// RUN: not ge-opt %s --partition-streams='max-streams=0' -o /dev/null 2>&1 | filecheck %s --check-prefix=MAX
// RUN: not ge-opt %s --partition-streams='max-streams=many' -o /dev/null 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not ge-opt %s --partition-streams='iterations=0' -o /dev/null 2>&1 | filecheck %s --check-prefix=ITER
// RUN: not ge-opt %s --partition-streams='mode=cloud' -o /dev/null 2>&1 | filecheck %s --check-prefix=MODE

// STRAT: error: partition-streams: unknown strategy 'fastest'; strategies: single, ge, ge-parallel, ge-cv, ge-load-balance, ge-main-stream, ge-weighted-load-balance, chain-cover, opara, cost, optimal
// MAX: error: partition-streams: max-streams must be at least 1, got 0
// MODE: error: partition-streams: mode must be sink or host, got 'cloud'
// ITER: error: partition-streams: iterations must be at least 1, got 0
// TYPE: ge-opt: error: option 'max-streams' of pass 'partition-streams' expects an integer, got 'many'

ge.graph @synced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'ge.record_event' op: partition-streams must run before insert-events (this graph is already synchronised)}}
  ge.record_event {event = 0, stream = 0} : () -> ()
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.sigmoid %a {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %b : (tensor<4xf32>) -> ()
}

// --timeline draws a Gantt chart (one row per stream, bars coloured by engine,
// waits hatched; units in use per engine below) with matplotlib, the optional
// extra 'plot'.
// RUN: ge-run %s --timing-only --timeline %t.png > /dev/null
// RUN: %python -c "print(open('%t.png', 'rb').read()[:4])" | filecheck %s
// REQUIRES: matplotlib

// CHECK: b'\x89PNG'

ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.record_event {event = 0, stream = 1} : () -> ()
  ge.wait_event {event = 0, stream = 0} : () -> ()
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}

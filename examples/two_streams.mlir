// Two branches of one graph on two streams, synchronised by events — the shape
// the scheduling passes produce. Try:
//   ge-run examples/two_streams.mlir                 (emulate: makespan, utilisation, races)
//   ge-run examples/two_streams.mlir --mode host     (runtime v2: a host launch cost per task)
//   ge-run examples/two_streams.mlir --trace t.json  (open t.json in https://ui.perfetto.dev)
// Delete the `ge.wait_event {event = 1 ...}` line and ge-run reports the race it causes.
ge.graph @main(%x: tensor<1x64x56x56xf16> {ge.name = "x"}) -> (tensor<1x64x56x56xf16> {ge.name = "y"}) {
  %w1 = ge.const {value = dense<1.000000e-02> : tensor<64x64x1x1xf16>} : () -> tensor<64x64x1x1xf16>
  %w3 = ge.const {value = dense<1.000000e-02> : tensor<64x64x3x3xf16>} : () -> tensor<64x64x3x3xf16>
  %stem = ge.relu %x {stream = 0} : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("stem")
  ge.record_event {event = 0, stream = 0} : () -> ()
  // Branch a, stream 0: a 3x3 convolution.
  %a = ge.conv2d %stem, %w3 {pads = [1, 1, 1, 1], stream = 0} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16> loc("branch_a")
  // Branch b, stream 1: a 1x1 convolution and a sigmoid, once the stem is done.
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b1 = ge.conv2d %stem, %w1 {stream = 1} : (tensor<1x64x56x56xf16>, tensor<64x64x1x1xf16>) -> tensor<1x64x56x56xf16> loc("branch_b_conv")
  %b = ge.sigmoid %b1 {stream = 1} : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("branch_b_sigmoid")
  ge.record_event {event = 1, stream = 1} : () -> ()
  // Join on stream 0 once branch b is done.
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %y = ge.add %a, %b {stream = 0} : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("join")
  ge.return %y : (tensor<1x64x56x56xf16>) -> ()
}

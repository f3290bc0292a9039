// A concat whose inputs lie back to back keeps a copy of them where GE's checks
// (ConcatNotaskPass) refuse to lay them out inside its result; a remark says
// which check. A concat that runs as a task gets no remark.
// RUN: ge-opt %s --split-input-file --reuse-memory -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s

// CHECK: remark: its inputs keep buffers of their own: an input is read by other ops too
ge.graph @shared(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}, tensor<1x16x4x4xf16> {ge.name = "z"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  %z = ge.exp %a : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %y, %z : (tensor<1x32x4x4xf16>, tensor<1x16x4x4xf16>) -> ()
}

// -----

// Two concats read one result: both keep their copies.
// CHECK: remark: its inputs keep buffers of their own: an input is read by other ops too
// CHECK: remark: its inputs keep buffers of their own: an input is read by other ops too
ge.graph @claimed(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}, tensor<1x32x4x4xf16> {ge.name = "z"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %d = ge.abs %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %e = ge.concat %a, %d {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  %z = ge.exp %e : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y, %z : (tensor<1x32x4x4xf16>, tensor<1x32x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: an input is a graph output
ge.graph @returned(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}, tensor<1x16x4x4xf16> {ge.name = "z"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y, %a : (tensor<1x32x4x4xf16>, tensor<1x16x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: an input is read twice
ge.graph @twice(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %a {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y : (tensor<1x32x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: an input is a graph or region argument
ge.graph @argument(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %x {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y : (tensor<1x32x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: an input is a constant
ge.graph @constant(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}) {
  %k = ge.const {value = dense<1.0> : tensor<1x16x4x4xf16>} : () -> tensor<1x16x4x4xf16>
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %k, %a {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y : (tensor<1x32x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: its result is a graph output
ge.graph @output(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %c : (tensor<1x32x4x4xf16>) -> ()
}

// -----

// CHECK: remark: its inputs keep buffers of their own: an input comes from 'ge.reshape', which runs as no task
ge.graph @reshaped(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "y"}) {
  %shape = ge.const {value = dense<[1, 16, 4, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %r = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.reshape %r, %shape : (tensor<1x16x4x4xf16>, tensor<4xi64>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y : (tensor<1x32x4x4xf16>) -> ()
}

// -----

// Three channels of a 4x1 map in f16 (24 B an input) are not whole 32-byte blocks.
// CHECK: remark: its inputs keep buffers of their own: an input is not a whole number of 32-byte blocks
ge.graph @unaligned(%x: tensor<1x3x4x1xf16> {ge.name = "x"}) -> (tensor<1x6x4x1xf16> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<1x3x4x1xf16>) -> tensor<1x3x4x1xf16>
  %b = ge.neg %x : (tensor<1x3x4x1xf16>) -> tensor<1x3x4x1xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x1xf16>, tensor<1x3x4x1xf16>) -> tensor<1x6x4x1xf16>
  %y = ge.exp %c : (tensor<1x6x4x1xf16>) -> tensor<1x6x4x1xf16>
  ge.return %y : (tensor<1x6x4x1xf16>) -> ()
}

// -----

// The outer concat reads the inner one, laid out in place (GE: a no-task producer).
// CHECK: remark: its 2 inputs are written in place inside its result
// CHECK: remark: its inputs keep buffers of their own: an input comes from 'ge.concat', which runs as no task
ge.graph @nested(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x48x4x4xf16> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %d = ge.abs %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %e = ge.concat %c, %d {axis = 1 : i64} : (tensor<1x32x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x48x4x4xf16>
  %y = ge.exp %e : (tensor<1x48x4x4xf16>) -> tensor<1x48x4x4xf16>
  ge.return %y : (tensor<1x48x4x4xf16>) -> ()
}

// -----

// Branches on two streams, each with a large intermediate: holding the concat's
// buffer from the fork (%s) over both would make a larger arena than the
// copy, so the smaller plan is kept.
// CHECK: remark: its inputs keep buffers of their own: its producers run at once on several streams, and holding its buffer from their fork made a larger arena than the copy
ge.graph @forked(%x: tensor<1x16x4x4xf32> {ge.name = "x"}, %w: tensor<8x16x4x4xf32> {ge.name = "w"}) -> (tensor<1x32x4x4xf32> {ge.name = "y"}) {
  %axes = ge.const {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.relu %x {stream = 0} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  %a = ge.neg %s {stream = 0} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %big = ge.add %w, %s {stream = 0} : (tensor<8x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<8x16x4x4xf32>
  %a2 = ge.reduce_sum %big, %axes {keepdims = 1 : i64, stream = 0} : (tensor<8x16x4x4xf32>, tensor<1xi64>) -> tensor<1x16x4x4xf32>
  %a3 = ge.add %a, %a2 {stream = 0} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.exp %s {stream = 1} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %big2 = ge.add %w, %b {stream = 1} : (tensor<8x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<8x16x4x4xf32>
  %b2 = ge.reduce_sum %big2, %axes {keepdims = 1 : i64, stream = 1} : (tensor<8x16x4x4xf32>, tensor<1xi64>) -> tensor<1x16x4x4xf32>
  ge.record_event {event = 1, stream = 1} : () -> ()
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %c = ge.concat %a3, %b2 {axis = 1 : i64, stream = 0} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = ge.sigmoid %c {stream = 0} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  ge.return %y : (tensor<1x32x4x4xf32>) -> ()
}

// -----

// Producers on two streams that nothing orders after a common op (both read
// the graph input): the buffer cannot be taken before both.
// CHECK: remark: its inputs keep buffers of their own: no op up to 64 before its first producer happens before every producer, so nothing orders its buffer before them
ge.graph @unordered(%x: tensor<1x16x4x4xf32> {ge.name = "x"}) -> (tensor<1x32x4x4xf32> {ge.name = "y"}) {
  %a = ge.neg %x {stream = 0} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %b = ge.exp %x {stream = 1} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  ge.record_event {event = 1, stream = 1} : () -> ()
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %c = ge.concat %a, %b {axis = 1 : i64, stream = 0} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = ge.sigmoid %c {stream = 0} : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  ge.return %y : (tensor<1x32x4x4xf32>) -> ()
}

// -----

// With a batch of 2 the slices are strided; a strided-write concat (no task)
// keeps buffers for its inputs, and a plain one runs as a task: no remark.
// CHECK: remark: its inputs keep buffers of their own: they are strided slices of its result (a dim before the axis is above 1)
// CHECK-NOT: remark: its
ge.graph @batch2(%x: tensor<2x16x4x4xf16> {ge.name = "x"}) -> (tensor<2x32x4x4xf16> {ge.name = "y"}, tensor<2x32x4x4xf16> {ge.name = "z"}) {
  %a = ge.relu %x : (tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  %b = ge.neg %x : (tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64, strided_write} : (tensor<2x16x4x4xf16>, tensor<2x16x4x4xf16>) -> tensor<2x32x4x4xf16>
  %y = ge.exp %c : (tensor<2x32x4x4xf16>) -> tensor<2x32x4x4xf16>
  %d = ge.abs %x : (tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  %e = ge.sigmoid %x : (tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  %f = ge.concat %d, %e {axis = 1 : i64} : (tensor<2x16x4x4xf16>, tensor<2x16x4x4xf16>) -> tensor<2x32x4x4xf16>
  %z = ge.exp %f : (tensor<2x32x4x4xf16>) -> tensor<2x32x4x4xf16>
  ge.return %y, %z : (tensor<2x32x4x4xf16>, tensor<2x32x4x4xf16>) -> ()
}

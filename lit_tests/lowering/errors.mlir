// What lower-to-tasks cannot lower is an error at the op, never a silent drop.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --lower-to-tasks

ge.graph @g(%s: tensor<2xf32>, %xs: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error@+1 {{'ge.scan' op has scan_input_directions = [1]: the task sink scans axis 0 forwards; others run host-driven (runtime v2)}}
  %r, %z = ge.scan %s, %xs ({
  ^bb0(%si: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = ge.add %si, %xi : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ge.yield %n, %n : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_input_directions = [1]} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  ge.return %z : (tensor<3x2xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.enter' op is not supported by lower-to-tasks: GE's loop frames (TF v1's while) run neither in the task sink nor host-driven}}
  %e = ge.enter %x {frame_name = "loop"} : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{'ge.exit' op is not supported by lower-to-tasks: GE's loop frames (TF v1's while) run neither in the task sink nor host-driven}}
  %o = ge.exit %e : (tensor<2xf32>) -> tensor<2xf32>
  ge.return %o : (tensor<2xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf32>) -> tensor<1x?xi64> {
  // expected-error@+1 {{'ge.nonzero' op result #0 dim 1 has a data-dependent size (tensor<1x?xi64>): it depends on the values of the op's operands, not only on their shapes; lower-to-tasks plans fixed-size buffers}}
  %n = ge.nonzero %x : (tensor<4xf32>) -> tensor<1x?xi64>
  ge.return %n : (tensor<1x?xi64>) -> ()
}

// -----

// Only where the dynamic dim starts is reported (not every op it reaches), with the fix.
// expected-error@+1 {{input 'x' dim 0 is dynamic (tensor<?x4xf32>); bind it with specialize-shapes{shapes="x=<dims>"} (in ge-default: input-shape="x=<dims>")}}
ge.graph @g(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = ge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  ge.return %r : (tensor<?x4xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.relu' op has 2 'offsets' but 1 results}}
  %r = ge.relu %x {offsets = [0, 512]} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.relu' op 'offsets' must be non-negative integers, got [-512]}}
  %r = ge.relu %x {offsets = [-512]} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'ge.relu' op 'stream' must be a non-negative integer, got -1}}
  %r = ge.relu %x {stream = -1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf32>) -> (tensor<4xf32> {ge.name = "y"}, tensor<4xf32> {ge.name = "y"}) {
  %r = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %s = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'ge.return' op returns two outputs named 'y'}}
  ge.return %r, %s : (tensor<4xf32>, tensor<4xf32>) -> ()
}

// -----

// The rt verifier runs after the pass: its errors point at the ge op a task came from.
ge.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'rt.wait' op waits for event 3, but no 'rt.record' in the model records it}}
  ge.wait_event {event = 3, stream = 1} : () -> ()
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%m: tensor<i64>, %c: tensor<i1>, %y: tensor<1xf32>) -> tensor<5x1xf32> {
  // expected-error@+1 {{'ge.loop' op has scan outputs, whose size is the trip count: it runs host-driven (runtime v2), not in the task sink}}
  %r, %s = ge.loop %m, %c, %y ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<1xf32>):
    %n = ge.add %yi, %yi : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    ge.yield %ci, %n, %n : (tensor<i1>, tensor<1xf32>, tensor<1xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<1xf32>) -> (tensor<1xf32>, tensor<5x1xf32>)
  ge.return %s : (tensor<5x1xf32>) -> ()
}

// -----

ge.graph @g(%m: tensor<i64>, %c: tensor<i1>, %y: tensor<1xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.loop' op carries value #0 from tensor<1xf32> to tensor<2xf32>: a loop whose carried shapes change runs host-driven (runtime v2)}}
  %r = ge.loop %m, %c, %y ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<1xf32>):
    %n = ge.concat %yi, %yi {axis = 0 : i64} : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    ge.yield %ci, %n : (tensor<i1>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<1xf32>) -> tensor<2xf32>
  ge.return %r : (tensor<2xf32>) -> ()
}

// -----

// A size computed from constants alone is not data-dependent: specialize-shapes folds it.
ge.graph @g(%x: tensor<1x3xf32>) -> tensor<?x?xf32> {
  %c = ge.const {value = dense<[0, 1, 0, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %p = ge.cast %c {to = i64} : (tensor<4xi64>) -> tensor<4xi64>
  %z = ge.const {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  // expected-error@+1 {{'ge.pad' op result #0 has no static shape yet (tensor<?x?xf32>): its operand #1 is computed from constants alone: specialize-shapes folds and infers it (ge-default runs it first)}}
  %y = ge.pad %x, %p, %z {mode = "constant"} : (tensor<1x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<?x?xf32>
  ge.return %y : (tensor<?x?xf32>) -> ()
}

// -----

// Nor is one whose operands are constants already (canonicalize folds, but infers no types).
ge.graph @g(%x: tensor<1x3xf32>) -> tensor<?x?xf32> {
  %c = ge.const {value = dense<[0, 1, 0, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %z = ge.const {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  // expected-error@+1 {{'ge.pad' op result #0 has no static shape yet (tensor<?x?xf32>): its operands give tensor<1x5xf32>: specialize-shapes folds and infers it (ge-default runs it first)}}
  %y = ge.pad %x, %c, %z {mode = "constant"} : (tensor<1x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<?x?xf32>
  ge.return %y : (tensor<?x?xf32>) -> ()
}

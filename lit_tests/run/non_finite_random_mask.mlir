// Random integer inputs may be a mask, an index or a length that the model's
// own values keep in range: here a random 0/1 mask divides, so an output is
// not finite, and the warning notes that the inputs were random and how to
// give the model's own.
// RUN: ge-run %s 2>&1 | filecheck %s
// CHECK: ge-run: warning: output 'y' holds {{[1-9][0-9]*}} non-finite value(s) of 32: no op overflowed f16 under --precision-mode force_fp16; the model makes them in f32 too
// CHECK-NEXT: note: the inputs were random (seed 0); a mask, an index or a length may need the model's own values: give them with --inputs
module {
  ge.graph @main(%x: tensor<4x8xf32> {ge.name = "x"}, %mask: tensor<4x8xi64> {ge.name = "mask"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
    %m = ge.cast %mask {to = f32} : (tensor<4x8xi64>) -> tensor<4x8xf32> loc("mask_f32")
    %y = ge.div %x, %m : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> loc("masked")
    ge.return %y : (tensor<4x8xf32>) -> ()
  }
}

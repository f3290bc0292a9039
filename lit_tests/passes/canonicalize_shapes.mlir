// canonicalize folds what a partially symbolic shape knows: the static dims a
// ge.shape (or a gather / slice of one) reads become constants, the arithmetic
// on them folds through its kernels (Cast -> Div -> Ceil -> Cast included), and
// what reads a dynamic dim stays.
// RUN: ge-opt %s --canonicalize --split-input-file | filecheck %s

// Shape -> Gather(2) of tensor<?x3x13x11xf32> is 13, the batch stays symbolic.
// CHECK-LABEL: ge.graph @gather_static_dim
// CHECK-NEXT:    %h = ge.const {value = dense<13> : tensor<1xi64>} : () -> tensor<1xi64>
// CHECK-NEXT:    ge.return %h
ge.graph @gather_static_dim(%x: tensor<?x3x13x11xf32>) -> tensor<1xi64> {
  %i = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.shape %x : (tensor<?x3x13x11xf32>) -> tensor<4xi64>
  %h = ge.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  ge.return %h : (tensor<1xi64>) -> ()
}

// -----

// A gather of the batch dim reads a dynamic dim: it stays, and so does the shape.
// CHECK-LABEL: ge.graph @gather_dynamic_dim
// CHECK:         %s = ge.shape %x
// CHECK-NEXT:    %b = ge.gather %s, %i
ge.graph @gather_dynamic_dim(%x: tensor<?x3x13x11xf32>) -> tensor<1xi64> {
  %i = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.shape %x : (tensor<?x3x13x11xf32>) -> tensor<4xi64>
  %b = ge.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  ge.return %b : (tensor<1xi64>) -> ()
}

// -----

// Shape with start/end reading static dims only, and Shape -> Slice[2:4].
// CHECK-LABEL: ge.graph @shape_range
// CHECK-NEXT:    %hw = ge.const {value = dense<[13, 11]> : tensor<2xi64>}
// CHECK-NEXT:    %sliced = ge.const {value = dense<[13, 11]> : tensor<2xi64>}
// CHECK-NEXT:    ge.return %hw, %sliced
ge.graph @shape_range(%x: tensor<?x3x13x11xf32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %hw = ge.shape %x {start = 2 : i64} : (tensor<?x3x13x11xf32>) -> tensor<2xi64>
  %s = ge.shape %x : (tensor<?x3x13x11xf32>) -> tensor<4xi64>
  %b = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %e = ge.const {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %sliced = ge.slice %s, %b, %e : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  ge.return %hw, %sliced : (tensor<2xi64>, tensor<2xi64>) -> ()
}

// -----

// A shape reading the batch stays; a size of a partly dynamic value too.
// CHECK-LABEL: ge.graph @shape_dynamic
// CHECK:         ge.shape %x {end = 2 : i64}
// CHECK:         ge.size %x
ge.graph @shape_dynamic(%x: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<i64>) {
  %s = ge.shape %x {end = 2 : i64} : (tensor<?x3xf32>) -> tensor<2xi64>
  %n = ge.size %x : (tensor<?x3xf32>) -> tensor<i64>
  ge.return %s, %n : (tensor<2xi64>, tensor<i64>) -> ()
}

// -----

// timm's "same" padding: pad = max((ceil(H / s) - 1) * s + k - H, 0), split in
// two halves, from the static H of a batch-symbolic input; the pads fold to one
// constant, the Pad reads it.
// CHECK-LABEL: ge.graph @same_padding
// CHECK-NEXT:    %pads = ge.const {value = dense<[0, 0, 1, 0, 0, 0, 1, 0]> : tensor<8xi64>}
// CHECK-NEXT:    %xp = ge.pad %x, %pads
// CHECK-NEXT:    ge.return %xp
ge.graph @same_padding(%x: tensor<?x3x13x11xf32>) -> tensor<?x3x?x11xf32> {
  %i2 = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %sf = ge.const {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %si = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %k = ge.const {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %zero = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %two = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %z2 = ge.const {value = dense<0> : tensor<2xi64>} : () -> tensor<2xi64>
  %z1 = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.shape %x : (tensor<?x3x13x11xf32>) -> tensor<4xi64>
  %h = ge.gather %s, %i2 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %hf = ge.cast %h {to = f32} : (tensor<1xi64>) -> tensor<1xf32>
  %q = ge.div %hf, %sf : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
  %c = ge.ceil %q : (tensor<1xf32>) -> tensor<1xf32>
  %ci = ge.cast %c {to = i64} : (tensor<1xf32>) -> tensor<1xi64>
  %m1 = ge.sub %ci, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %ms = ge.mul %m1, %si : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %a = ge.add %ms, %k : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %p = ge.sub %a, %h : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %pad = ge.max %p, %zero : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %lo = ge.div %pad, %two : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %hi = ge.sub %pad, %lo : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %pads = ge.concat %z2, %lo, %z1, %z2, %hi, %z1 {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<8xi64>
  %xp = ge.pad %x, %pads : (tensor<?x3x13x11xf32>, tensor<8xi64>) -> tensor<?x3x?x11xf32>
  ge.return %xp : (tensor<?x3x?x11xf32>) -> ()
}

// -----

// A float result larger than a shape vector folds too, as GE's constant
// folding folds every node whose inputs are all constants.
// CHECK-LABEL: ge.graph @float_data
// CHECK-NEXT:    %m = ge.const {value = dense<2.250000e+00> : tensor<16xf32>}
// CHECK-NEXT:    ge.return %m
ge.graph @float_data() -> tensor<16xf32> {
  %c = ge.const {value = dense<1.5> : tensor<16xf32>} : () -> tensor<16xf32>
  %m = ge.mul %c, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  ge.return %m : (tensor<16xf32>) -> ()
}

// -----

// A reshape or expand to its operand's own type is dropped only when the type is
// static: ?x2x?x? to ?x2x?x? may swap the dynamic extents (XLNet's relative
// shift reshapes b x n x i x j to b x n x j x i), and an expand to ?x? may
// broadcast a dim that is 1 at run time. A static one is its operand.
// CHECK-LABEL: ge.graph @same_type_dynamic
// CHECK:         %swapped = ge.reshape %x, %s
// CHECK:         %wide = ge.expand %y, %t
// CHECK:         ge.return %swapped, %wide, %z
ge.graph @same_type_dynamic(%x: tensor<?x2x?x?xf32>, %y: tensor<?x?xf32>, %z: tensor<2x3xf32>, %s: tensor<4xi64>, %t: tensor<2xi64>) -> (tensor<?x2x?x?xf32>, tensor<?x?xf32>, tensor<2x3xf32>) {
  %swapped = ge.reshape %x, %s : (tensor<?x2x?x?xf32>, tensor<4xi64>) -> tensor<?x2x?x?xf32>
  %wide = ge.expand %y, %t : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %c = ge.const {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %same = ge.reshape %z, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  ge.return %swapped, %wide, %same : (tensor<?x2x?x?xf32>, tensor<?x?xf32>, tensor<2x3xf32>) -> ()
}

// canonicalize replaces a ge.if on a constant by its taken branch (the other is
// never looked at again) and a ge.loop that runs no iteration by its initial values.
// RUN: ge-opt %s --canonicalize --split-input-file | filecheck %s

// CHECK-LABEL: ge.graph @if_true
// CHECK-NOT:     ge.if
// CHECK-NOT:     ge.neg
// CHECK:         %t = ge.relu %x
// CHECK-NEXT:    ge.return %t
ge.graph @if_true(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %r = ge.if %c ({
    %t = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %t : (tensor<4xf32>) -> ()
  }, {
    %e = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %e : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

// The condition folds first (a static dim compared with 1), then the If.
// CHECK-LABEL: ge.graph @if_on_static_dim
// CHECK-NOT:     ge.if
// CHECK:         %e = ge.neg %x
// CHECK-NEXT:    %y = ge.sigmoid %e
ge.graph @if_on_static_dim(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %i = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %s = ge.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  %d = ge.gather %s, %i {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %c = ge.equal %d, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  %r = ge.if %c ({
    %t = ge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ge.yield %t : (tensor<?x4xf32>) -> ()
  }, {
    %e = ge.neg %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    ge.yield %e : (tensor<?x4xf32>) -> ()
  }) : (tensor<1xi1>) -> tensor<?x4xf32>
  %y = ge.sigmoid %r : (tensor<?x4xf32>) -> tensor<?x4xf32>
  ge.return %y : (tensor<?x4xf32>) -> ()
}

// -----

// A condition known only at run time: the If stays.
// CHECK-LABEL: ge.graph @if_runtime
// CHECK:         ge.if %c
ge.graph @if_runtime(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.if %c ({
    %t = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %t : (tensor<4xf32>) -> ()
  }, {
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

// A branch yielding a more static type than the op's result would change the
// graph's signature: that If stays (specialize-shapes, which rewrites the
// signature, inlines it).
// CHECK-LABEL: ge.graph @if_keeps_signature
// CHECK:         ge.if %c
ge.graph @if_keeps_signature(%x: tensor<4xf32>) -> tensor<?xf32> {
  %c = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %r = ge.if %c ({
    ge.yield %x : (tensor<4xf32>) -> ()
  }, {
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  ge.return %r : (tensor<?xf32>) -> ()
}

// -----

// A loop with a trip count of 0 is its initial values; its body is never inferred.
// CHECK-LABEL: ge.graph @loop_never_runs
// CHECK-NOT:     ge.loop
// CHECK:         ge.return %x
ge.graph @loop_never_runs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %m = ge.const {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %none = ge.none : () -> none
  %r = ge.loop %m, %none, %x ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<4xf32>):
    %n = ge.neg %v : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %cond, %n : (tensor<i1>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, none, tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

// A loop that runs keeps its body.
// CHECK-LABEL: ge.graph @loop_runs
// CHECK:         ge.loop
ge.graph @loop_runs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %m = ge.const {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %none = ge.none : () -> none
  %r = ge.loop %m, %none, %x ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<4xf32>):
    %n = ge.neg %v : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %cond, %n : (tensor<i1>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, none, tensor<4xf32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}

// -----

// Inside a branch, an identity to a less static type is a cast (what
// specialize-shapes leaves where a branch that may not run reads a bound value):
// it stays; one that changes nothing goes.
// CHECK-LABEL: ge.graph @cast_in_branch
// CHECK:         ge.if %c
// CHECK-NEXT:      %wide = ge.identity %x : (tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT:      %n = ge.neg %wide
// CHECK-NOT:       ge.identity
ge.graph @cast_in_branch(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<?xf32> {
  %r = ge.if %c ({
    %wide = ge.identity %x : (tensor<4xf32>) -> tensor<?xf32>
    %n = ge.neg %wide : (tensor<?xf32>) -> tensor<?xf32>
    ge.yield %n : (tensor<?xf32>) -> ()
  }, {
    %same = ge.identity %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %same : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  ge.return %r : (tensor<?xf32>) -> ()
}

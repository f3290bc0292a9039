// ge-run on ge.case: the task sink runs the branch the index picks on the
// device (one rt.label_switch, one launch), equal to the host-driven path
// (GE's runtime v2 reads the index back); an index out of range, negative or
// past the last branch, runs the last branch, as GE's GenIndexForCase does.
// RUN: %python -c "import numpy as np; np.savez('%t.1.npz', i=np.array(1, np.int32), x=np.array([1, -2, 3, -4], np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t.9.npz', i=np.array(9, np.int32), x=np.array([1, -2, 3, -4], np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t.m.npz', i=np.array(-3, np.int32), x=np.array([1, -2, 3, -4], np.float32))"
// RUN: ge-run %s --inputs %t.1.npz | filecheck %s --check-prefix=ONE
// RUN: ge-run %s --inputs %t.9.npz | filecheck %s --check-prefix=LAST
// RUN: ge-run %s --inputs %t.m.npz | filecheck %s --check-prefix=LAST
// RUN: ge-run %s --timing-only | filecheck %s --check-prefix=TIMING

// |x| + x = [2, 0, 6, 0]: mean 2
// ONE: control         1 switch, {{[0-9]+}} activation{{s?}}, 0 loop iterations
// ONE-NEXT: sink vs host    task sink {{[0-9.]+}} us, 1 launch(es), 0 host round trips; host-driven {{[0-9.]+}} us ({{.*}}), {{[0-9]+}} launches, 1 host round trips: {{.*}}; outputs differ by 0 at most
// ONE: races           none
// ONE: y: float32[4] mean=2

// x + x: mean -1
// LAST: control         1 switch
// LAST: races           none
// LAST: y: float32[4] mean=-1

// Timing only: the switch is assumed to take the last branch.
// TIMING: control         1 switch, {{.*}}(branches assumed: timing only)

ge.graph @main(%i: tensor<i32> {ge.name = "i"}, %x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}) {
  %r = ge.case %i ({
    %a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %a : (tensor<4xf32>) -> ()
  }, {
    %b = ge.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    %b2 = ge.abs %b : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %b2 : (tensor<4xf32>) -> ()
  }, {
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  %y = ge.add %r, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %y : (tensor<4xf32>) -> ()
}

// ge-run on GE's switch/merge: a diamond runs in the task sink and is compared
// with the host-driven path (runtime v2: the host reads the predicate back once
// and launches only the taken branch); a graph that returns a value of a
// switch branch no merge joins runs host-driven and, when that branch is not
// taken, fails at the ge.return with a located error (TF's dead tensor).
// RUN: %python -c "import numpy as np; np.savez('%t.npz', p=np.array(False), x=np.array([1, -2, 3, -4], np.float32))"
// RUN: ge-run %s --inputs %t.npz | filecheck %s
// RUN: not ge-run %S/Inputs/switch_dead_output.mlir --inputs %t.npz 2>&1 | filecheck %s --check-prefix=DEAD
// RUN: not ge-run %S/Inputs/switch_dead_output.mlir --interpret --inputs %t.npz 2>&1 | filecheck %s --check-prefix=DEAD

// CHECK: control         2 switches, 2 activations
// CHECK-NEXT: sink vs host    task sink {{[0-9.]+}} us, 1 launch(es), 0 host round trips; host-driven {{[0-9.]+}} us ({{.*}}), {{[0-9]+}} launches, 1 host round trips: {{.*}}; outputs differ by 0 at most
// CHECK: races           none
// false: -x * x = [-1, -4, -9, -16]: mean -7.5
// CHECK: y: float32[4] mean=-7.5
// CHECK: k: int32[] mean=0

// DEAD: switch_dead_output.mlir:4:3: error: output 'y' comes from a ge.switch branch that did not run (no ge.merge joins it)
// DEAD-NEXT: ge.return %a
// DEAD-NEXT: ^

ge.graph @main(%p: tensor<i1> {ge.name = "p"}, %x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}, tensor<i32> {ge.name = "k"}) {
  %f, %t = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %a = ge.neg %f : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.relu %t : (tensor<4xf32>) -> tensor<4xf32>
  %b2 = ge.add %b, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m, %i = ge.merge %a, %b2 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  %y = ge.mul %m, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %y, %i : (tensor<4xf32>, tensor<i32>) -> ()
}

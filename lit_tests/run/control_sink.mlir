// ge-run on static control flow: the task sink (GE's runtime v1 for static
// shapes) runs ge.if and the loop on the device, one launch; the report
// compares it with the same model and inputs run host-driven (runtime v2).
// RUN: %python -c "import numpy as np; np.savez('%t.npz', p=np.array(True), m=np.array(3, np.int64), c=np.array(True), x=np.array([1, -2, 3, -4], np.float32))"
// RUN: ge-run %s --inputs %t.npz | filecheck %s
// RUN: ge-run %s --inputs %t.npz --report json | filecheck %s --check-prefix=JSON
// Host mode: the one task list is launched task by task from the host (its launches are its task runs).
// RUN: ge-run %s --inputs %t.npz --mode host | filecheck %s --check-prefix=HOST
// Timing only: branches and trips are assumed, and the host-driven path cannot run.
// RUN: ge-run %s --timing-only | filecheck %s --check-prefix=TIMING

// CHECK: control         5 switches, {{[0-9]+}} activations, 3 loop iterations
// CHECK-NEXT: sink vs host    task sink {{[0-9.]+}} us, 1 launch(es), 0 host round trips; host-driven {{[0-9.]+}} us ({{.*}}), {{[0-9]+}} launches, 4 host round trips
// CHECK: races           none
// relu(x) + 3x = [4, -6, 12, -12]: mean -0.5
// CHECK: y: float32[4] mean=-0.5

// HOST: sink vs host    one task list (host mode) {{[0-9.]+}} us, {{[0-9]+}} launch(es), 0 host round trips; host-driven {{[0-9.]+}} us ({{[0-9]+}} host launches included), {{[0-9]+}} launches, 4 host round trips

// JSON: "sink_vs_host": {
// JSON: "host_round_trips": 0
// JSON: "host_round_trips": 4

// TIMING: control         3 switches, {{[0-9]+}} activations, 1 loop iteration, {{[0-9]+}} task runs (branches assumed: timing only)
// TIMING-NEXT: sink vs host    task sink {{[0-9.]+}} us, 1 launch(es); host-driven not run (timing only: the host reads predicates and trip counts from the numerics)

ge.graph @main(%p: tensor<i1> {ge.name = "p"}, %m: tensor<i64> {ge.name = "m"}, %c: tensor<i1> {ge.name = "c"},
               %x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}) {
  %a = ge.if %p ({
    %r = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %r : (tensor<4xf32>) -> ()
  }, {
    ge.yield %x : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  %y = ge.loop %m, %c, %a ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    %n = ge.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ge.yield %ci, %n : (tensor<i1>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %y : (tensor<4xf32>) -> ()
}

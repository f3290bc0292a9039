// reuse-memory inside a loop body: the body's tensors reuse each other's
// bytes, and its plan serves every trip; the carried value keeps the loop's
// result buffer, and the yielded value lives to the body's end (the trip's
// end copies it there). %a -> %b -> %s is a chain (two 512 B buffers), %e
// takes %b's bytes: the body needs 1 KiB, not the 2 KiB of its four tensors.
// RUN: ge-opt %s --reuse-memory | filecheck %s
// RUN: ge-opt %s --reuse-memory -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// Before and after on the device: the same numbers, no race, a smaller arena.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', m=np.array(64, np.int64), x=np.linspace(-1, 1, 128).astype(np.float32))"
// RUN: ge-opt %s --lower-to-tasks | ge-run - --inputs %t.npz --no-compare | filecheck %s --check-prefix=BEFORE
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - --inputs %t.npz --no-compare | filecheck %s --check-prefix=AFTER
// A region buffer in a plan too big for the device is named by its control op.
// RUN: sed -e 's/128xf32/131072x32768xf32/g' %s > %t.huge.mlir
// RUN: not ge-opt %t.huge.mlir --reuse-memory 2>&1 | filecheck %s --check-prefix=HUGE

// CHECK: ge.arena_bytes = 1536 : i64, ge.memory = {{{.*}} lower_bound = 1536 : i64, {{.*}} no_reuse = 2560 : i64, regions = 1024 : i64
// CHECK: %a = ge.mul %v, %x {offsets = {{\[}}[[A:[0-9]+]]{{\]}}
// CHECK-NEXT: %b = ge.tanh %a {offsets = {{\[}}[[B:[0-9]+]]{{\]}}
// CHECK-NEXT: %s = ge.sigmoid %b {offsets = {{\[}}[[A]]{{\]}}
// CHECK-NEXT: %e = ge.add %s, %v {offsets = {{\[}}[[B]]{{\]}}
// CHECK: }) {offsets = [1024]}

// REMARK: region_loop.mlir:[[# @LINE + 12]]:8: remark: regions 1024 B (1024 B), lower bound 1024 B, no reuse 2048 B

// The task list's arena adds the zero-copy I/O (1.5 KiB) and the loop's counter and conditions (2 KiB).
// BEFORE: arena           6144 B
// BEFORE: races           none
// BEFORE: y: float32[128] mean=[[MEAN:.*]]
// AFTER: arena           5120 B
// AFTER: races           none
// AFTER: y: float32[128] mean=[[MEAN:.*]]

ge.graph @main(%m: tensor<i64> {ge.name = "m"}, %x: tensor<128xf32> {ge.name = "x"}) -> (tensor<128xf32> {ge.name = "y"}) {
  %c = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %l = ge.loop %m, %c, %x ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<128xf32>):
    %a = ge.mul %v, %x : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %b = ge.tanh %a : (tensor<128xf32>) -> tensor<128xf32>
    %s = ge.sigmoid %b : (tensor<128xf32>) -> tensor<128xf32>
    %e = ge.add %s, %v : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    ge.yield %ci, %e : (tensor<i1>, tensor<128xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<128xf32>) -> tensor<128xf32>
  %y = ge.neg %l : (tensor<128xf32>) -> tensor<128xf32>
  ge.return %y : (tensor<128xf32>) -> ()
}

// HUGE: error: reuse-memory: the plan needs {{[0-9]+}} B {{.*}} is regions of %l ({{[0-9]+}} B), %l ({{[0-9]+}} B)

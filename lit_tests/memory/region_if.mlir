// reuse-memory inside an if: each branch's tensors reuse each other's bytes,
// both branches start at one base (only one runs), and a value a branch
// computes and yields once is written into the if's result. The if's node
// holds the larger branch as one region buffer: 1 KiB (then: %a, %b, %c in
// two 512 B buffers; else: %e in one), not the 2 KiB of every branch tensor.
// RUN: ge-opt %s --reuse-memory | filecheck %s
// RUN: ge-opt %s --reuse-memory -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --reuse-memory='print-plan=true' -o /dev/null 2>&1 | filecheck %s --check-prefix=PLAN
// Before: the lowering's fresh buffers, the branches from one base but no reuse inside.
// RUN: ge-opt %s --lower-to-tasks | ge-run - --no-compare | filecheck %s --check-prefix=BEFORE
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - --no-compare | filecheck %s --check-prefix=AFTER

// CHECK: ge.arena_bytes = 1536 : i64, ge.memory = {{{.*}} lower_bound = 1536 : i64, {{.*}} no_reuse = 2560 : i64, regions = 1024 : i64
// CHECK: %r = ge.if %p
// CHECK-NEXT: %a = ge.relu %x {offsets = {{\[}}[[A:[0-9]+]]{{\]}}
// CHECK-NEXT: %b = ge.neg %a {offsets = {{\[}}[[B:[0-9]+]]{{\]}}
// CHECK-NEXT: %c = ge.abs %b {offsets = {{\[}}[[A]]{{\]}}
// CHECK-NEXT: %d = ge.sigmoid %c {offsets = {{\[}}[[R:[0-9]+]]{{\]}}
// CHECK: %e = ge.tanh %x {offsets = {{\[}}[[A]]{{\]}}
// CHECK-NEXT: %f = ge.neg %e {offsets = {{\[}}[[R]]{{\]}}
// CHECK: }) {offsets = {{\[}}[[R]]{{\]}}

// REMARK: remark: arena 1536 B ({{.*}}), lower bound 1536 B, single-stream 1536 B, no reuse 2560 B
// REMARK: region_if.mlir:[[# @LINE + 3]]:8: remark: regions 1024 B (1024 B, 512 B), lower bound 1024 B, no reuse 2048 B

ge.graph @main(%p: tensor<i1> {ge.name = "p"}, %x: tensor<128xf32> {ge.name = "x"}) -> (tensor<128xf32> {ge.name = "y"}) {
  %r = ge.if %p ({
    %a = ge.relu %x : (tensor<128xf32>) -> tensor<128xf32>
    %b = ge.neg %a : (tensor<128xf32>) -> tensor<128xf32>
    %c = ge.abs %b : (tensor<128xf32>) -> tensor<128xf32>
    %d = ge.sigmoid %c : (tensor<128xf32>) -> tensor<128xf32>
    ge.yield %d : (tensor<128xf32>) -> ()
  }, {
    %e = ge.tanh %x : (tensor<128xf32>) -> tensor<128xf32>
    %f = ge.neg %e : (tensor<128xf32>) -> tensor<128xf32>
    ge.yield %f : (tensor<128xf32>) -> ()
  }) : (tensor<i1>) -> tensor<128xf32>
  %y = ge.add %r, %x : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  ge.return %y : (tensor<128xf32>) -> ()
}

// PLAN: regions of %r {{ +}}0 {{ +}}1024 {{ +}}0..0 {{ +}}0 {{ +}}region buffer
// PLAN: arena 1536 B, lower bound 1536 B, single-stream 1536 B, no reuse 2560 B
// The task list's arena adds the zero-copy I/O (1.5 KiB) to the plan.
// BEFORE: arena           3584 B
// BEFORE: races           none
// AFTER: arena           3072 B
// AFTER: races           none

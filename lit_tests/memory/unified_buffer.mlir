// A UB-fused chain writes one result: conv -> add(residual) -> relu is one
// kernel, so the convolution's and the add's results never reach device
// memory (GE merges the chain into one node before it assigns memory). They
// take no arena bytes; they are planned apart, in the unified buffer, and the
// task list keeps them in its "ub" space. With zero-copy I/O the arena is then
// empty; the numbers are the interpreter's.
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory' | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory{print-plan=true}' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory' -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory,lower-to-tasks' | filecheck %s --check-prefix=RT
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory,lower-to-tasks' | ge-run - | filecheck %s --check-prefix=NUM
// RUN: ge-run %s --interpret | filecheck %s --check-prefix=NUM
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams,insert-events,reuse-memory' | filecheck %s --check-prefix=UNFUSED
// RUN: ge-opt %s --pass-pipeline='assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory{zero-copy-io=false print-plan=true}' -o /dev/null 2>&1 | filecheck %s --check-prefix=ARENA

// CHECK: ge.arena_bytes = 0 : i64, ge.memory = {{{.*}}unified_buffer = 1024 : i64
// CHECK: %c = ge.conv2d {{.*}}offsets = [0]
// CHECK: %a = ge.add %r, %c {{.*}}offsets = [512]

// The chain is one node: its inputs are read until its last op (node 2) and
// everything it writes is taken when its head starts (node 0).
// TABLE: %x{{ +}}512{{ +}}512{{ +}}in..2{{ +}}-{{ +}}zero-copy
// TABLE: %y{{ +}}0{{ +}}512{{ +}}0..out{{ +}}0{{ +}}zero-copy
// TABLE: %c{{ +}}0{{ +}}512{{ +}}0..2{{ +}}0{{ +}}unified buffer
// TABLE: %a{{ +}}512{{ +}}512{{ +}}0..2{{ +}}0{{ +}}unified buffer
// TABLE: arena 0 B, {{.*}}, unified buffer 1024 B

// REMARK: remark: arena 0 B (greedy-by-size), {{.*}}, unified buffer 1024 B (a fused chain's intermediates, no device memory)

// RT: op = "ge.conv2d", outputs = {{\[\["ub", 0, tensor<1x16x4x4xf16>\]\]}}
// RT: inputs = [{{\[}}"arena", 1024, tensor<1x16x4x4xf16>], ["ub", 0, tensor<1x16x4x4xf16>]]{{.*}}op = "ge.add", outputs = {{\[\["ub", 512, tensor<1x16x4x4xf16>\]\]}}
// RT: inputs = {{\[\["ub", 512, tensor<1x16x4x4xf16>\]\]}}{{.*}}op = "ge.relu", outputs = {{\[\["arena", 0, tensor<1x16x4x4xf16>\]\]}}
// RT: ub_size = 1024 : i64

// NUM: y: float16[1, 16, 4, 4] mean=1.6162

// Unfused, the convolution's and the add's results are arena buffers.
// UNFUSED: ge.arena_bytes = 1024 : i64
// UNFUSED-NOT: unified_buffer

// With the inputs and output in the arena, the chain's result may not take
// its input's bytes: the one kernel reads %x while it writes %y.
// ARENA: %x{{ +}}0{{ +}}512{{ +}}in..2
// ARENA: %y{{ +}}1024{{ +}}512{{ +}}0..out
// ARENA: arena 1536 B, lower bound 1536 B
ge.graph @main(%x: tensor<1x16x4x4xf16> {ge.name = "x"}, %r: tensor<1x16x4x4xf16> {ge.name = "r"}) -> (tensor<1x16x4x4xf16> {ge.name = "y"}) {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x16x1x1xf16>} : () -> tensor<16x16x1x1xf16>
  %c = ge.conv2d %x, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %a = ge.add %r, %c : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.relu %a : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %y : (tensor<1x16x4x4xf16>) -> ()
}

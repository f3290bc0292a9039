// Every option of reuse-memory, and its errors.
// RUN: ge-opt --list-passes | filecheck %s --check-prefix=LIST
// LIST:      --reuse-memory  Plan the arena: an offset per tensor, reusing bytes only across happens-before-ordered lifetimes
// LIST-NEXT:   algorithm=<str>  greedy-by-size (TFLite best fit), ge-blocks (GE size classes) or best (default: best)
// LIST-NEXT:   in-place=<bool>
// LIST-NEXT:   concat-in-place=<bool>
// LIST-NEXT:   zero-copy-io=<bool>
// LIST-NEXT:   memory-priority=<bool>
// LIST-NEXT:   budget=<int>
// LIST-NEXT:   max-slowdown=<float>
// LIST-NEXT:   alignment=<int>
// LIST-NEXT:   device=<str>
// LIST-NEXT:   print-plan=<bool>

// algorithm: GE's blocks host one tensor at a time, so two small tensors live
// together cannot share a dead big one's bytes; best fit packs them (see the
// input's comment): 3 KiB against 2.
// RUN: ge-opt %S/Inputs/packing.mlir --reuse-memory='algorithm=ge-blocks' | filecheck %s --check-prefix=GE
// RUN: ge-opt %S/Inputs/packing.mlir --reuse-memory='algorithm=greedy-by-size' | filecheck %s --check-prefix=GREEDY
// RUN: ge-opt %S/Inputs/packing.mlir --reuse-memory='algorithm=best' | filecheck %s --check-prefix=GREEDY
// RUN: ge-opt %S/Inputs/packing.mlir --pass-pipeline='builtin.module(reuse-memory{algorithm=ge-blocks})' | filecheck %s --check-prefix=GE
// GE: ge.arena_bytes = 3072 : i64, ge.memory = {algorithm = "ge-blocks(binary)"
// GREEDY: ge.arena_bytes = 2048 : i64, ge.memory = {algorithm = "greedy-by-size"

// alignment: 64-byte tensors packed on 64-byte boundaries.
// RUN: ge-opt %s --reuse-memory='alignment=64' | filecheck %s --check-prefix=ALIGN
// ALIGN: ge.offset = 256 : i64
// ALIGN-SAME: ge.arena_bytes = 192 : i64
// ALIGN: %a = ge.relu %x {offsets = [0]}
// ALIGN: %b = ge.neg %a {offsets = [64]}
// ALIGN: %c = ge.exp %a {offsets = [128]}

// device: a plan beyond the device memory is an error at the graph naming the
// biggest live set (the lower bound's buffers).
// RUN: not ge-opt %S/Inputs/huge.mlir --reuse-memory='device=310P3' 2>&1 | filecheck %s --check-prefix=DRAM
// RUN: ge-opt %S/Inputs/huge.mlir --reuse-memory='device=910B2' | filecheck %s --check-prefix=FITS
// DRAM: huge.mlir:4:1: error: reuse-memory: the plan needs 34359738368 B (arena 17179869184 B, zero-copy I/O 17179869184 B, weights 0 B), more than the 25769803776 B of device 310P3; the biggest live set, 17179869184 B that this schedule keeps live at once, is %{{[abc]}} (8589934592 B), %{{[abc]}} (8589934592 B)
// DRAM-NEXT: ge.graph @main
// DRAM-NEXT: ^
// DRAM-NOT: Traceback
// FITS: ge.arena_bytes = 17179869184 : i64

// Bad option values are errors, never tracebacks.
// RUN: not ge-opt %s --reuse-memory='algorithm=tflite' 2>&1 | filecheck %s --check-prefix=BAD-ALG
// RUN: not ge-opt %s --reuse-memory='alignment=0' 2>&1 | filecheck %s --check-prefix=BAD-ALIGN
// RUN: not ge-opt %s --reuse-memory='budget=-5' 2>&1 | filecheck %s --check-prefix=BAD-BUDGET
// RUN: not ge-opt %s --reuse-memory='device=nope' 2>&1 | filecheck %s --check-prefix=BAD-DEVICE
// RUN: not ge-opt %s --reuse-memory='max-slowdown=-1' 2>&1 | filecheck %s --check-prefix=BAD-SLOW
// BAD-ALG: error: reuse-memory: option 'algorithm' must be one of greedy-by-size, ge-blocks, best, got 'tflite'
// BAD-ALIGN: error: reuse-memory: option 'alignment' must be positive, got 0
// BAD-BUDGET: error: reuse-memory: option 'budget' must be non-negative, got -5
// BAD-DEVICE: error: unknown device 'nope'
// BAD-SLOW: error: reuse-memory: option 'max-slowdown' must be non-negative, got -1.0
ge.graph @main(%x: tensor<4x4xf32> {ge.name = "x"}) -> (tensor<4x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = ge.neg %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = ge.exp %a : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = ge.add %b, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  ge.return %y : (tensor<4x4xf32>) -> ()
}

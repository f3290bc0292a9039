// A chain of five elementwise ops: each tensor dies when the next op has read
// it, so the four intermediates alternate between two buffers (the optimum: two
// are live at once); the graph's input and output are zero-copy, after the arena.
// RUN: ge-opt %s --reuse-memory | filecheck %s
// RUN: ge-opt %s --reuse-memory='print-plan=true' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: ge-opt %s --reuse-memory -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU

// CHECK: ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x", ge.offset = 3072 : i64}) {{.*}} attributes {ge.arena_bytes = 2048 : i64, ge.memory = {algorithm = "greedy-by-size", events_added = 0 : i64, lower_bound = 2048 : i64, lower_bound_exact = true, no_reuse = 4096 : i64, single_stream = 2048 : i64, zero_copy = 2048 : i64}}
// CHECK-NEXT: %a = ge.relu %x {offsets = [0]}
// CHECK-NEXT: %b = ge.neg %a {offsets = [1024]}
// CHECK-NEXT: %c = ge.exp %b {offsets = [0]}
// CHECK-NEXT: %d = ge.abs %c {offsets = [1024]}
// CHECK-NEXT: %y = ge.sigmoid %d {offsets = [2048]}

// TABLE:      memory plan of @main (greedy-by-size):
// TABLE-NEXT:   tensor  offset  size  lifetime  stream  note
// TABLE-NEXT:   %x      3072    1024  in..0     -       zero-copy
// TABLE-NEXT:   %a      0       1024  0..1      0
// TABLE-NEXT:   %b      1024    1024  1..2      0
// TABLE-NEXT:   %c      0       1024  2..3      0
// TABLE-NEXT:   %d      1024    1024  3..4      0
// TABLE-NEXT:   %y      2048    1024  4..out    0       zero-copy
// TABLE-NEXT:   arena 2048 B, lower bound 2048 B, single-stream 2048 B, no reuse 4096 B, zero-copy I/O 2048 B

// REMARK: remark: arena 2048 B (greedy-by-size), lower bound 2048 B, single-stream 2048 B, no reuse 4096 B, zero-copy I/O 2048 B

// The emulator runs the planned arena (2 KiB + the zero-copy 2 KiB): no race.
// EMU: arena           4096 B (4.00 KiB)
// EMU: races           none
ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x"}) -> (tensor<16x16xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = ge.neg %a : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = ge.exp %b : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %d = ge.abs %c : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = ge.sigmoid %d : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.return %y : (tensor<16x16xf32>) -> ()
}

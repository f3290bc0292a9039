// in-place: each elementwise op of the chain is the last reader of its input
// and has its type, so it writes over it: one buffer for all four
// intermediates. Not over the zero-copy input or output, and not when the
// operand is read again later (%b is read by %e too, so %c gets its own bytes).
// RUN: ge-opt %s --reuse-memory='in-place=true' | filecheck %s
// RUN: ge-opt %s --reuse-memory='in-place=true print-plan=true' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: ge-opt %s --reuse-memory='in-place=true' --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU

// CHECK: ge.arena_bytes = 2048 : i64
// CHECK: %a = ge.relu %x {offsets = [0]}
// CHECK-NEXT: %b = ge.neg %a {offsets = [0]}
// CHECK-NEXT: %c = ge.exp %b {offsets = [1024]}
// CHECK-NEXT: %d = ge.abs %c {offsets = [1024]}
// CHECK-NEXT: %e = ge.add %d, %b {offsets = [1024]}
// CHECK-NEXT: %y = ge.sigmoid %e {offsets = [2048]}

// TABLE: %b      0       1024  0..4      0       in place of %a
// TABLE: %d      1024    1024  2..5      0       in place of %c
// TABLE: %e      1024    1024  2..5      0       in place of %d

// EMU: races           none
ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x"}) -> (tensor<16x16xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = ge.neg %a : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = ge.exp %b : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %d = ge.abs %c : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = ge.add %d, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = ge.sigmoid %e : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.return %y : (tensor<16x16xf32>) -> ()
}

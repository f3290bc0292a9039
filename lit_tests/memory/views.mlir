// A reshape and a split GE runs as no task (alias-splits) write nothing: their
// results are views of their operand's buffer, a split's each at its chunk's
// bytes (GE's ReshapeRemovePass leaves a reshape's readers reading its input; a
// no-task split's outputs reuse its input). The operand's buffer lives until
// the views' last reader, and no tensor of them takes bytes of its own: the
// arena holds %a (1 KiB) and %e, %f beside it. The emulator runs the views as
// no task and finds no race; the numbers are the interpreter's.
// RUN: ge-opt %s --pass-pipeline='assign-engines,alias-splits,reuse-memory' | filecheck %s
// RUN: ge-opt %s --pass-pipeline='assign-engines,alias-splits,reuse-memory{print-plan=true}' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: ge-opt %s --pass-pipeline='assign-engines,reuse-memory' | filecheck %s --check-prefix=TASK
// RUN: ge-opt %s --pass-pipeline='assign-engines,alias-splits,reuse-memory,lower-to-tasks' | ge-run - -o %t.emu.npz | filecheck %s --check-prefix=EMU
// RUN: ge-run %s --interpret -o %t.ref.npz
// RUN: %python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('equal' if all(np.array_equal(a[k], b[k]) for k in b) else 'differ')" %t.emu.npz %t.ref.npz | filecheck %s --check-prefix=SAME

// CHECK: ge.arena_bytes = 512 : i64, ge.memory = {{{.*}}no_reuse = 512 : i64
// CHECK: %a = ge.relu %x {{.*}}offsets = [0]
// CHECK-NEXT: %r = ge.reshape %a, %shape {{.*}}offsets = [0]
// CHECK-NEXT: %s:2 = ge.split %a {{.*}}no_task, offsets = [0, 256]
// CHECK-NEXT: %e = ge.exp %s#1 {{.*}}offsets = [512]
// CHECK-NEXT: %f = ge.neg %r {{.*}}offsets = [1024]
// TASK: ge.arena_bytes = 1536 : i64, ge.memory = {{{.*}}no_reuse = 1536 : i64
// TASK: %s:2 = ge.split %a {axis = 0 : i64, engine = "AICore", offsets = [512, 1024]}

// TABLE: memory plan of @main
// TABLE: %a {{ +}}0 {{ +}}512 {{ +}}0..4
// TABLE-NEXT: %r {{ +}}0 {{ +}}512 {{.*}} view of %a at +0
// TABLE-NEXT: %s#0 {{ +}}0 {{ +}}256 {{.*}} view of %a at +0
// TABLE-NEXT: %s#1 {{ +}}256 {{ +}}256 {{.*}} view of %a at +256

// EMU: races none
// SAME: equal

ge.graph @main(%x: tensor<2x8x16xf16> {ge.name = "x"}) -> (tensor<1x8x16xf16> {ge.name = "e"}, tensor<16x16xf16> {ge.name = "f"}) {
  %shape = ge.const {value = dense<[16, 16]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = ge.relu %x : (tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %r = ge.reshape %a, %shape : (tensor<2x8x16xf16>, tensor<2xi64>) -> tensor<16x16xf16>
  %s:2 = ge.split %a {axis = 0 : i64} : (tensor<2x8x16xf16>) -> (tensor<1x8x16xf16>, tensor<1x8x16xf16>)
  %e = ge.exp %s#1 : (tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %f = ge.neg %r : (tensor<16x16xf16>) -> tensor<16x16xf16>
  ge.return %e, %f : (tensor<1x8x16xf16>, tensor<16x16xf16>) -> ()
}

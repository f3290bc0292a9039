// A concat that runs as no task takes its inputs inside its result: with batch
// 1 the channel slices are dense byte ranges, so each producer writes its slice
// in place (GE's no-padding continuous input) and the concat copies nothing.
// The result's buffer is taken when its first producer starts; the inputs have
// no bytes of their own: a 1 KiB arena. Off, every input is a buffer of its
// own, live with the concat's result: 2 KiB. The numbers are the interpreter's.
// RUN: ge-opt %s --reuse-memory | filecheck %s
// RUN: ge-opt %s --reuse-memory='print-plan=true' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: ge-opt %s --reuse-memory -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=NUM
// RUN: ge-run %s --interpret | filecheck %s --check-prefix=NUM
// RUN: ge-opt %s --reuse-memory='concat-in-place=false' | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --reuse-memory='concat-in-place=false' -Rpass=reuse-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=OFF-REMARK

// CHECK: ge.arena_bytes = 1024 : i64, ge.memory = {{{.*}}no_reuse = 1024 : i64
// CHECK: %a = ge.relu %x {offsets = [0]}
// CHECK-NEXT: %b = ge.neg %x {offsets = [512]}
// CHECK-NEXT: %c = ge.concat %a, %b {axis = 1 : i64, offsets = [0]}

// TABLE: %c{{ +}}0{{ +}}1024{{ +}}0..3{{ +}}0
// TABLE-NEXT: %a{{ +}}0{{ +}}512{{ +}}0..3{{ +}}0{{ +}}in %c at +0
// TABLE-NEXT: %b{{ +}}512{{ +}}512{{ +}}0..3{{ +}}0{{ +}}in %c at +512

// REMARK: concat_in_place.mlir:[[# @LINE + 14]]:8: remark: its 2 inputs are written in place inside its result (no-task concat, no copy)

// NUM: out: float16[1, 32, 4, 4] mean=

// OFF: ge.arena_bytes = 2048 : i64, ge.memory = {{{.*}}no_reuse = 2048 : i64
// OFF: %a = ge.relu %x {offsets = [1024]}
// OFF-NEXT: %b = ge.neg %x {offsets = [1536]}
// OFF-NEXT: %c = ge.concat %a, %b {axis = 1 : i64, offsets = [0]}
// OFF-REMARK-NOT: inputs are written in place
// OFF-REMARK-NOT: keep buffers

ge.graph @main(%x: tensor<1x16x4x4xf16> {ge.name = "x"}) -> (tensor<1x32x4x4xf16> {ge.name = "out"}) {
  %a = ge.relu %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %b = ge.neg %x : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %c = ge.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16>
  %y = ge.exp %c : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  ge.return %y : (tensor<1x32x4x4xf16>) -> ()
}

// zero-copy-io: graph inputs and outputs get buffers of their own after the
// arena (GE's zero-copy memory: the user's tensors are bound there), outputs
// first, then inputs by size. Off, they are arena tensors like the others: an
// input dies at its last reader (%t reuses %x's bytes, %y %w's) and an output
// lives until the end.
// RUN: ge-opt %s --reuse-memory | filecheck %s --check-prefix=ON
// RUN: ge-opt %s --reuse-memory='zero-copy-io=false' | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --reuse-memory='zero-copy-io=false' --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU
// RUN: ge-opt %s --reuse-memory --lower-to-tasks | ge-run - | filecheck %s --check-prefix=EMU

// ON: ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x", ge.offset = 4096 : i64}, %w: tensor<8x8xf32> {ge.name = "w", ge.offset = 5120 : i64})
// ON-SAME: ge.arena_bytes = 2560 : i64, ge.memory = {{{.*}} no_reuse = 2560 : i64, {{.*}} zero_copy = 3072 : i64}
// ON: %a = ge.relu %x {offsets = [0]}
// ON: %v = ge.neg %w {offsets = [2048]}
// ON: %t = ge.exp %a {offsets = [1024]}
// ON: %u = ge.add %t, %t {offsets = [2560]}
// ON: %y = ge.mul %v, %v {offsets = [3584]}

// OFF: ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x", ge.offset = 0 : i64}, %w: tensor<8x8xf32> {ge.name = "w", ge.offset = 2048 : i64})
// OFF-SAME: ge.arena_bytes = 3072 : i64, ge.memory = {{{.*}} no_reuse = 5632 : i64, {{.*}} zero_copy = 0 : i64}
// OFF: %a = ge.relu %x {offsets = [1024]}
// OFF: %v = ge.neg %w {offsets = [2560]}
// OFF: %t = ge.exp %a {offsets = [0]}
// OFF: %u = ge.add %t, %t {offsets = [1024]}
// OFF: %y = ge.mul %v, %v {offsets = [2048]}

// EMU: races           none
ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"}) -> (tensor<16x16xf32> {ge.name = "u"}, tensor<8x8xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %v = ge.neg %w : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = ge.exp %a : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %u = ge.add %t, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = ge.mul %v, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  ge.return %u, %y : (tensor<16x16xf32>, tensor<8x8xf32>) -> ()
}

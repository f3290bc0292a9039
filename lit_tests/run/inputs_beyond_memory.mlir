// Inputs larger than this machine's memory are a diagnostic before any is
// drawn; and a plan beyond the device's memory whose arena holds nothing (the
// graph's inputs and outputs alone) says so rather than naming an empty set.
// RUN: not ge-run %s --interpret 2>&1 | filecheck %s --check-prefix=HOST
// HOST: ge-run: error: random inputs of these shapes need 4000000000000 B, more than this machine's {{[0-9]+}} B: bind smaller sizes, or run --timing-only
// HOST-NOT: internal error
// RUN: not ge-run %s --timing-only 2>&1 | filecheck %s --check-prefix=DEVICE
// DEVICE: error: reuse-memory: the plan needs 8000000000000 B (arena 0 B, zero-copy I/O 8000000000000 B, weights 0 B), more than the 68719476736 B of device 910B2; the arena keeps nothing live: the graph's inputs, outputs and weights alone exceed it
ge.graph @main(%x: tensor<100000x100000x100xf32>) -> (tensor<100000x100000x100xf32>) {
  %y = ge.relu %x : (tensor<100000x100000x100xf32>) -> tensor<100000x100000x100xf32>
  ge.return %y : (tensor<100000x100000x100xf32>) -> ()
}

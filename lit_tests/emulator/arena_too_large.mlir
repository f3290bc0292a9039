// An arena larger than this machine's memory cannot hold the numbers: a
// diagnostic, where numpy's allocation failed; the time alone needs no bytes,
// and its report warns that the device's memory is smaller still.
// RUN: not ge-run %s 2>&1 | filecheck %s
// CHECK: ge-run: error: the numbers need the arena and unified buffer (1e+18 bytes) in this machine's memory
// CHECK-SAME: --timing-only emulates the time alone
// CHECK-NOT: internal error
// RUN: ge-run %s --timing-only | filecheck %s --check-prefix=TIME
// TIME: warning         arena (1000000000000000000 B) and weights (0 B) exceed the device memory (68719476736 B)
module {
  rt.model ({
  ^bb0:
  }) {arena_size = 1000000000000000000 : i64, inputs = [], num_events = 0 : i64, outputs = [], sym_name = "main", weight_size = 0 : i64, weights = []} : () -> ()
}

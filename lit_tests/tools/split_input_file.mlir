// Each chunk is parsed, transformed and printed on its own; outputs are joined by
// `// -----`, and line numbers in diagnostics are those of the whole file.
// With an error and no --verify-diagnostics: exit 1, nothing written.
// RUN: not ge-opt %s --split-input-file -o %t 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not test -e %t
// With the error expected, the other chunks print.
// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: ge.graph @first
// CHECK: // -----
// CHECK: ge.graph @second
// CHECK-NOT: @broken
ge.graph @first(%a: tensor<2xf32>) {
  ge.return : () -> ()
}

// -----

// ERR: split_input_file.mlir:[[# @LINE + 3]]:16: error: use of undeclared SSA value name '%nope'
ge.graph @broken(%a: tensor<2xf32>) {
  // expected-error@+1 {{use of undeclared SSA value name '%nope'}}
  %0 = ge.relu %nope : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

// -----

ge.graph @second(%a: tensor<2xf32>) {
  ge.return : () -> ()
}

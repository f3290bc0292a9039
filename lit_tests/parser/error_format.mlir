// A diagnostic is `file:line:col: error: message`, the source line and a caret;
// the exit code is 1 and nothing is written to -o.
// RUN: not ge-opt %s -o %t.out 2>&1 | filecheck %s
// RUN: not test -e %t.out

// CHECK: error_format.mlir:[[# @LINE + 4]]:16: error: use of undeclared SSA value name '%missing'
// CHECK-NEXT: {{^}}  %0 = ge.relu %missing : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: {{^}}               ^
ge.graph @g(%a: tensor<2xf32>) {
  %0 = ge.relu %missing : (tensor<2xf32>) -> tensor<2xf32>
  ge.return : () -> ()
}

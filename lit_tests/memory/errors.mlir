// reuse-memory's diagnostics point at the op (or graph) they are about.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --reuse-memory
// RUN: not ge-opt %s --split-input-file --reuse-memory 2>&1 | filecheck %s
// CHECK: errors.mlir:12:8: error: reuse-memory: value of type tensor<?xf32> has no static size; an arena plan needs every tensor's size
// CHECK-NEXT: %a = ge.relu %x
// CHECK-NEXT: ^
// CHECK-NOT: Traceback

ge.graph @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  // expected-error@+2 {{reuse-memory: value of type tensor<?xf32> has no static size}}
  // expected-note@+1 {{'ge.relu' op result #0 has no static shape yet (tensor<?xf32>): its operands give tensor<4xf32>: specialize-shapes folds and infers it (ge-default runs it first)}}
  %a = ge.relu %x : (tensor<4xf32>) -> tensor<?xf32>
  %b = ge.neg %a : (tensor<?xf32>) -> tensor<4xf32>
  ge.return %b : (tensor<4xf32>) -> ()
}

// -----

// A dynamic graph input: the error is at the graph, with a note on binding it.
// expected-error@+2 {{reuse-memory: value of type tensor<?x4xf32> has no static size}}
// expected-note@+1 {{input 'x' dim 0 is dynamic (tensor<?x4xf32>); bind it with specialize-shapes{shapes="x=<dims>"} (in ge-default: input-shape="x=<dims>")}}
ge.graph @main(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>) {
  %a = ge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  ge.return %a : (tensor<?x4xf32>) -> ()
}

// -----

// A string has no fixed size per element (its bytes depend on its value).
// expected-error@+1 {{reuse-memory: value of type tensor<4x!ge.string> has no fixed size per element; an arena plan needs every tensor's size}}
ge.graph @main(%x: tensor<4x!ge.string>) -> (tensor<4x!ge.string>) {
  %a = ge.identity %x : (tensor<4x!ge.string>) -> tensor<4x!ge.string>
  ge.return %a : (tensor<4x!ge.string>) -> ()
}

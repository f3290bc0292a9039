// Random integer inputs lie in [0, 4), small indices; an input a Gather reads as
// indices stays below the size of the axis it indexes (a BERT's token types index
// a table of 2 rows), so a run at the defaults indexes inside its tables, on the
// emulator and in the interpreter alike (both draw the same values).
// RUN: ge-run %s 2>&1 | filecheck %s
// RUN: ge-run %s --interpret 2>&1 | filecheck %s
// CHECK-NOT: error
// CHECK: y: float32[2, 8, 4] mean=
module {
  ge.graph @main(%types: tensor<2x8xi64> {ge.name = "types"}) -> (tensor<2x8x4xf32> {ge.name = "y"}) {
    %table = ge.const {value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>} : () -> tensor<2x4xf32> loc("token_type_embeddings")
    %y = ge.gather %table, %types : (tensor<2x4xf32>, tensor<2x8xi64>) -> tensor<2x8x4xf32> loc("lookup")
    ge.return %y : (tensor<2x8x4xf32>) -> ()
  }
}

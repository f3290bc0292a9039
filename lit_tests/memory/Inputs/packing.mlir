// %a (2 KiB) dies before %b and %c (1 KiB each, live together) are made: best
// fit puts both in %a's bytes (2 KiB in all); GE's blocks give %b's block to
// %a's (level 2) but %c, live with %b, needs one of its own (3 KiB).
// Used by ../options.mlir.
ge.graph @main(%x: tensor<16x32xf32> {ge.name = "x"}, %w: tensor<16x16xf32> {ge.name = "w"}) -> (tensor<16x32xf32> {ge.name = "y"}, tensor<16x16xf32> {ge.name = "z"}) {
  %a = ge.relu %x : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = ge.neg %a : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %b = ge.relu %w : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = ge.neg %w : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %z = ge.add %b, %c : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.return %y, %z : (tensor<16x32xf32>, tensor<16x16xf32>) -> ()
}

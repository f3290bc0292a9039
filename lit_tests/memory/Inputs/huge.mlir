// Three 8 GiB intermediates in a chain (two live at once) between 8 GiB
// zero-copy I/O: 32 GiB in all, which fits a 910B2 (64 GiB) but not a 310P3
// (24 GiB). Used by ../options.mlir.
ge.graph @main(%x: tensor<65536x32768xf32> {ge.name = "x"}) -> (tensor<65536x32768xf32> {ge.name = "y"}) {
  %a = ge.relu %x : (tensor<65536x32768xf32>) -> tensor<65536x32768xf32>
  %b = ge.neg %a : (tensor<65536x32768xf32>) -> tensor<65536x32768xf32>
  %c = ge.exp %b : (tensor<65536x32768xf32>) -> tensor<65536x32768xf32>
  %y = ge.abs %c : (tensor<65536x32768xf32>) -> tensor<65536x32768xf32>
  ge.return %y : (tensor<65536x32768xf32>) -> ()
}

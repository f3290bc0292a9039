ge.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>) {
  %y = ge.relu %x : (tensor<4xf16>) -> tensor<5xf16>
  ge.return %x : (tensor<4xf16>) -> ()
}

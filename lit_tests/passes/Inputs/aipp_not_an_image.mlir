ge.graph @vector(%x: tensor<4xf32>) -> tensor<4xf32> {
  ge.return %x : (tensor<4xf32>) -> ()
}

// -----

ge.graph @dynamic_channels(%x: tensor<1x?x4x4xf32>) -> tensor<1x?x4x4xf32> {
  ge.return %x : (tensor<1x?x4x4xf32>) -> ()
}

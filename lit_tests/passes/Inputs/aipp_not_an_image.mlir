ge.graph @vector(%x: tensor<4xf32>) -> tensor<4xf32> {
  ge.return %x : (tensor<4xf32>) -> ()
}

// -----

ge.graph @dynamic_channels(%x: tensor<1x?x4x4xf32>) -> tensor<1x?x4x4xf32> {
  ge.return %x : (tensor<1x?x4x4xf32>) -> ()
}

// -----

// a TensorFlow model converted to ONNX keeps its channels last
ge.graph @channels_last(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> {
  ge.return %x : (tensor<1x8x8x3xf32>) -> ()
}

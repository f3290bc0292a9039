// A cube branch (two convolutions) beside a vector branch: on 910B2 they run on
// different cores, so the cost strategy puts them on two streams.
ge.graph @main(%x: tensor<1x64x56x56xf16> {ge.name = "x"}) -> (tensor<1x64x56x56xf16> {ge.name = "y"}) {
  %w = ge.const {value = dense<1.000000e-02> : tensor<64x64x3x3xf16>} : () -> tensor<64x64x3x3xf16>
  %a = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
  %a2 = ge.conv2d %a, %w {pads = [1, 1, 1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
  %b1 = ge.sigmoid %x : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %b2 = ge.tanh %b1 : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %y = ge.add %a2, %b2 : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  ge.return %y : (tensor<1x64x56x56xf16>) -> ()
}

// Three branches of small convolutions off one stem, summed: a graph where
// several streams pay off, small enough for the ge-bench tests.
ge.graph @main(%x: tensor<1x32x28x28xf16> {ge.name = "x"}) -> (tensor<1x32x28x28xf16> {ge.name = "y"}) {
  %w1 = ge.const {value = dense<1.000000e-02> : tensor<32x32x1x1xf16>} : () -> tensor<32x32x1x1xf16>
  %w3 = ge.const {value = dense<1.000000e-02> : tensor<32x32x3x3xf16>} : () -> tensor<32x32x3x3xf16>
  %stem = ge.relu %x : (tensor<1x32x28x28xf16>) -> tensor<1x32x28x28xf16>
  %a = ge.conv2d %stem, %w3 {pads = [1, 1, 1, 1]} : (tensor<1x32x28x28xf16>, tensor<32x32x3x3xf16>) -> tensor<1x32x28x28xf16>
  %b1 = ge.conv2d %stem, %w1 : (tensor<1x32x28x28xf16>, tensor<32x32x1x1xf16>) -> tensor<1x32x28x28xf16>
  %b = ge.sigmoid %b1 : (tensor<1x32x28x28xf16>) -> tensor<1x32x28x28xf16>
  %c1 = ge.conv2d %stem, %w3 {pads = [1, 1, 1, 1]} : (tensor<1x32x28x28xf16>, tensor<32x32x3x3xf16>) -> tensor<1x32x28x28xf16>
  %c = ge.tanh %c1 : (tensor<1x32x28x28xf16>) -> tensor<1x32x28x28xf16>
  %ab = ge.add %a, %b : (tensor<1x32x28x28xf16>, tensor<1x32x28x28xf16>) -> tensor<1x32x28x28xf16>
  %y = ge.add %ab, %c : (tensor<1x32x28x28xf16>, tensor<1x32x28x28xf16>) -> tensor<1x32x28x28xf16>
  ge.return %y : (tensor<1x32x28x28xf16>) -> ()
}

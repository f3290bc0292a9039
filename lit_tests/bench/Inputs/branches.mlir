// Two attention heads off one input, concatenated and projected: a graph
// where several streams pay off (each head's small matmuls leave cores idle),
// also as ge-default prepares it; small enough for the ge-bench tests.
ge.graph @main(%x: tensor<64x128xf16>) -> (tensor<64x128xf16>) {
  %w1 = ge.const {value = dense<9.765625e-04> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %q1 = ge.matmul %x, %w1 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %w2 = ge.const {value = dense<1.953125e-03> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %k2 = ge.matmul %x, %w2 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %w3 = ge.const {value = dense<2.929688e-03> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %v3 = ge.matmul %x, %w3 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %v4 = ge.transpose %k2 {perm = [1, 0]} : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %s5 = ge.matmul %q1, %v4 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %v6 = ge.softmax %s5 {axis = -1} : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %o7 = ge.matmul %v6, %v3 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %w4 = ge.const {value = dense<3.906250e-03> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %q8 = ge.matmul %x, %w4 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %w5 = ge.const {value = dense<4.882812e-03> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %k9 = ge.matmul %x, %w5 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %w6 = ge.const {value = dense<5.859375e-03> : tensor<128x64xf16>} : () -> tensor<128x64xf16>
  %v10 = ge.matmul %x, %w6 : (tensor<64x128xf16>, tensor<128x64xf16>) -> tensor<64x64xf16>
  %v11 = ge.transpose %k9 {perm = [1, 0]} : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %s12 = ge.matmul %q8, %v11 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %v13 = ge.softmax %s12 {axis = -1} : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %o14 = ge.matmul %v13, %v10 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %cat15 = ge.concat %o7, %o14 {axis = 1} : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x128xf16>
  %w7 = ge.const {value = dense<6.835938e-03> : tensor<128x128xf16>} : () -> tensor<128x128xf16>
  %proj16 = ge.matmul %cat15, %w7 : (tensor<64x128xf16>, tensor<128x128xf16>) -> tensor<64x128xf16>
  %res17 = ge.add %proj16, %x : (tensor<64x128xf16>, tensor<64x128xf16>) -> tensor<64x128xf16>
  ge.return %res17 : (tensor<64x128xf16>) -> ()
}

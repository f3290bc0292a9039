// A graph with a symbolic batch dim: ge-bench binds it with --input-shape batch=N.
ge.graph @main(%x: tensor<?x64xf16> {ge.name = "x", ge.symbols = ["batch", ""]}) -> (tensor<?x64xf16> {ge.name = "y"}) {
  %w = ge.const {value = dense<1.000000e-02> : tensor<64x64xf16>} : () -> tensor<64x64xf16>
  %h = ge.matmul %x, %w : (tensor<?x64xf16>, tensor<64x64xf16>) -> tensor<?x64xf16>
  %y = ge.relu %h : (tensor<?x64xf16>) -> tensor<?x64xf16>
  ge.return %y : (tensor<?x64xf16>) -> ()
}

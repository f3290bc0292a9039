// A graph with a data-dependent size (ge.nonzero): it runs as host-driven launches.
module {
  ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<2x?xi64> {ge.name = "nz"}) {
    %r = ge.relu %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %nz = ge.nonzero %r : (tensor<4x64xf32>) -> tensor<2x?xi64>
    ge.return %nz : (tensor<2x?xi64>) -> ()
  }
}

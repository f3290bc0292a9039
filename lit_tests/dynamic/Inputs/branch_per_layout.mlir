// The condition is an input; the else branch squeezes dim 1, which is invalid
// when dim 1 is not 1 (as for x=2x4x1).
ge.graph @main(%c: tensor<i1> {ge.name = "c"}, %x: tensor<?x?x?xf32> {ge.name = "x", ge.symbols = ["batch", "n", "k"]}) -> (tensor<?x?xf32> {ge.name = "y"}) {
  %ax1 = ge.const {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %ax2 = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = ge.if %c ({
    %t = ge.squeeze %x, %ax2 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %t : (tensor<?x?xf32>) -> ()
  }, {
    %e = ge.squeeze %x, %ax1 : (tensor<?x?x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
    ge.yield %e : (tensor<?x?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?x?xf32>
  %y = ge.sigmoid %r : (tensor<?x?xf32>) -> tensor<?x?xf32>
  ge.return %y : (tensor<?x?xf32>) -> ()
}

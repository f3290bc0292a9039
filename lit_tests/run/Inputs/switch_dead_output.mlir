ge.graph @main(%p: tensor<i1> {ge.name = "p"}, %x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}) {
  %f, %t = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %a = ge.neg %t : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %a : (tensor<4xf32>) -> ()
}

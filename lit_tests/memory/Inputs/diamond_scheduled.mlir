ge.graph @main(%x: tensor<16x16xf32> {ge.name = "x"}) -> (tensor<16x16xf32> {ge.name = "y"}) {
  %s = ge.relu %x {stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.record_event {event = 0, stream = 0} : () -> ()
  %a = ge.neg %s {stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.wait_event {event = 0, stream = 1} : () -> ()
  %b = ge.exp %s {stream = 1} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b2 = ge.abs %b {stream = 1} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.record_event {event = 1, stream = 1} : () -> ()
  ge.wait_event {event = 1, stream = 0} : () -> ()
  %j = ge.add %a, %b2 {stream = 0} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = ge.sigmoid %j {stream = 0} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  ge.return %y : (tensor<16x16xf32>) -> ()
}

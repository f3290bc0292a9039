// ge-run with GE's automatic mode in its pipeline: the mode schedules the run,
// and the single-stream build ge-run compares against drops it (GE refuses the
// mode together with single-stream mode).
// RUN: ge-run %s --pipeline 'ge-default{strategy=ge multi-stream-parallel-mode=LoadBalance:2}' | filecheck %s
// CHECK: pipeline        ge-default{strategy=ge multi-stream-parallel-mode=LoadBalance:2} with device=910B2
// CHECK: on 2 streams
// CHECK: speed-up over single stream
ge.graph @fork(%x: tensor<4096xf16>) -> (tensor<4096xf16>, tensor<4096xf16>) {
  %h = ge.relu %x : (tensor<4096xf16>) -> tensor<4096xf16>
  %a = ge.sigmoid %h : (tensor<4096xf16>) -> tensor<4096xf16>
  %a2 = ge.tanh %a : (tensor<4096xf16>) -> tensor<4096xf16>
  %b = ge.tanh %h : (tensor<4096xf16>) -> tensor<4096xf16>
  %b2 = ge.sigmoid %b : (tensor<4096xf16>) -> tensor<4096xf16>
  ge.return %a2, %b2 : (tensor<4096xf16>, tensor<4096xf16>) -> ()
}

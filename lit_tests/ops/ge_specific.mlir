// The ops GE has beyond ONNX: DVPP, HCCL, control flow (regions and GE's own
// switch/merge/enter frames), cache maintenance, events, and the AICPU fallback.
// RUN: ge-opt %s --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: ge.graph @dvpp
// CHECK: %img = ge.dvpp_decode %jpeg {channels = 3 : i64, height = 4 : i64, width = 6 : i64} : (tensor<1000xui8>) -> tensor<4x6x3xui8>
// CHECK: %small = ge.dvpp_resize %img {height = 2 : i64, width = 3 : i64} : (tensor<4x6x3xui8>) -> tensor<2x3x3xui8>
// GENERIC: "ge.dvpp_decode"(%arg0) {channels = 3 : i64, height = 4 : i64, width = 6 : i64} : (tensor<1000xui8>) -> tensor<4x6x3xui8>
ge.graph @dvpp(%jpeg: tensor<1000xui8>) -> tensor<2x3x3xui8> {
  %img = ge.dvpp_decode %jpeg {height = 4, width = 6, channels = 3} : (tensor<1000xui8>) -> tensor<4x6x3xui8>
  %small = ge.dvpp_resize %img {height = 2, width = 3} : (tensor<4x6x3xui8>) -> tensor<2x3x3xui8>
  ge.return %small : (tensor<2x3x3xui8>) -> ()
}

// -----

// CHECK-LABEL: ge.graph @hccl
// CHECK: ge.all_reduce %g {rank_size = 8 : i64, reduction = "sum"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: ge.all_gather %g {rank_size = 8 : i64} : (tensor<8x16xf32>) -> tensor<64x16xf32>
// CHECK: ge.broadcast %g {root = 0 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: ge.reduce_scatter %g {rank_size = 8 : i64} : (tensor<8x16xf32>) -> tensor<1x16xf32>
// GENERIC: "ge.all_gather"(%arg0) {rank_size = 8 : i64} : (tensor<8x16xf32>) -> tensor<64x16xf32>
ge.graph @hccl(%g: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<64x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>) {
  %r = ge.all_reduce %g {reduction = "sum", rank_size = 8} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = ge.all_gather %g {rank_size = 8} : (tensor<8x16xf32>) -> tensor<64x16xf32>
  %b = ge.broadcast %g {root = 0} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = ge.reduce_scatter %g {rank_size = 8} : (tensor<8x16xf32>) -> tensor<1x16xf32>
  ge.return %r, %a, %b, %s : (tensor<8x16xf32>, tensor<64x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>) -> ()
}

// -----

// GE's dataflow control: switch/merge and a loop frame.
// CHECK-LABEL: ge.graph @frames
// CHECK: %sw:2 = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: %m:2 = ge.merge %sw#0, %sw#1 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
// CHECK: %e = ge.enter %m#0 {frame_name = "while/body", is_constant = false} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %re = ge.ref_enter %x {frame_name = "while/body"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %c = ge.loop_cond %p : (tensor<i1>) -> tensor<i1>
// CHECK: %n = ge.next_iteration %e : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %o = ge.exit %n : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: %0:2 = "ge.switch"(%arg0, %arg1) : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
// GENERIC: %1:2 = "ge.merge"(%0#0, %0#1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
ge.graph @frames(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %sw:2 = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %m:2 = ge.merge %sw#0, %sw#1 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  %e = ge.enter %m#0 {frame_name = "while/body", is_constant = false} : (tensor<4xf32>) -> tensor<4xf32>
  %re = ge.ref_enter %x {frame_name = "while/body"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ge.loop_cond %p : (tensor<i1>) -> tensor<i1>
  %n = ge.next_iteration %e : (tensor<4xf32>) -> tensor<4xf32>
  %o = ge.exit %n : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %o : (tensor<4xf32>) -> ()
}

// -----

// ONNX's structured control flow imports as regions.
// CHECK-LABEL: ge.graph @structured
// CHECK: %r = ge.if %c ({
// CHECK-NEXT:   %t = ge.neg %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   ge.yield %t : (tensor<2xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT:   ge.yield %x : (tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK: %final = ge.loop %trip, %none, %r ({
// CHECK-NEXT: ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
// GENERIC: %1 = "ge.if"(%arg1) ({
// GENERIC: }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<2xf32>
ge.graph @structured(%x: tensor<2xf32>, %c: tensor<i1>, %trip: tensor<i64>) -> tensor<2xf32> {
  %none = ge.none : () -> none
  %r = ge.if %c ({
    %t = ge.neg %x : (tensor<2xf32>) -> tensor<2xf32>
    ge.yield %t : (tensor<2xf32>) -> ()
  }, {
    ge.yield %x : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  %final = ge.loop %trip, %none, %r ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = ge.add %acc, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    ge.yield %cond, %next : (tensor<i1>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, none, tensor<2xf32>) -> tensor<2xf32>
  ge.return %final : (tensor<2xf32>) -> ()
}

// -----

// Cache maintenance and explicit events (what insert-events produces).
// CHECK-LABEL: ge.graph @sync
// CHECK: ge.cmo %x {type = "prefetch"} : (tensor<4xf32>) -> ()
// CHECK: %a = ge.relu %x {stream = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: ge.record_event {event = 3 : i64, stream = 0 : i64} : () -> ()
// CHECK: ge.wait_event {event = 3 : i64, stream = 1 : i64} : () -> ()
// GENERIC: "ge.record_event"() {event = 3 : i64, stream = 0 : i64} : () -> ()
ge.graph @sync(%x: tensor<4xf32>) -> tensor<4xf32> {
  ge.cmo %x {type = "prefetch"} : (tensor<4xf32>) -> ()
  %a = ge.relu %x {stream = 0} : (tensor<4xf32>) -> tensor<4xf32>
  ge.record_event {event = 3, stream = 0} : () -> ()
  ge.wait_event {event = 3, stream = 1} : () -> ()
  %b = ge.sigmoid %a {stream = 1} : (tensor<4xf32>) -> tensor<4xf32>
  ge.return %b : (tensor<4xf32>) -> ()
}

// -----

// An ONNX op with no ge counterpart runs on AICPU through ONNX's reference evaluator.
// CHECK-LABEL: ge.graph @fallback
// CHECK: %y = ge.onnx_op %x {alpha = 2.000000e+00 : f32, domain = "", op_type = "Celu", opset = 18 : i64} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: %z = ge.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: %p = ge.global_lp_pool %i {p = 2 : i64} : (tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32>
// CHECK: %n = ge.random_normal {dtype = f32, shape = [2, 2]} : () -> tensor<2x2xf32>
// GENERIC: "ge.onnx_op"(%arg0) {alpha = 2.000000e+00 : f32, domain = "", op_type = "Celu", opset = 18 : i64}
ge.graph @fallback(%x: tensor<3xf32>, %a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %i: tensor<1x3x5x5xf32>) -> (tensor<3xf32>, tensor<2x3x5xf32>) {
  %y = ge.onnx_op %x {op_type = "Celu", domain = "", opset = 18, alpha = 2.0 : f32} : (tensor<3xf32>) -> tensor<3xf32>
  %z = ge.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %p = ge.global_lp_pool %i {p = 2} : (tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32>
  %n = ge.random_normal {dtype = f32, shape = [2, 2]} : () -> tensor<2x2xf32>
  ge.return %y, %z : (tensor<3xf32>, tensor<2x3x5xf32>) -> ()
}

// A control op the task sink cannot lower (a backwards scan runs host-driven)
// keeps its regions unplanned: no offsets inside, and a remark says why.
// RUN: ge-opt %s --reuse-memory -Rpass=reuse-memory 2>&1 | filecheck %s

// CHECK: region_unplanned.mlir:[[# @LINE + 6]]:12: remark: regions not planned (the lowering gives their values fresh bytes): has scan_input_directions = [1]: the task sink scans axis 0 forwards
// CHECK: %n = ge.add %si, %xi :
// CHECK-NEXT: %q = ge.neg %n :
// CHECK: }) {num_scan_inputs = 1 : i64, offsets = [{{[0-9]+}}, {{[0-9]+}}], scan_input_directions = [1]}

ge.graph @main(%s0: tensor<128xf32>, %xs: tensor<3x128xf32>) -> (tensor<128xf32>, tensor<3x128xf32>) {
  %s, %z = ge.scan %s0, %xs ({
  ^bb0(%si: tensor<128xf32>, %xi: tensor<128xf32>):
    %n = ge.add %si, %xi : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %q = ge.neg %n : (tensor<128xf32>) -> tensor<128xf32>
    ge.yield %q, %q : (tensor<128xf32>, tensor<128xf32>) -> ()
  }) {num_scan_inputs = 1 : i64, scan_input_directions = [1]} : (tensor<128xf32>, tensor<3x128xf32>) -> (tensor<128xf32>, tensor<3x128xf32>)
  ge.return %s, %z : (tensor<128xf32>, tensor<3x128xf32>) -> ()
}

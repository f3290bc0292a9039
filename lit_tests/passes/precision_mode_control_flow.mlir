// precision-mode and control flow: under force_fp16 (and force_fp32) the ops in
// an if's branches and a loop's body change type with the op's edges (its
// results, the loop's carried values), as GE compiles a subgraph under the same
// mode: a value the regions read is cast once, outside them, and nothing is
// cast per trip. Under the other modes a region's ops keep their types.
// RUN: ge-opt %s --precision-mode='mode=force_fp16' | filecheck %s --check-prefix=FP16
// RUN: ge-opt %s --precision-mode='mode=allow_fp32_to_fp16' | filecheck %s --check-prefix=CUBE
// The same graph in f16 under force_fp32: the same edges, widened.
// RUN: sed -e 's/f32/f16/g' %s | ge-opt - --precision-mode='mode=force_fp32' | filecheck %s --check-prefix=FP32
// FP32:      %r = ge.relu %x_f32 : (tensor<4x8xf32>) -> tensor<4x8xf32>
// FP32:      ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4x8xf32>):
// FP32-NEXT:   %w = ge.add %v, %x_f32 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// FP32:      }) : (tensor<i64>, tensor<i1>, tensor<4x8xf32>) -> tensor<4x8xf32>
// FP32-NEXT: %y_f16 = ge.cast %y {to = f16} : (tensor<4x8xf32>) -> tensor<4x8xf16>
// FP16:      %x_f16 = ge.cast %x {to = f16} : (tensor<4x8xf32>) -> tensor<4x8xf16>
// FP16:      %a = ge.if %p ({
// FP16-NEXT:   %r = ge.relu %x_f16 : (tensor<4x8xf16>) -> tensor<4x8xf16>
// FP16-NEXT:   ge.yield %r : (tensor<4x8xf16>) -> ()
// FP16-NEXT: }, {
// FP16-NEXT:   %s = ge.sigmoid %x_f16 : (tensor<4x8xf16>) -> tensor<4x8xf16>
// FP16-NEXT:   ge.yield %s : (tensor<4x8xf16>) -> ()
// FP16-NEXT: }) : (tensor<i1>) -> tensor<4x8xf16>
// FP16-NEXT: %y = ge.loop %n, %t, %a ({
// FP16-NEXT: ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4x8xf16>):
// FP16-NEXT:   %w = ge.add %v, %x_f16 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
// FP16-NEXT:   ge.yield %c, %w : (tensor<i1>, tensor<4x8xf16>) -> ()
// FP16-NEXT: }) : (tensor<i64>, tensor<i1>, tensor<4x8xf16>) -> tensor<4x8xf16>
// FP16-NEXT: %y_f32 = ge.cast %y {to = f32} : (tensor<4x8xf16>) -> tensor<4x8xf32>
// FP16-NEXT: %z = ge.exp %y : (tensor<4x8xf16>) -> tensor<4x8xf16>
// FP16-NEXT: %z_f32 = ge.cast %z {to = f32} : (tensor<4x8xf16>) -> tensor<4x8xf32>
// FP16-NEXT: ge.return %y_f32, %z_f32
// CUBE-NOT:  ge.cast
// CUBE:      %r = ge.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CUBE:      %w = ge.add %v, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
ge.graph @main(%x: tensor<4x8xf32> {ge.name = "x"}, %p: tensor<i1> {ge.name = "p"}, %n: tensor<i64> {ge.name = "n"}) -> (tensor<4x8xf32> {ge.name = "y"}, tensor<4x8xf32> {ge.name = "z"}) {
  %t = ge.const {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %a = ge.if %p ({
    %r = ge.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ge.yield %r : (tensor<4x8xf32>) -> ()
  }, {
    %s = ge.sigmoid %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ge.yield %s : (tensor<4x8xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4x8xf32>
  %y = ge.loop %n, %t, %a ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4x8xf32>):
    %w = ge.add %v, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ge.yield %c, %w : (tensor<i1>, tensor<4x8xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = ge.exp %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  ge.return %y, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
}

// A filled tensor (ge.constant_of_shape) is a constant ATC folds and converts:
// under force_fp16 its fill value saturates as GE's fp16_t does, to the
// largest finite f16 of its sign.
// RUN: ge-opt %s --precision-mode='mode=force_fp16' | filecheck %s
// CHECK: ge.constant_of_shape {{.*}}value = dense<-6.550400e+04> : tensor<1xf16>{{.*}} -> tensor<2x3xf16>
// CHECK: ge.add {{.*}} -> tensor<2x3xf16>
ge.graph @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.const {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %m = ge.constant_of_shape %s {value = dense<-3.40282347e+38> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  %y = ge.add %x, %m : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  ge.return %y : (tensor<2x3xf32>) -> ()
}

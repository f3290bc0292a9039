// A ResNet basic block (conv-bn-relu twice, with the identity shortcut) and a
// classifier head, in the ge dialect's custom form. Try:
//   ge-opt examples/resnet_block.mlir --canonicalize --cse
//   ge-opt examples/resnet_block.mlir --mlir-print-op-generic
module {
  ge.graph @main(%image: tensor<1x64x56x56xf16> {ge.name = "image"}) -> (tensor<1x10xf16> {ge.name = "logits"}) {
    %w1 = ge.const {value = dense<1.000000e-02> : tensor<64x64x3x3xf16>} : () -> tensor<64x64x3x3xf16> loc("conv1.weight")
    %c1 = ge.conv2d %image, %w1 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16> loc("conv1")
    %scale = ge.const {value = dense<1.000000e+00> : tensor<64xf16>} : () -> tensor<64xf16>
    %bias = ge.const {value = dense<0.000000e+00> : tensor<64xf16>} : () -> tensor<64xf16>
    %mean = ge.const {value = dense<0.000000e+00> : tensor<64xf16>} : () -> tensor<64xf16>
    %var = ge.const {value = dense<1.000000e+00> : tensor<64xf16>} : () -> tensor<64xf16>
    %b1 = ge.batch_norm %c1, %scale, %bias, %mean, %var {epsilon = 9.99999974E-6 : f32} : (tensor<1x64x56x56xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<1x64x56x56xf16> loc("bn1")
    %r1 = ge.relu %b1 : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("relu1")
    %w2 = ge.const {value = dense<1.000000e-02> : tensor<64x64x3x3xf16>} : () -> tensor<64x64x3x3xf16> loc("conv2.weight")
    %c2 = ge.conv2d %r1, %w2 {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16> loc("conv2")
    %b2 = ge.batch_norm %c2, %scale, %bias, %mean, %var {epsilon = 9.99999974E-6 : f32} : (tensor<1x64x56x56xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<1x64x56x56xf16> loc("bn2")
    %sum = ge.add %b2, %image : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("residual")
    %r2 = ge.relu %sum : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> loc("relu2")
    %pool = ge.global_avg_pool %r2 : (tensor<1x64x56x56xf16>) -> tensor<1x64x1x1xf16> loc("pool")
    %shape = ge.const {value = dense<[1, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
    %flat = ge.reshape %pool, %shape : (tensor<1x64x1x1xf16>, tensor<2xi64>) -> tensor<1x64xf16> loc("flatten")
    %fcw = ge.const {value = dense<5.000000e-02> : tensor<10x64xf16>} : () -> tensor<10x64xf16> loc("fc.weight")
    %fcw_t = ge.transpose %fcw {perm = [1, 0]} : (tensor<10x64xf16>) -> tensor<64x10xf16>
    %logits = ge.matmul %flat, %fcw_t : (tensor<1x64xf16>, tensor<64x10xf16>) -> tensor<1x10xf16> loc("fc")
    %same = ge.identity %logits : (tensor<1x10xf16>) -> tensor<1x10xf16>
    ge.return %same : (tensor<1x10xf16>) -> ()
  }
}

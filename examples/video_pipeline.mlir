// A video analysis pipeline: DVPP decodes and resizes a
// frame, AI cores run a small CNN, AICPU picks the top-5 classes. Over several
// frames a multi-stream build lets frame k+1's decode overlap frame k's inference:
//   python -m geir.tools.ge_run_scenarios examples/video_pipeline.mlir --iterations 16
ge.graph @video_pipeline(%jpeg: tensor<60000xui8> {ge.name = "jpeg"}) -> (tensor<1x5xf16> {ge.name = "scores"}, tensor<1x5xi64> {ge.name = "classes"}) {
  %w1 = ge.const {value = dense<1.000000e-02> : tensor<64x3x3x3xf16>} : () -> tensor<64x3x3x3xf16>
  %w2 = ge.const {value = dense<1.000000e-02> : tensor<128x64x3x3xf16>} : () -> tensor<128x64x3x3xf16>
  %w3 = ge.const {value = dense<1.000000e-02> : tensor<128x128x3x3xf16>} : () -> tensor<128x128x3x3xf16>
  %wfc = ge.const {value = dense<1.000000e-02> : tensor<128x1000xf16>} : () -> tensor<128x1000xf16>
  %axes = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %img = ge.dvpp_decode %jpeg {height = 224, width = 224, channels = 3} : (tensor<60000xui8>) -> tensor<224x224x3xui8> loc("decode")
  %small = ge.dvpp_resize %img {height = 160, width = 160} : (tensor<224x224x3xui8>) -> tensor<160x160x3xui8> loc("resize")
  %f = ge.cast %small {to = f16} : (tensor<160x160x3xui8>) -> tensor<160x160x3xf16> loc("to_f16")
  %chw = ge.transpose %f {perm = [2, 0, 1]} : (tensor<160x160x3xf16>) -> tensor<3x160x160xf16> loc("to_chw")
  %x = ge.unsqueeze %chw, %axes : (tensor<3x160x160xf16>, tensor<1xi64>) -> tensor<1x3x160x160xf16> loc("batch")
  %c1 = ge.conv2d %x, %w1 {pads = [1, 1, 1, 1]} : (tensor<1x3x160x160xf16>, tensor<64x3x3x3xf16>) -> tensor<1x64x160x160xf16> loc("conv1")
  %r1 = ge.relu %c1 : (tensor<1x64x160x160xf16>) -> tensor<1x64x160x160xf16> loc("relu1")
  %c2 = ge.conv2d %r1, %w2 {pads = [1, 1, 1, 1], strides = [2, 2]} : (tensor<1x64x160x160xf16>, tensor<128x64x3x3xf16>) -> tensor<1x128x80x80xf16> loc("conv2")
  %r2 = ge.relu %c2 : (tensor<1x128x80x80xf16>) -> tensor<1x128x80x80xf16> loc("relu2")
  %c3 = ge.conv2d %r2, %w3 {pads = [1, 1, 1, 1]} : (tensor<1x128x80x80xf16>, tensor<128x128x3x3xf16>) -> tensor<1x128x80x80xf16> loc("conv3")
  %r3 = ge.relu %c3 : (tensor<1x128x80x80xf16>) -> tensor<1x128x80x80xf16> loc("relu3")
  %pool = ge.global_avg_pool %r3 : (tensor<1x128x80x80xf16>) -> tensor<1x128x1x1xf16> loc("pool")
  %flat = ge.flatten %pool {axis = 1} : (tensor<1x128x1x1xf16>) -> tensor<1x128xf16> loc("flatten")
  %logits = ge.matmul %flat, %wfc : (tensor<1x128xf16>, tensor<128x1000xf16>) -> tensor<1x1000xf16> loc("fc")
  %scores, %classes = ge.top_k %logits {k = 5, axis = -1} : (tensor<1x1000xf16>) -> (tensor<1x5xf16>, tensor<1x5xi64>) loc("top5")
  ge.return %scores, %classes : (tensor<1x5xf16>, tensor<1x5xi64>) -> ()
}

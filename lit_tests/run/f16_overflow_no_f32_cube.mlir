// On a device whose cube has no f32 (310P3), must_keep_origin_dtype rejects an
// f32 cube op, so the overflow warning names the mode the device can run:
// force_fp32, which keeps f32 in every op but the cube ops. Here the overflow
// is in a vector op, so following the hint gives finite outputs.
// RUN: ge-run %s --device 310P3 2>&1 | filecheck %s --check-prefix=F16
// F16: ge-run: warning: output 'y' holds {{[0-9]+}} non-finite value(s) of 256: under --precision-mode force_fp16 the model computes in f16, whose largest value is 65504 ({{[1-9][0-9]*}} value(s) of its ops overflowed f16 where f32 stays finite); --precision-mode force_fp32 keeps f32 in every op but the cube ops, which device 310P3 computes only in f16
// F16: y: float32[4, 64] mean={{nan|-?inf}}
// RUN: ge-run %s --device 310P3 --precision-mode force_fp32 2>&1 | filecheck %s --check-prefix=F32
// F32-NOT: warning
// F32: y: float32[4, 64] mean=
// F32-NOT: {{inf|nan}}
module {
  ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<4x64xf32> {ge.name = "y"}) {
    %c = ge.const {value = dense<1.000000e+05> : tensor<f32>} : () -> tensor<f32> loc("c")
    %y = ge.mul %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32> loc("big")
    ge.return %y : (tensor<4x64xf32>) -> ()
  }
}

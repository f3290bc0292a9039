// The V100 profile: 80 SMs are the AICore pool, 900 GB/s HBM; an f32 matmul runs
// at the CUDA cores' FP32 rate (128 FLOP/cycle/SM), an f16 one on the tensor
// cores (1024). 256x256 outputs take 65536 / 4096 = 16 SMs.
// RUN: ge-run %s --timing-only --device V100 --pipeline lower-to-tasks | filecheck %s
// RUN: ge-run %s --timing-only --device v100 --pipeline lower-to-tasks --report json | filecheck %s --check-prefix=JSON

// f32: 2 us + 33.55 MFLOP / (16 x 1530 x 128 FLOP/us) = 12.708 us;
// f16: 2 us + max(33.55 MFLOP / (16 x 1530 x 1024), 393 KB / (16 x 24.48 GB/s)) = 3.339 us
// CHECK: emulated 'main' on V100 (sink mode): 3 tasks (2 kernels,
// CHECK-NEXT: makespan {{ +}}16.04{{[0-9]}} us
// CHECK: HBM {{ +}}1179648 B (1.12 MiB) at 900 GB/s
// CHECK: AICore {{ +}}80 {{ +}}16.04{{[0-9]}}
// CHECK: idle: HCCL, SDMA

// JSON: "device": "V100",
// JSON: "longest": [
// JSON: "op": "ge.matmul",
// JSON: "duration_us": 12.708
// JSON: "op": "ge.matmul",
// JSON: "duration_us": 3.339

ge.graph @main(%x: tensor<256x256xf32> {ge.name = "x"}, %w: tensor<256x256xf32> {ge.name = "w"},
               %h: tensor<256x256xf16> {ge.name = "h"}) -> (tensor<256x256xf32> {ge.name = "y"}, tensor<256x256xf16> {ge.name = "z"}) {
  %a = ge.matmul %x, %w : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %b = ge.matmul %h, %h : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
  ge.return %a, %b : (tensor<256x256xf32>, tensor<256x256xf16>) -> ()
}

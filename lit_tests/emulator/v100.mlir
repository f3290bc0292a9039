// The V100 profile: 80 SMs are the AICore pool, 900 GB/s DRAM (810 sustained at
// dram_efficiency 0.9); an f32 matmul runs at the CUDA cores' FP32 rate (128
// FLOP/cycle/SM), an f16 one on the tensor cores (1024), each at matmul_efficiency
// 0.7. No fractal padding (cube_align 1); blocks are at least 64 x 64
// (cube_min_block), so a 256x256 output makes 16 blocks: 16 SMs (K = 256 is too
// shallow to split). Operands come from the 6 MiB L2 unless it is switched off.
// RUN: ge-run %s --timing-only --device V100 --pipeline lower-to-tasks | filecheck %s
// RUN: ge-run %s --timing-only --device v100 --pipeline lower-to-tasks --report json | filecheck %s --check-prefix=JSON
// RUN: ge-run %s --timing-only --device V100 --pipeline lower-to-tasks --device-param l2_bytes=0 | filecheck %s --check-prefix=DRAM

// f32: 6 us + max(33.55 MFLOP / (16 x 1530 x 128 x 0.7 FLOP/us), 786432 B / (16 x 1530 x 32 B/us of L2))
//      = 6 + max(15.298, 1.004) = 21.298 us (matmul_efficiency 0.7);
// f16: 6 us + max(33.55 MFLOP / (16 x 1530 x 1024 x 0.7), 393216 B / (16 x 1530 x 32)) = 6 + 1.912 = 7.912 us
// CHECK: emulated 'main' on V100 (sink mode): 3 tasks (2 kernels,
// CHECK-NEXT: checked against IOS's (MLSys 2021) batch-1 latencies and multi-stream speed-ups of four networks on a V100 {{.*}}: single-stream latencies within {{.*}}
// CHECK-NEXT: makespan {{ +}}29.21{{[0-9]}} us
// CHECK-NOT: DRAM
// The SMs are busy 15.298 + 1.912 us: on a GPU (block_dispatch) a kernel's 6 us
// fixed cost is latency its stream waits out before the kernel takes its SMs.
// CHECK: AICore {{ +}}80 {{ +}}17.21{{[0-9]}}
// CHECK: idle: HCCL, SDMA

// Without L2 the operands stream from DRAM at min(16 x 1530 x 16 B/us, 810 GB/s):
// 2.008 us (f32) and 1.004 us (f16), still under the compute; 1179648 B / 810 GB/s = 1.456 us
// A calibrated profile with a number overridden: the calibration is of the profile as shipped.
// DRAM: checked against IOS's {{.*}} within 15% (of the profile as shipped; --device-param changed l2_bytes)
// DRAM: makespan {{ +}}29.21{{[0-9]}} us
// DRAM: DRAM (HBM2) {{ +}}1179648 B (1.12 MiB) at 810 GB/s: 1.456 us

// JSON: "device": "V100",
// (a task's time on its SMs, after its 6 us latency)
// JSON: "longest": [
// JSON: "op": "ge.matmul",
// JSON: "duration_us": 15.298
// JSON: "op": "ge.matmul",
// JSON: "duration_us": 1.912

ge.graph @main(%x: tensor<256x256xf32> {ge.name = "x"}, %w: tensor<256x256xf32> {ge.name = "w"},
               %h: tensor<256x256xf16> {ge.name = "h"}) -> (tensor<256x256xf32> {ge.name = "y"}, tensor<256x256xf16> {ge.name = "z"}) {
  %a = ge.matmul %x, %w : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %b = ge.matmul %h, %h : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
  ge.return %a, %b : (tensor<256x256xf32>, tensor<256x256xf16>) -> ()
}

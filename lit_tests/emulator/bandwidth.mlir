// Concurrent kernels share the HBM bandwidth. On stream 0 a memory-bound
// matmul (K = 1: 32 MiB out) on the 24 cube cores, on stream 1 a relu over
// 32 MiB (64 MiB moved) on the 48 vector cores. With L2 off (l2_bytes=0; else
// the 192 MiB L2 would serve each kernel's activations) every byte is DRAM
// traffic and each kernel could draw the whole 1382.4 GB/s, so together they
// take their summed bytes / bandwidth (96 MiB: 72.83 us) plus the 1.9 us fixed
// kernel cost, not the relu alone (1.9 + 64 MiB / 1382.4 GB/s = 50.445 us).
// The matmul alone: 1.9 + (8 KiB + 8 KiB + 32 MiB) / (24 x 32 B x 1800 MHz) = 26.184 us,
// plus its last round of multiplications, which no load hides (2.032 us of
// compute in 22 rounds of double-buffered base blocks: 0.092 us): 26.277 us.
// With cube_pipeline_fill=0 loads and multiplications overlap fully: 26.184 us.
// RUN: ge-run %s --timing-only --device-param l2_bytes=0 | filecheck %s
// RUN: ge-run %s --timing-only --device-param l2_bytes=0 --device-param cube_pipeline_fill=0 | filecheck %s --check-prefix=OVERLAP
// RUN: ge-run %s --device-param l2_bytes=0 --sweep hbm_bandwidth_gbps=691.2,1382.4,2764.8 | filecheck %s --check-prefix=SWEEP

// CHECK: makespan {{ +}}74.730 us
// CHECK-NEXT: lower bound {{ +}}72.830 us  (bound by HBM bandwidth; HBM bandwidth 72.830, VectorCore 50.445, critical path 50.445, AICore 26.277)
// OVERLAP: lower bound {{ +}}72.830 us {{.*}} AICore 26.184)
// CHECK: HBM {{ +}}100679680 B (96.02 MiB) at 1382.4 GB/s: 72.830 us (97.5% of the makespan), saturated 48.569 us

// The makespan follows the bandwidth (at 2764.8 GB/s the vector cores' own
// 48 x 57.6 GB/s plus the cube cores' 1382.4 still ask for more than there is:
// shared 1:2 by peak rate, the relu's 64 MiB end at 36.409 us, the matmul's last
// 16 KiB at full rate 0.012 us later: 1.9 + 36.421 = 38.321 us).
// SWEEP: hbm_bandwidth_gbps {{ +}}makespan us
// SWEEP-NEXT: 691.2 {{ +}}147.559 {{ +}}145.659 HBM bandwidth {{ +}}1.013 {{ +}}1.000
// SWEEP-NEXT: 1382.4 {{ +}}74.730 {{ +}}72.830 HBM bandwidth {{ +}}1.026 {{ +}}0.506
// SWEEP-NEXT: 2764.8 {{ +}}38.321 {{ +}}36.415 HBM bandwidth {{ +}}1.052 {{ +}}0.260

ge.graph @main(%x: tensor<4096x1xf16> {ge.name = "x"}, %w: tensor<1x4096xf16> {ge.name = "w"},
               %v: tensor<4096x4096xf16> {ge.name = "v"}) -> (tensor<4096x4096xf16> {ge.name = "y"}, tensor<4096x4096xf16> {ge.name = "z"}) {
  %a = ge.matmul %x, %w {stream = 0} : (tensor<4096x1xf16>, tensor<1x4096xf16>) -> tensor<4096x4096xf16>
  %b = ge.relu %v {stream = 1} : (tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  ge.return %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> ()
}

// Concurrent kernels share the DRAM bandwidth. On stream 0 a memory-bound
// matmul (K = 1: 32 MiB out) on the 24 cube cores, on stream 1 a relu over
// 32 MiB (64 MiB moved) on the 48 vector cores. With L2 off (l2_bytes=0; else
// the 192 MiB L2 would serve each kernel's activations) every byte is DRAM
// traffic and each kernel could draw the whole 1382.4 GB/s, so together they
// take their summed bytes / bandwidth (96 MiB: 72.83 us) after the 1.9 us fixed
// kernel cost, not the relu alone (1.9 + 2.211 us of its vector pipelines' heads
// + 64 MiB / 1382.4 GB/s = 52.656 us). While the relu's heads run, the matmul
// draws alone at 99.6% of the bandwidth (it spreads its bytes over its last
// round of multiplications too): 0.008 us more, 74.738 us.
// The matmul alone: 1.9 + (8 KiB + 8 KiB + 32 MiB) / (24 x 32 B x 1800 MHz) = 26.184 us,
// plus its last round of multiplications, which no load hides (2.032 us of
// compute in 22 rounds of double-buffered base blocks: 0.092 us): 26.277 us.
// With cube_pipeline_fill=0 loads and multiplications overlap fully: 26.184 us.
// RUN: ge-run %s --timing-only --device-param l2_bytes=0 | filecheck %s
// RUN: ge-run %s --timing-only --device-param l2_bytes=0 --device-param cube_pipeline_fill=0 | filecheck %s --check-prefix=OVERLAP
// RUN: ge-run %s --device-param l2_bytes=0 --sweep dram_bandwidth_gbps=691.2,1382.4,2764.8 | filecheck %s --check-prefix=SWEEP

// CHECK: makespan {{ +}}74.738 us
// CHECK-NEXT: lower bound {{ +}}72.830 us  (bound by DRAM bandwidth; DRAM bandwidth 72.830, VectorCore 52.656, critical path 52.656, AICore 26.277)
// OVERLAP: lower bound {{ +}}72.830 us {{.*}} AICore 26.184)
// CHECK: DRAM (HBM) {{ +}}100679680 B (96.02 MiB) at 1382.4 GB/s: 72.830 us (97.5% of the makespan), saturated 44.163 us

// The makespan follows the bandwidth (at 2764.8 GB/s the vector cores' own
// 48 x 57.6 GB/s plus the cube cores' 1382.4 still ask for more than there is:
// once the relu's heads end at 4.111 us, shared 1:2 by peak rate, the matmul's
// last 30.5 MB end at 37.234 us, and the relu's last 6.1 MB at its full rate
// 2.191 us later: 39.425 us).
// SWEEP: dram_bandwidth_gbps {{ +}}makespan us
// SWEEP-NEXT: 691.2 {{ +}}147.563 {{ +}}145.659 DRAM bandwidth {{ +}}1.013 {{ +}}1.000
// SWEEP-NEXT: 1382.4 {{ +}}74.738 {{ +}}72.830 DRAM bandwidth {{ +}}1.026 {{ +}}0.506
// SWEEP-NEXT: 2764.8 {{ +}}39.425 {{ +}}36.415 DRAM bandwidth {{ +}}1.083 {{ +}}0.267

ge.graph @main(%x: tensor<4096x1xf16> {ge.name = "x"}, %w: tensor<1x4096xf16> {ge.name = "w"},
               %v: tensor<4096x4096xf16> {ge.name = "v"}) -> (tensor<4096x4096xf16> {ge.name = "y"}, tensor<4096x4096xf16> {ge.name = "z"}) {
  %a = ge.matmul %x, %w {stream = 0} : (tensor<4096x1xf16>, tensor<1x4096xf16>) -> tensor<4096x4096xf16>
  %b = ge.relu %v {stream = 1} : (tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  ge.return %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> ()
}

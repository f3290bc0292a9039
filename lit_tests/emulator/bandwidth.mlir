// Concurrent kernels share the HBM bandwidth. On stream 0 a memory-bound
// matmul (K = 1: 32 MiB out) on the 24 cube cores, on stream 1 a relu over
// 32 MiB (64 MiB moved) on the 48 vector cores: each could draw the whole
// 1382.4 GB/s, so together they take their summed bytes / bandwidth
// (96 MiB: 72.83 us) plus the 2 us fixed kernel cost, not the relu alone (50.5 us).
// RUN: ge-run %s --timing-only | filecheck %s
// RUN: ge-run %s --sweep hbm_bandwidth_gbps=691.2,1382.4,2764.8 | filecheck %s --check-prefix=SWEEP

// CHECK: makespan {{ +}}74.830 us
// CHECK-NEXT: lower bound {{ +}}72.830 us  (bound by HBM bandwidth; HBM bandwidth 72.830, VectorCore 50.545, critical path 50.545, AICore 26.284)
// CHECK: HBM {{ +}}100679680 B (96.02 MiB) at 1382.4 GB/s: 72.830 us (97.3% of the makespan), saturated 48.569 us

// The makespan follows the bandwidth (at 2764.8 GB/s the vector cores' own
// 48 x 57.6 GB/s plus the cube cores' 1382.4 still ask for more than there is).
// SWEEP: hbm_bandwidth_gbps {{ +}}makespan us
// SWEEP-NEXT: 691.2 {{ +}}147.659 {{ +}}145.659 HBM bandwidth {{ +}}1.014 {{ +}}1.000
// SWEEP-NEXT: 1382.4 {{ +}}74.830 {{ +}}72.830 HBM bandwidth {{ +}}1.028 {{ +}}0.507
// SWEEP-NEXT: 2764.8 {{ +}}38.421 {{ +}}36.415 HBM bandwidth {{ +}}1.055 {{ +}}0.260

ge.graph @main(%x: tensor<4096x1xf16> {ge.name = "x"}, %w: tensor<1x4096xf16> {ge.name = "w"},
               %v: tensor<4096x4096xf16> {ge.name = "v"}) -> (tensor<4096x4096xf16> {ge.name = "y"}, tensor<4096x4096xf16> {ge.name = "z"}) {
  %a = ge.matmul %x, %w {stream = 0} : (tensor<4096x1xf16>, tensor<1x4096xf16>) -> tensor<4096x4096xf16>
  %b = ge.relu %v {stream = 1} : (tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  ge.return %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> ()
}

// On the 910B a vector kernel costs the instructions its CANN kernel issues per
// element, at Huawei's per-instruction cycles (vector_api_cycles). A Sigmoid of
// 3,145,728 f16 elements on the 48 vector cores, 65,536 each: cast to f32
// (0.0147 cycles), x -1 (0.0142), exp (0.0307), + 1 (0.0141), 1 / (0.0454), cast
// back (0.0087) = 0.1278 cycles an element, 8,375.5 cycles at 1,800 MHz and
// vector_efficiency 0.8844: 5.261 us. Each instruction also pays its fixed cycles
// once a UB tile: TBE keeps three f32 tensors alive, so a double-buffered tile
// holds 192 KiB / 2 / 3 / 4 B = 8,192 elements, eight tiles a core, each 142.88
// cycles (casts 20.12 and 20.44, muls 23.10, exp 28.04, adds 22.09, div 29.09):
// 0.635 us. Its 12 MiB stay in L2 (1.324 us, hidden under the compute). Its fixed
// cost is 1.9 us and the pipelines' heads: the op's 300 cycles, the first load's
// 1,575.03 + 32.72 x 48 (each core loads 128 KiB, over 25,000 B), the last
// store's 497.36 and the vector pipe's 37.37: 3,980.3 cycles, 2.211 us.
// 1.9 + 2.211 + 5.261 + 0.635 = 10.008 us.
// RUN: ge-run %s --timing-only | filecheck %s
// Counting lanes instead (the cost hint's 4 FLOPs an element at 128 lanes x
// vector_efficiency, no heads): 262,144 FLOPs a core at 203,766 a us, 1.287 us,
// under the 1.324 us of L2: 1.9 + 1.324 = 3.224 us.
// RUN: ge-run %s --timing-only --device-param vector_api_cycles=false | filecheck %s --check-prefix=LANES
// RUN: not ge-run %s --timing-only --device-param vector_api_cycles=2 2>&1 | filecheck %s --check-prefix=BAD

// CHECK: makespan {{ +}}10.008 us
// CHECK: VectorCore {{ +}}48 {{ +}}10.008
// LANES: makespan {{ +}}3.224 us
// BAD: error: --device-param: 'vector_api_cycles' must be true or false, got '2'

ge.graph @main(%x: tensor<48x65536xf16> {ge.name = "x"}) -> (tensor<48x65536xf16> {ge.name = "y"}) {
  %y = ge.sigmoid %x : (tensor<48x65536xf16>) -> tensor<48x65536xf16>
  ge.return %y : (tensor<48x65536xf16>) -> ()
}

// partition-streams: each strategy on graphs whose right answer is obvious.
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=single}' | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover}' | filecheck %s --check-prefix=CHAIN
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover max-streams=1}' | filecheck %s --check-prefix=CAP
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=cost}' | filecheck %s --check-prefix=COST
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=optimal time-limit=5}' -Rpass=partition-streams 2>&1 | filecheck %s --check-prefix=OPT

// Two independent chains of big convolutions that each fill only part of the cores.
// SINGLE-LABEL: ge.graph @two_chains
// SINGLE-COUNT-4: stream = 0 : i64
// CHAIN-LABEL: ge.graph @two_chains
// CHAIN: %a1 = {{.*}}stream = 0 : i64
// CHAIN: %a2 = {{.*}}stream = 0 : i64
// CHAIN: %b1 = {{.*}}stream = 1 : i64
// CHAIN: %b2 = {{.*}}stream = 1 : i64
// CAP-LABEL: ge.graph @two_chains
// CAP-COUNT-4: stream = 0 : i64
// COST-LABEL: ge.graph @two_chains
// COST-DAG: %a1 = {{.*}}stream = [[CA:[0-9]+]] : i64
// COST-DAG: %a2 = {{.*}}stream = [[CA]] : i64
// COST-DAG: %b1 = {{.*}}stream = [[CB:[0-9]+]] : i64
// COST-DAG: %b2 = {{.*}}stream = [[CB]] : i64
// OPT: remark: optimal: proven optimum
ge.graph @two_chains(%x: tensor<1x16x32x32xf16>, %y: tensor<1x16x32x32xf16>) -> (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) {
  %w = ge.const {value = dense<1.000000e-02> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %a1 = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %a2 = ge.conv2d %a1, %w {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %b1 = ge.conv2d %y, %w {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  %b2 = ge.conv2d %b1, %w {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  ge.return %a2, %b2 : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> ()
}

// -----

// A chain: one stream whatever the strategy.
// SINGLE-LABEL: ge.graph @chain
// CHAIN-LABEL: ge.graph @chain
// CHAIN-COUNT-3: stream = 0 : i64
// CHAIN-NOT: stream = 1
// COST-LABEL: ge.graph @chain
// COST-COUNT-3: stream = 0 : i64
// COST-NOT: stream = 1
ge.graph @chain(%x: tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16> {
  %a = ge.relu %x : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %b = ge.sigmoid %a : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %c = ge.tanh %b : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  ge.return %c : (tensor<1x16x32x32xf16>) -> ()
}

// -----

// An all-reduce beside compute: the collective overlaps the independent convolution.
// COST-LABEL: ge.graph @allreduce_beside_compute
// COST-DAG: %g = ge.all_reduce {{.*}}stream = [[H:[0-9]+]] : i64
// COST-DAG: %c = ge.conv2d {{.*}}stream = [[C:[0-9]+]] : i64
// CHAIN-LABEL: ge.graph @allreduce_beside_compute
// CHAIN-DAG: %g = ge.all_reduce {{.*}}stream = [[H2:[0-9]+]] : i64
// CHAIN-DAG: %c = ge.conv2d {{.*}}stream = [[C2:[0-9]+]] : i64
ge.graph @allreduce_beside_compute(%grad: tensor<4096x1024xf16>, %x: tensor<1x16x32x32xf16>) -> (tensor<4096x1024xf16>, tensor<1x16x32x32xf16>) {
  %w = ge.const {value = dense<1.000000e-02> : tensor<16x16x3x3xf16>} : () -> tensor<16x16x3x3xf16>
  %g = ge.all_reduce %grad {reduction = "sum", rank_size = 8} : (tensor<4096x1024xf16>) -> tensor<4096x1024xf16>
  %c = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x16x32x32xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x32x32xf16>
  ge.return %g, %c : (tensor<4096x1024xf16>, tensor<1x16x32x32xf16>) -> ()
}

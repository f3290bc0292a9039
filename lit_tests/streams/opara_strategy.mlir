// partition-streams{strategy=opara}: Opara's greedy chains. In block order
// each op continues the stream of its first producer (in operand order) that
// no op has continued yet, else opens a stream. %c continues %a (its first
// operand), so %e, read after %a was continued, opens a third stream where
// Nimble's minimum chain cover needs two (x-b-c and a-e).
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=opara}' | filecheck %s --check-prefix=OPARA
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=chain-cover}' | filecheck %s --check-prefix=CHAIN
// Over max-streams, the chains are merged by load, as chain-cover's are.
// RUN: ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=opara max-streams=2}' -Rpass=partition-streams 2>&1 | filecheck %s --check-prefix=CAP
// OPARA: %x = ge.relu {{.*}}stream = [[S0:[0-9]+]] : i64
// OPARA: %a = ge.relu {{.*}}stream = [[S0]] : i64
// OPARA: %b = ge.relu {{.*}}stream = [[S1:[0-9]+]] : i64
// OPARA: %c = ge.add {{.*}}stream = [[S0]] : i64
// OPARA: %e = ge.relu {{.*}}stream = [[S2:[0-9]+]] : i64
// CHAIN-NOT: stream = 2
// CAP: remark: opara: 3 chains merged by load onto 2 streams
// CAP-NOT: stream = 2
ge.graph @main(%in: tensor<1x16x32x32xf16>) -> (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) {
  %x = ge.relu %in : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %a = ge.relu %x : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %b = ge.relu %x : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %c = ge.add %a, %b : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  %e = ge.relu %a : (tensor<1x16x32x32xf16>) -> tensor<1x16x32x32xf16>
  ge.return %c, %e : (tensor<1x16x32x32xf16>, tensor<1x16x32x32xf16>) -> ()
}

// partition-streams{strategy=ge multi-stream-parallel-mode=...}: GE's automatic
// multi-stream modes (ge.autoMultistreamParallelMode) on small graphs.
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge}' | filecheck %s --check-prefix=GE
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=cv}' | filecheck %s --check-prefix=CV
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:2}' | filecheck %s --check-prefix=LB
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:1}' | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=MainStream:4}' | filecheck %s --check-prefix=MS
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=WeightedLoadBalance:4}' | filecheck %s --check-prefix=WLB
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:4}' -Rpass=partition-streams -o /dev/null 2>&1 | filecheck %s --check-prefix=NOTE

// Cube (matmul) and vector ops in one graph. GE's default: one AIcoreEngine stream.
// cv: a vector op not linked both from the cube op before it and to the cube op
// after it (in block order) goes to VectorEngine, a stream beside the cube ops';
// the adds that follow the last matmul stay with it.
// LoadBalance:2: the minimum path cover has three chains (relu-matmul-matmul-add,
// sigmoid-tanh-add, matmul); the sigmoid chain opens stream 1, the lone matmul
// joins the lighter window of stream 0.
// LoadBalance:1: one stream whatever the graph.
// MainStream:4: the chain starting at a level with one op (relu) is the main
// stream; the other chains overlap it less than a new stream costs, so all join it.
// GE-LABEL: ge.graph @cube_vector
// GE-COUNT-8: stream = 0 : i64
// CV-LABEL: ge.graph @cube_vector
// CV: %a = ge.relu {{.*}}stream = [[V:[0-9]+]] : i64
// CV: %m1 = ge.matmul {{.*}}stream = [[C:[0-9]+]] : i64
// CV: %m2 = ge.matmul {{.*}}stream = [[C]] : i64
// CV: %s1 = ge.sigmoid {{.*}}stream = [[V]] : i64
// CV: %s2 = ge.tanh {{.*}}stream = [[V]] : i64
// CV: %m3 = ge.matmul {{.*}}stream = [[C]] : i64
// CV: %e1 = ge.add {{.*}}stream = [[C]] : i64
// CV: %e2 = ge.add {{.*}}stream = [[C]] : i64
// LB-LABEL: ge.graph @cube_vector
// LB: %a = ge.relu {{.*}}stream = 0 : i64
// LB: %m1 = ge.matmul {{.*}}stream = 0 : i64
// LB: %m2 = ge.matmul {{.*}}stream = 0 : i64
// LB: %s1 = ge.sigmoid {{.*}}stream = 1 : i64
// LB: %s2 = ge.tanh {{.*}}stream = 1 : i64
// LB: %m3 = ge.matmul {{.*}}stream = 0 : i64
// LB: %e1 = ge.add {{.*}}stream = 0 : i64
// LB: %e2 = ge.add {{.*}}stream = 1 : i64
// ONE-LABEL: ge.graph @cube_vector
// ONE-COUNT-8: stream = 0 : i64
// MS-LABEL: ge.graph @cube_vector
// MS-COUNT-8: stream = 0 : i64
// NOTE: ge_auto_modes.mlir:{{[0-9]+}}:1: remark: ge-LoadBalance: 3 chain(s) of the minimum path cover merged onto 2 stream(s) (at most 4)
// NOTE: remark: ge-LoadBalance: 1 stream label(s) serial on their own streams: side
ge.graph @cube_vector(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> (tensor<64x64xf16>) {
  %a = ge.relu %x : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %m1 = ge.matmul %a, %w : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %m2 = ge.matmul %a, %w : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %s1 = ge.sigmoid %a : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %s2 = ge.tanh %s1 : (tensor<64x64xf16>) -> tensor<64x64xf16>
  %m3 = ge.matmul %m1, %w : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %e1 = ge.add %m3, %m2 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %e2 = ge.add %e1, %s2 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  ge.return %e2 : (tensor<64x64xf16>) -> ()
}

// -----

// Four branches after a shared head, joined by a tree of adds, and a labelled op.
// GE's NetOutput is a node of MiniDAG's graph too (it has no task), so it
// ends the longest chain: LoadBalance:2 covers h-b1-j1-j3-j-NetOutput, b3-j2,
// b2 and b4, and with that chain's load in the window every branch stays on
// stream 0 rather than pay the events of a second stream. MainStream:4: the
// chain through the head and the join (alone on their levels) is the main stream, and a
// branch moves off it only when its overlap with stream 0's ops in the
// six-level window costs more than the events and the new stream do (b4).
// A stream_label is serial: its op gets one stream after the DAG's streams.
// LB-LABEL: ge.graph @branches
// LB: %h = ge.relu {{.*}}stream = 0 : i64
// LB: %b1 = ge.sigmoid {{.*}}stream = 0 : i64
// LB: %b2 = ge.sigmoid {{.*}}stream = 0 : i64
// LB: %b3 = ge.sigmoid {{.*}}stream = 0 : i64
// LB: %b4 = ge.sigmoid {{.*}}stream = 0 : i64
// LB: %l = ge.abs {{.*}}stream = 1 : i64
// LB: %j = ge.add {{.*}}stream = 0 : i64
// MS-LABEL: ge.graph @branches
// MS: %h = ge.relu {{.*}}stream = 0 : i64
// MS: %b1 = ge.sigmoid {{.*}}stream = 0 : i64
// MS: %b2 = ge.sigmoid {{.*}}stream = 0 : i64
// MS: %b3 = ge.sigmoid {{.*}}stream = 0 : i64
// MS: %b4 = ge.sigmoid {{.*}}stream = 1 : i64
// MS: %l = ge.abs {{.*}}stream = 2 : i64
// MS: %j = ge.add {{.*}}stream = 0 : i64
// WeightedLoadBalance:4: by time, each branch's chain is tried on the streams
// it could take in a simulation of the chains placed so far; a branch beside
// the others finishes soonest on a stream of its own.
// WLB-LABEL: ge.graph @branches
// WLB: %h = ge.relu {{.*}}stream = 0 : i64
// WLB: %b1 = ge.sigmoid {{.*}}stream = 0 : i64
// WLB: %b2 = ge.sigmoid {{.*}}stream = 1 : i64
// WLB: %b3 = ge.sigmoid {{.*}}stream = 2 : i64
// WLB: %b4 = ge.sigmoid {{.*}}stream = 3 : i64
// WLB: %l = ge.abs {{.*}}stream = 4 : i64
// WLB: %j = ge.add {{.*}}stream = 0 : i64
// CV-LABEL: ge.graph @branches
// CV: %l = ge.abs {{.*}}stream = 1 : i64
ge.graph @branches(%x: tensor<1024xf16>) -> (tensor<1024xf16>) {
  %h = ge.relu %x : (tensor<1024xf16>) -> tensor<1024xf16>
  %b1 = ge.sigmoid %h : (tensor<1024xf16>) -> tensor<1024xf16>
  %b2 = ge.sigmoid %h : (tensor<1024xf16>) -> tensor<1024xf16>
  %b3 = ge.sigmoid %h : (tensor<1024xf16>) -> tensor<1024xf16>
  %b4 = ge.sigmoid %h : (tensor<1024xf16>) -> tensor<1024xf16>
  %l = ge.abs %h {stream_label = "side"} : (tensor<1024xf16>) -> tensor<1024xf16>
  %j1 = ge.add %b1, %b2 : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
  %j2 = ge.add %b3, %b4 : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
  %j3 = ge.add %j1, %j2 : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
  %j = ge.add %j3, %l : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
  ge.return %j : (tensor<1024xf16>) -> ()
}

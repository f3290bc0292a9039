// multi-stream-parallel-mode: GE's checks (ParseAutoMultistreamParallelMode's
// E10001 reasons, the single-stream conflict E10056), each an error at the graph
// and no output file.
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance}' -o %t 2>&1 | filecheck %s --check-prefix=COLON
// RUN: test ! -e %t
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=Weighted:4}' -o /dev/null 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=MainStream:0}' -o /dev/null 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:65}' -o /dev/null 2>&1 | filecheck %s --check-prefix=RANGE65
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:+4}' -o /dev/null 2>&1 | filecheck %s --check-prefix=SIGN
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=default}' -o /dev/null 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=single multi-stream-parallel-mode=cv}' -o /dev/null 2>&1 | filecheck %s --check-prefix=SINGLE
// RUN: not ge-opt %s --pass-pipeline='partition-streams{strategy=cost multi-stream-parallel-mode=cv}' -o /dev/null 2>&1 | filecheck %s --check-prefix=OTHER

// COLON: ge_auto_modes_errors.mlir:32:1: error: partition-streams: value 'LoadBalance' for --multi_stream_parallel_mode (ge.autoMultistreamParallelMode) is invalid: The format must be Strategy:N with one colon.
// COLON-NEXT: ge.graph @g
// COLON-NEXT: ^
// NAME: error: partition-streams: value 'Weighted:4' for --multi_stream_parallel_mode (ge.autoMultistreamParallelMode) is invalid: The strategy must be LoadBalance, MainStream, or WeightedLoadBalance.
// RANGE: error: partition-streams: value 'MainStream:0' for {{.*}} is invalid: The stream number must be an integer in [1, 64].
// RANGE65: error: partition-streams: value 'LoadBalance:65' for {{.*}} is invalid: The stream number must be an integer in [1, 64].
// SIGN: error: partition-streams: value 'LoadBalance:+4' for {{.*}} is invalid: The stream number must be an integer in [1, 64].
// DEFAULT: error: partition-streams: value 'default' for {{.*}} is invalid: The default mode is supported only by the graph attribute set by a custom pass.
// SINGLE: ge_auto_modes_errors.mlir:{{[0-9]+}}:1: error: partition-streams: cannot configure both --multi_stream_parallel_mode (ge.autoMultistreamParallelMode) and single-stream mode (strategy=single, ge.enableSingleStream) simultaneously
// OTHER: ge_auto_modes_errors.mlir:{{[0-9]+}}:1: error: partition-streams: multi-stream-parallel-mode is GE's, for strategy=ge only (got strategy=cost)

// A dynamic-shape graph keeps one stream unless dynamic-shape-multi-stream is
// set; then the mode applies (here the two outputs' chains share a stream).
// RUN: ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:4}' -Rpass=partition-streams -o /dev/null 2>&1 | filecheck %s --check-prefix=DYN
// RUN: ge-opt %s --pass-pipeline='partition-streams{strategy=ge multi-stream-parallel-mode=LoadBalance:4 dynamic-shape-multi-stream=true}' -Rpass=partition-streams -o /dev/null 2>&1 | filecheck %s --check-prefix=DYNMS
// DYN: remark: partition-streams: single stream instead of 'ge': 'ge.relu' has a dynamic shape
// DYNMS: remark: ge-LoadBalance: 2 chain(s) of the minimum path cover merged onto 1 stream(s) (at most 4)

ge.graph @g(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %a = ge.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %b = ge.sigmoid %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  ge.return %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> ()
}

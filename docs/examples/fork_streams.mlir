// The user guide's example strategy (plugin/fork_streams.py), registered three
// ways: by a project's own ge-opt (geir_opt_strategy.py), from Python, and as an
// installed package's geir.strategies entry point (plugin/*.dist-info, found on
// PYTHONPATH), which ge-opt, ge-run and ge-bench load when a pipeline names it.
// RUN: %python %S/geir_opt_strategy.py %s --pass-pipeline='assign-engines,partition-streams{strategy=fork-streams max-streams=2}' | filecheck %s
// RUN: env PYTHONPATH=%S/plugin ge-opt %s --pass-pipeline='assign-engines,partition-streams{strategy=fork-streams max-streams=2}' | filecheck %s
// RUN: env PYTHONPATH=%S/plugin ge-run %s --pipeline 'ge-default{strategy=fork-streams max-streams=2}' | filecheck %s --check-prefix=TOOL
// RUN: env PYTHONPATH=%S/plugin %python -m geir.tools.ge_bench --models %s --strategies ge,fork-streams --max-streams 2 -o %t.csv | filecheck %s --check-prefix=BENCH
// RUN: %python -c "import sys; sys.path.insert(0, '%S/plugin'); import geir; from fork_streams import fork_streams; geir.register_strategy('fork-streams', fork_streams); m = geir.parse('%s'); geir.run_pipeline(m, 'assign-engines,partition-streams{strategy=fork-streams max-streams=2}'); print(m)" | filecheck %s

// The head's first consumer continues its stream; the second branch opens
// stream 1; the join continues the first branch; the labelled op has its own.
// CHECK-LABEL: ge.graph @fork
// CHECK: %h = ge.relu {{.*}}stream = 0 : i64
// CHECK: %a = ge.sigmoid {{.*}}stream = 0 : i64
// CHECK: %b = ge.tanh {{.*}}stream = 1 : i64
// CHECK: %l = ge.abs {{.*}}stream = 2 : i64
// CHECK: %j = ge.add {{.*}}stream = 0 : i64
// TOOL: pipeline        ge-default{strategy=fork-streams max-streams=2}
// TOOL: on 3 streams
// BENCH: fork_streams.mlir {{.*}} fork-streams
ge.graph @fork(%x: tensor<4096xf16>) -> (tensor<4096xf16>, tensor<4096xf16>) {
  %h = ge.relu %x : (tensor<4096xf16>) -> tensor<4096xf16>
  %a = ge.sigmoid %h : (tensor<4096xf16>) -> tensor<4096xf16>
  %b = ge.tanh %h : (tensor<4096xf16>) -> tensor<4096xf16>
  %l = ge.abs %h {stream_label = "side"} : (tensor<4096xf16>) -> tensor<4096xf16>
  %j = ge.add %a, %b : (tensor<4096xf16>, tensor<4096xf16>) -> tensor<4096xf16>
  ge.return %j, %l : (tensor<4096xf16>, tensor<4096xf16>) -> ()
}

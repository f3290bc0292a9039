// An op that falls back from AICore to AICPU on a device without AICPU units
// says why it fell back; the first a dynamic shape sent there notes the input
// whose dims to bind.
// RUN: ge-opt %s --split-input-file --pass-pipeline='assign-engines,partition-streams{device=RTX2080S}' --verify-diagnostics -o /dev/null

// expected-note@+1 {{input 'x' dim 0 ('batch') is dynamic (tensor<?x16xf32>); bind it with specialize-shapes{shapes="batch=<size>"} (in ge-default: input-shape="batch=<size>")}}
ge.graph @g(%x: tensor<?x16xf32> {ge.name = "x", ge.symbols = ["batch", ""]}) -> tensor<?x16xf32> {
  // expected-remark@+2 {{'ge.relu' runs on AICPU instead of AICore}}
  // expected-error@+1 {{'ge.relu' runs on AICPU, but device 'RTX2080S' has no AICPU units (it falls back from AICore: result #0 has a dynamic shape (tensor<?x16xf32>), which an AICore kernel cannot tile)}}
  %a = ge.relu %x : (tensor<?x16xf32>) -> tensor<?x16xf32>
  // expected-remark@+2 {{'ge.sigmoid' runs on AICPU instead of AICore}}
  // expected-error@+1 {{'ge.sigmoid' runs on AICPU, but device 'RTX2080S' has no AICPU units (it falls back from AICore: result #0 has a dynamic shape (tensor<?x16xf32>), which an AICore kernel cannot tile)}}
  %b = ge.sigmoid %a : (tensor<?x16xf32>) -> tensor<?x16xf32>
  ge.return %b : (tensor<?x16xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-remark@+2 {{'ge.relu' runs on AICPU instead of AICore}}
  // expected-error@+1 {{'ge.relu' runs on AICPU, but device 'RTX2080S' has no AICPU units (it falls back from AICore: result #0 has element type f64, which AICore cannot compute on)}}
  %a = ge.relu %x : (tensor<4xf64>) -> tensor<4xf64>
  ge.return %a : (tensor<4xf64>) -> ()
}

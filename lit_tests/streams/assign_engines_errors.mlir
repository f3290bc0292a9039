// assign-engines: an unknown engine, and exclude-engines (GE's ge.exec.exclude_engines).
// RUN: ge-opt %s --assign-engines --split-input-file --verify-diagnostics -o /dev/null
// RUN: not ge-opt %s --assign-engines='exclude-engines=TPU' -o /dev/null 2>&1 | filecheck %s --check-prefix=BADNAME

// BADNAME: error: assign-engines: exclude-engines names unknown engine 'TPU'; known: AICore, AICPU, DVPP, HCCL

ge.graph @unknown(%f: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error@+1 {{'ge.relu' op has unknown engine 'TPU'; known engines: AICore, VectorCore, AICPU, DVPP, HCCL, RTS, GE_LOCAL}}
  %r = ge.relu %f {engine = "TPU"} : (tensor<16xf32>) -> tensor<16xf32>
  ge.return %r : (tensor<16xf32>) -> ()
}


// partition-streams{strategy=<user strategy>}: the plan a registered strategy
// returns is checked, and each broken rule is an error at the op it is about.
// RUN: %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=one-stream-each max-streams=2}' | filecheck %s --check-prefix=OK
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=short max-streams=2}' -o %t 2>&1 | filecheck %s --check-prefix=SHORT
// RUN: test ! -e %t
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=over-budget max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=not-int max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=INT
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=not-a-plan max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=split-label max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=share-label max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=SHARE
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=backwards max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=raises max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=RAISES
// RUN: not %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=no-such max-streams=2}' -o /dev/null 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: %python %S/Inputs/strategies_opt.py %s --pass-pipeline='partition-streams{strategy=ge-then-next max-streams=2},insert-events' | filecheck %s --check-prefix=NEXT

// OK-LABEL: ge.graph @labels
// OK: %a = ge.relu {{.*}}stream = 0 : i64
// OK: %b = ge.sigmoid {{.*}}stream = 1 : i64
// OK: %c = ge.tanh {{.*}}stream = 1 : i64
// OK: %d = ge.add {{.*}}stream = 0 : i64
// SHORT: custom_strategy_errors.mlir:40:8: error: partition-streams: strategy 'short' returned 3 stream(s) for 4 op(s); this op has none
// SHORT-NEXT: %d = ge.add
// SHORT-NEXT: ^
// BUDGET: custom_strategy_errors.mlir:37:8: error: partition-streams: strategy 'over-budget' put this op on stream 3, outside the budget [0, 3) (max-streams=2 plus one per stream label)
// INT: custom_strategy_errors.mlir:37:8: error: partition-streams: strategy 'not-int' gave this op stream 0.0; stream ids are ints
// TYPE: custom_strategy_errors.mlir:36:1: error: partition-streams: strategy 'not-a-plan' returned dict; expected a stream id per op (a list of ints) or a StreamPlan
// SPLIT: custom_strategy_errors.mlir:39:8: error: partition-streams: strategy 'split-label' put this op on stream 1, but its stream_label 'side' is on stream 2
// SHARE: custom_strategy_errors.mlir:38:8: error: partition-streams: strategy 'share-label' put this op (stream_label 'side') on stream 0, which holds unlabelled ops; a label keeps its stream to itself
// ORDER: custom_strategy_errors.mlir:40:8: error: partition-streams: strategy 'backwards' issues this op before 'ge.relu' (op 0), which it depends on
// RAISES: custom_strategy_errors.mlir:{{[0-9]+}}:1: error: partition-streams: strategy 'raises' raised ValueError: tuple.index(x): x not in tuple
// RAISES-NOT: Traceback
// UNKNOWN: error: partition-streams: unknown strategy 'no-such'; strategies: single, {{.*}}, optimal, backwards, {{.*}}, share-label, short, split-label
// NEXT-LABEL: ge.graph @labels
// NEXT: %d = ge.add {{.*}}stream = 2 : i64

ge.graph @labels(%x: tensor<1024xf16>) -> (tensor<1024xf16>) {
  %a = ge.relu %x : (tensor<1024xf16>) -> tensor<1024xf16>
  %b = ge.sigmoid %a {stream_label = "side"} : (tensor<1024xf16>) -> tensor<1024xf16>
  %c = ge.tanh %b {stream_label = "side"} : (tensor<1024xf16>) -> tensor<1024xf16>
  %d = ge.add %a, %c : (tensor<1024xf16>, tensor<1024xf16>) -> tensor<1024xf16>
  ge.return %d : (tensor<1024xf16>) -> ()
}

// alias-splits: GE's SplitNOptimizer and SplitCToNOptimizer. A static split
// along axis 0, or along axis 1 with every result's first dim 1, cuts its operand
// into contiguous chunks; when its operand comes from a task and every reader is
// an AI core op that runs as a task, it is marked no_task and takes no time.
// A reshape reading a result keeps it a task (GE puts one back wherever shapes
// differ). On in ge-default (option alias-splits), as in GE.
// RUN: ge-opt %s --alias-splits --split-input-file | filecheck %s
// RUN: ge-opt %s --alias-splits --split-input-file -Rpass=alias-splits -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: ge-opt %s --pass-pipeline='alias-splits{enable=false}' --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default{alias-splits=false}' --split-input-file | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s --pass-pipeline='ge-default' --split-input-file | filecheck %s --check-prefix=PIPELINE

// Two halves of a batch along axis 0, each read by an elementwise op: contiguous
// chunks, read where they lie.
// CHECK-LABEL: ge.graph @batch_halves
// CHECK: ge.split {{.*}}no_task
// REMARK: alias_splits.mlir:[[# @LINE + 5]]:12: remark: 2 results are contiguous chunks of the operand: no task
// OFF-NOT: no_task}
// PIPELINE: rt.kernel {attrs = {{{.*}}no_task{{.*}}op = "ge.split"
ge.graph @batch_halves(%x: tensor<4x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x8x16xf16>) {
  %e = ge.exp %x : (tensor<4x8x16xf16>) -> tensor<4x8x16xf16>
  %a, %b = ge.split %e {axis = 0, num_outputs = 2} : (tensor<4x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x8x16xf16>)
  %s = ge.add %a, %b : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %t = ge.mul %a, %b : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  ge.return %s, %t : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> ()
}

// -----

// ViT's attention: qkv.unbind(0) splits axis 0, but each third is squeezed, and
// GE's ReshapeRecoveryPass puts a Reshape (a local op, no AI core kernel) back
// between the split and its reader: the split stays a task.
// CHECK-LABEL: ge.graph @qkv
// CHECK-NOT: no_task
// REMARK: remark: stays a task: a result is read by 'ge.squeeze', a local op GE puts back before the split is decided
ge.graph @qkv(%x: tensor<3x2x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x8x16xf16>) {
  %e = ge.exp %x : (tensor<3x2x8x16xf16>) -> tensor<3x2x8x16xf16>
  %q, %k, %v = ge.split %e {axis = 0, num_outputs = 3} : (tensor<3x2x8x16xf16>) -> (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>)
  %q2 = ge.squeeze %q {axes = [0]} : (tensor<1x2x8x16xf16>) -> tensor<2x8x16xf16>
  %k2 = ge.squeeze %k {axes = [0]} : (tensor<1x2x8x16xf16>) -> tensor<2x8x16xf16>
  %v2 = ge.squeeze %v {axes = [0]} : (tensor<1x2x8x16xf16>) -> tensor<2x8x16xf16>
  %a = ge.add %q2, %k2 : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %b = ge.mul %v2, %k2 : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  ge.return %a, %b : (tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> ()
}

// -----

// A channel split at batch 1 (GE's SplitCToNOptimizer) reads contiguous chunks too.
// CHECK-LABEL: ge.graph @channels_at_batch_1
// CHECK: ge.split {{.*}}no_task
// REMARK: remark: 2 results are contiguous chunks of the operand: no task
ge.graph @channels_at_batch_1(%x: tensor<1x32x4x4xf16>, %w: tensor<16x16x1x1xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
  %r = ge.relu %x : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  %a, %b = ge.split %r {axis = 1, num_outputs = 2} : (tensor<1x32x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>)
  %ca = ge.conv2d %a, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %cb = ge.conv2d %b, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  ge.return %ca, %cb : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> ()
}

// -----

// At batch 2 a channel split's results are strided: it stays a task.
// CHECK-LABEL: ge.graph @channels_at_batch_2
// CHECK-NOT: no_task
// REMARK: remark: stays a task: it splits axis 1 of a batch above 1: its results are strided, not contiguous
ge.graph @channels_at_batch_2(%x: tensor<2x32x4x4xf16>, %w: tensor<16x16x1x1xf16>) -> (tensor<2x16x4x4xf16>, tensor<2x16x4x4xf16>) {
  %r = ge.relu %x : (tensor<2x32x4x4xf16>) -> tensor<2x32x4x4xf16>
  %a, %b = ge.split %r {axis = 1, num_outputs = 2} : (tensor<2x32x4x4xf16>) -> (tensor<2x16x4x4xf16>, tensor<2x16x4x4xf16>)
  %ca = ge.conv2d %a, %w : (tensor<2x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<2x16x4x4xf16>
  %cb = ge.conv2d %b, %w : (tensor<2x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<2x16x4x4xf16>
  ge.return %ca, %cb : (tensor<2x16x4x4xf16>, tensor<2x16x4x4xf16>) -> ()
}

// -----

// The last axis: strided chunks.
// CHECK-LABEL: ge.graph @last_axis
// CHECK-NOT: no_task
// REMARK: remark: stays a task: it splits axis 2: only axis 0, or axis 1 at batch 1, cuts contiguous chunks
ge.graph @last_axis(%x: tensor<1x8x32xf16>) -> (tensor<1x8x16xf16>, tensor<1x8x16xf16>) {
  %r = ge.relu %x : (tensor<1x8x32xf16>) -> tensor<1x8x32xf16>
  %a, %b = ge.split %r {axis = -1, num_outputs = 2} : (tensor<1x8x32xf16>) -> (tensor<1x8x16xf16>, tensor<1x8x16xf16>)
  %s = ge.add %a, %b : (tensor<1x8x16xf16>, tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  %t = ge.mul %a, %b : (tensor<1x8x16xf16>, tensor<1x8x16xf16>) -> tensor<1x8x16xf16>
  ge.return %s, %t : (tensor<1x8x16xf16>, tensor<1x8x16xf16>) -> ()
}

// -----

// A result the graph returns (GE: read by NetOutput).
// CHECK-LABEL: ge.graph @returned
// CHECK-NOT: no_task
// REMARK: remark: stays a task: a result is read by 'ge.return'
ge.graph @returned(%x: tensor<2x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>) {
  %r = ge.relu %x : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %a, %b = ge.split %r {axis = 0, num_outputs = 2} : (tensor<2x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>)
  %s = ge.exp %a : (tensor<1x8xf16>) -> tensor<1x8xf16>
  ge.return %s, %b : (tensor<1x8xf16>, tensor<1x8xf16>) -> ()
}

// -----

// A result a concat lays out in place reads (GE decides that concat first, and a
// split feeding a no-task op stays a task: YOLOv8's C2f, ShuffleNet's chunk).
// CHECK-LABEL: ge.graph @into_an_in_place_concat
// CHECK-NOT: no_task
// REMARK: remark: stays a task: a result is read by 'ge.concat', which runs as no task
ge.graph @into_an_in_place_concat(%x: tensor<1x32x4x4xf16>, %w: tensor<16x16x1x1xf16>) -> tensor<1x48x4x4xf16> {
  %r = ge.relu %x : (tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16>
  %a, %b = ge.split %r {axis = 1, num_outputs = 2} : (tensor<1x32x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>)
  %cb = ge.conv2d %b, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.concat %a, %b, %cb {axis = 1 : i64} : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x48x4x4xf16>
  ge.return %y : (tensor<1x48x4x4xf16>) -> ()
}

// -----

// A reader on AICPU (GE: not an AI core node).
// CHECK-LABEL: ge.graph @aicpu_reader
// CHECK-NOT: no_task
// REMARK: remark: stays a task: a result is read by 'ge.exp' on AICPU, not an AI core
ge.graph @aicpu_reader(%x: tensor<2x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>) {
  %r = ge.relu %x : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %a, %b = ge.split %r {axis = 0, num_outputs = 2} : (tensor<2x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>)
  %s = ge.exp %a {engine = "AICPU"} : (tensor<1x8xf16>) -> tensor<1x8xf16>
  %t = ge.exp %b : (tensor<1x8xf16>) -> tensor<1x8xf16>
  ge.return %s, %t : (tensor<1x8xf16>, tensor<1x8xf16>) -> ()
}

// -----

// The operand: a graph input through reshapes (GE: Data -> Reshape -> Split).
// CHECK-LABEL: ge.graph @graph_input
// CHECK-NOT: no_task
// REMARK: remark: stays a task: its operand is a graph input
ge.graph @graph_input(%x: tensor<16xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>) {
  %m = ge.unsqueeze %x {axes = [0]} : (tensor<16xf16>) -> tensor<1x16xf16>
  %n = ge.flatten %m {axis = 1} : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %a, %b = ge.split %n {axis = 1, num_outputs = 2} : (tensor<1x16xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>)
  %s = ge.exp %a : (tensor<1x8xf16>) -> tensor<1x8xf16>
  %t = ge.exp %b : (tensor<1x8xf16>) -> tensor<1x8xf16>
  ge.return %s, %t : (tensor<1x8xf16>, tensor<1x8xf16>) -> ()
}

// -----

// The operand: the result of a concat laid out in place (a no-task op).
// CHECK-LABEL: ge.graph @from_an_in_place_concat
// CHECK-NOT: no_task
// REMARK: remark: stays a task: its operand comes from 'ge.concat', which runs as no task
ge.graph @from_an_in_place_concat(%x: tensor<1x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>) {
  %e = ge.exp %x : (tensor<1x8xf16>) -> tensor<1x8xf16>
  %r = ge.relu %x : (tensor<1x8xf16>) -> tensor<1x8xf16>
  %c = ge.concat %e, %r {axis = 0 : i64} : (tensor<1x8xf16>, tensor<1x8xf16>) -> tensor<2x8xf16>
  %a, %b = ge.split %c {axis = 0, num_outputs = 2} : (tensor<2x8xf16>) -> (tensor<1x8xf16>, tensor<1x8xf16>)
  %s = ge.exp %a : (tensor<1x8xf16>) -> tensor<1x8xf16>
  %t = ge.exp %b : (tensor<1x8xf16>) -> tensor<1x8xf16>
  ge.return %s, %t : (tensor<1x8xf16>, tensor<1x8xf16>) -> ()
}

// lower-to-tasks on GE's dataflow control ops that do not form a switch/merge
// diamond it lowers: one located error per op (ge-run runs them host-driven,
// as GE's runtime v2 does).
// RUN: ge-opt %s --split-input-file --lower-to-tasks --verify-diagnostics

ge.graph @stray_merge(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.merge' op is not supported by lower-to-tasks: none of its inputs comes from a ge.switch branch; the task sink lowers a switch/merge diamond}}
  %m, %i = ge.merge %x, %x : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @no_merge(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: no ge.merge joins its branches}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  ge.return %x : (tensor<2xf32>) -> ()
}

// -----

ge.graph @one_sided(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  %a = ge.neg %t : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{'ge.merge' op is not supported by lower-to-tasks: it merges 2 inputs (2 from the true branch, 0 from the false branch); the task sink lowers a merge of one value from each branch of one switch}}
  %m, %i = ge.merge %t, %a : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @escapes(%x: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  %a = ge.neg %t : (tensor<2xf32>) -> tensor<2xf32>
  %m, %i = ge.merge %f, %a : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  // expected-error@+1 {{'ge.return' op reads a value of the true branch of a ge.switch outside that branch: only a ge.merge joins a branch back}}
  ge.return %m, %a : (tensor<2xf32>, tensor<2xf32>) -> ()
}

// -----

ge.graph @after_merge(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  %a = ge.neg %t : (tensor<2xf32>) -> tensor<2xf32>
  %m, %i = ge.merge %f, %a : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  // expected-error@+1 {{'ge.abs' op is not supported by lower-to-tasks: it is in a ge.switch branch but after the branch's last ge.merge; the task sink runs a branch before its merges}}
  %b = ge.abs %a : (tensor<2xf32>) -> tensor<2xf32>
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @both(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  // expected-error@+1 {{'ge.add' op reads values of both branches of a ge.switch: only a ge.merge joins them}}
  %a = ge.add %f, %t : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{'ge.merge' op is not supported by lower-to-tasks: it merges 2 inputs (1 from the true branch, 0 from the false branch)}}
  %m, %i = ge.merge %a, %t : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @nested(%x: tensor<2xf32>, %p: tensor<i1>, %q: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: a ge.switch inside another switch's branch (a nested conditional) runs host-driven (runtime v2)}}
  %f2, %t2 = ge.switch %t, %q : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  %m2, %i2 = ge.merge %f2, %t2 : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  // expected-error@+1 {{'ge.merge' op is not supported by lower-to-tasks: it merges 2 inputs (0 from the true branch, 1 from the false branch)}}
  %m, %i = ge.merge %f, %m2 : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @regions(%x: tensor<2xf32>, %p: tensor<i1>, %q: tensor<i1>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.switch' op is not supported by lower-to-tasks: its diamond cannot be lowered}}
  %f, %t = ge.switch %x, %p : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>)
  // expected-error@+1 {{'ge.if' op is not supported by lower-to-tasks: an op with regions inside a ge.switch branch runs host-driven (runtime v2)}}
  %r = ge.if %q ({
    %n = ge.neg %t : (tensor<2xf32>) -> tensor<2xf32>
    ge.yield %n : (tensor<2xf32>) -> ()
  }, {
    ge.yield %t : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  // expected-error@+1 {{'ge.merge' op is not supported by lower-to-tasks: it merges 2 inputs (0 from the true branch, 1 from the false branch)}}
  %m, %i = ge.merge %f, %r : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
  ge.return %m : (tensor<2xf32>) -> ()
}

// -----

ge.graph @frames(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ge.enter' op is not supported by lower-to-tasks: GE's loop frames (TF v1's while) run neither in the task sink nor host-driven; ge.loop is the loop both run}}
  %e = ge.enter %x {frame_name = "while"} : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error@+1 {{'ge.next_iteration' op is not supported by lower-to-tasks: GE's loop frames (TF v1's while) run neither in the task sink nor host-driven; ge.loop is the loop both run}}
  %n = ge.next_iteration %e : (tensor<2xf32>) -> tensor<2xf32>
  ge.return %n : (tensor<2xf32>) -> ()
}

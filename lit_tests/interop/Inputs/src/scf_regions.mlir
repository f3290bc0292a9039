// scf: loops with iteration arguments, if with results and an empty else,
// while (two regions), execute_region (several blocks), index_switch.
func.func @loops(%lb: index, %ub: index, %step: index, %init: f32, %c: i1) -> f32 {
  %sum = scf.for %iv = %lb to %ub step %step iter_args(%acc = %init) -> (f32) {
    %i = arith.index_cast %iv : index to i32
    %f = arith.sitofp %i : i32 to f32
    %n = arith.addf %acc, %f : f32
    scf.yield %n : f32
  }
  %r = scf.if %c -> (f32) {
    scf.yield %sum : f32
  } else {
    %neg = arith.negf %sum : f32
    scf.yield %neg : f32
  }
  scf.if %c {
    %x = arith.addf %r, %r : f32
  }
  %w:2 = scf.while (%a = %init, %b = %lb) : (f32, index) -> (f32, index) {
    %lt = arith.cmpi slt, %b, %ub : index
    scf.condition(%lt) %a, %b : f32, index
  } do {
  ^bb0(%a2: f32, %b2: index):
    %b3 = arith.addi %b2, %step : index
    scf.yield %a2, %b3 : f32, index
  }
  %e = scf.execute_region -> f32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    scf.yield %w#0 : f32
  ^bb2:
    scf.yield %init : f32
  }
  %s = scf.index_switch %lb -> f32
  case 2 {
    scf.yield %e : f32
  }
  default {
    scf.yield %init : f32
  }
  scf.parallel (%p) = (%lb) to (%ub) step (%step) {
    scf.reduce
  }
  return %s : f32
}

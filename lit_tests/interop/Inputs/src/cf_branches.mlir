// cf: branches with block arguments, a loop, a switch; successor lists and
// operandSegmentSizes, predecessor comments with several predecessors.
func.func @loop(%n: i32, %flag: i1) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^header(%c0, %c0 : i32, i32)
^header(%i: i32, %acc: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit(%acc : i32), ^body
^body:
  %next = arith.addi %i, %c1 : i32
  %acc2 = arith.addi %acc, %i : i32
  cf.cond_br %flag, ^header(%next, %acc2 : i32, i32), ^header(%next, %acc : i32, i32)
^exit(%r: i32):
  return %r : i32
}
func.func @switch(%x: i32, %y: f32) -> f32 {
  cf.switch %x : i32, [
    default: ^bb1(%y : f32),
    42: ^bb2,
    43: ^bb3(%y, %y : f32, f32)
  ]
^bb1(%a: f32):
  return %a : f32
^bb2:
  %c = arith.constant 2.0 : f32
  cf.br ^bb1(%c : f32)
^bb3(%p: f32, %q: f32):
  %s = arith.addf %p, %q : f32
  %t = arith.constant true
  cf.assert %t, "a \"quoted\" message"
  cf.br ^bb1(%s : f32)
^bb4:
  cf.br ^bb4
}

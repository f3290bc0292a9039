// Ops without written locations: MLIR places each at its name (past its
// results), a block argument at its name, and the implicit module at line 0.
"t.region"() ({
^bb0(%x: i32, %y: f32):
  %0:2 = "t.two"(%x) : (i32) -> (i32, f32)
  %sum = "t.add"(%0#0, %x) {note = "results first"} : (i32, i32) -> i32
    %indented = "t.use"(%sum, %y) : (i32, f32) -> i64
  "t.return"(%indented) : (i64) -> ()
}) : () -> ()
"t.plain"() : () -> ()

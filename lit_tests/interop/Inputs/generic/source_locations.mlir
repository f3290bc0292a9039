"builtin.module"() ({
  "t.region"() ({
  ^bb0(%arg0: i32, %arg1: f32):
    %0:2 = "t.two"(%arg0) : (i32) -> (i32, f32)
    %1 = "t.add"(%0#0, %arg0) {note = "results first"} : (i32, i32) -> i32
    %2 = "t.use"(%1, %arg1) : (i32, f32) -> i64
    "t.return"(%2) : (i64) -> ()
  }) : () -> ()
  "t.plain"() : () -> ()
}) : () -> ()


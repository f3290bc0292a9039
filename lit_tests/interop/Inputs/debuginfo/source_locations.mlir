#loc2 = loc("src/source_locations.mlir":4:6)
#loc3 = loc("src/source_locations.mlir":4:15)
"builtin.module"() ({
  "t.region"() ({
  ^bb0(%arg0: i32 loc("src/source_locations.mlir":4:6), %arg1: f32 loc("src/source_locations.mlir":4:15)):
    %0:2 = "t.two"(%arg0) : (i32) -> (i32, f32) loc(#loc4)
    %1 = "t.add"(%0#0, %arg0) {note = "results first"} : (i32, i32) -> i32 loc(#loc5)
    %2 = "t.use"(%1, %arg1) : (i32, f32) -> i64 loc(#loc6)
    "t.return"(%2) : (i64) -> () loc(#loc7)
  }) : () -> () loc(#loc1)
  "t.plain"() : () -> () loc(#loc8)
}) : () -> () loc(#loc)
#loc = loc("src/source_locations.mlir":0:0)
#loc1 = loc("src/source_locations.mlir":3:1)
#loc4 = loc("src/source_locations.mlir":5:10)
#loc5 = loc("src/source_locations.mlir":6:10)
#loc6 = loc("src/source_locations.mlir":7:17)
#loc7 = loc("src/source_locations.mlir":8:3)
#loc8 = loc("src/source_locations.mlir":10:1)


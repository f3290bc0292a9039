#loc2 = loc("src/unregistered_dialects.mlir":7:6)
#loc3 = loc("src/unregistered_dialects.mlir":7:20)
#loc9 = loc("src/unregistered_dialects.mlir":14:8)
"builtin.module"() ({
  "foo.module"() ({
  ^bb0(%arg0: !foo.pair<"a>b", [1, 2], {k = #foo.inner<(x) -> (y)>}> loc("src/unregistered_dialects.mlir":7:6), %arg1: !foo.token loc("src/unregistered_dialects.mlir":7:20)):
    %0 = "foo.make"(%arg0) <{conf = #foo.config<{depth = 3 : i32, name = "n<1>"}, [#foo.level<2>, #foo.level<"3">]>, kind = #foo<"raw text">}> {extra = !foo.ptr<i8, 3>} : (!foo.pair<"a>b", [1, 2], {k = #foo.inner<(x) -> (y)>}>) -> !foo.value<f32> loc(#loc4)
    %1:2 = "foo.split"(%0) <[1, "two", #foo.e]> : (!foo.value<f32>) -> (i32, !foo.value<f32>) loc(#loc5)
    "foo.branch"(%1#0)[^bb1, ^bb2] <{weights = array<i32: 3, 1>}> : (i32) -> () loc(#loc6)
  ^bb1:  // pred: ^bb0
    "foo.region_op"() ({
      "foo.inner"() : () -> () loc(#loc8)
    ^bb1(%2: i32 loc("src/unregistered_dialects.mlir":14:8)):  // pred: ^bb1
      "foo.back"(%2)[^bb1] : (i32) -> () loc(#loc10)
    }, {
    }) : () -> () loc(#loc7)
    "foo.jump"()[^bb2] : () -> () loc(#loc11)
  ^bb2:  // 2 preds: ^bb0, ^bb1
    "foo.end"(%arg1) {list = [#foo.a, !foo.b, 1 : i8, 2.500000e+00 : f16, @sym::@nested], unit_flag} : (!foo.token) -> () loc(#loc12)
  }) {sym_name = "m"} : () -> () loc(#loc1)
}) : () -> () loc(#loc)
#loc = loc("src/unregistered_dialects.mlir":0:0)
#loc1 = loc("src/unregistered_dialects.mlir":6:1)
#loc4 = loc("src/unregistered_dialects.mlir":8:8)
#loc5 = loc("src/unregistered_dialects.mlir":9:10)
#loc6 = loc("src/unregistered_dialects.mlir":10:3)
#loc7 = loc("src/unregistered_dialects.mlir":12:3)
#loc8 = loc("src/unregistered_dialects.mlir":13:5)
#loc10 = loc("src/unregistered_dialects.mlir":15:5)
#loc11 = loc("src/unregistered_dialects.mlir":18:3)
#loc12 = loc("src/unregistered_dialects.mlir":20:3)


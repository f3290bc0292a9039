// Ops, attributes and types of dialects neither geir nor MLIR knows: opaque
// bodies with nested brackets, strings holding brackets, `->` inside; properties
// that are not a dictionary; regions with several blocks; successors.
!pair = !foo.pair<"a>b", [1, 2], {k = #foo.inner<(x) -> (y)>}>
#conf = #foo.config<{depth = 3 : i32, name = "n<1>"}, [#foo.level<2>, #foo.level<"3">]>
"foo.module"() ({
^bb0(%arg0: !pair, %arg1: !foo.token):
  %0 = "foo.make"(%arg0) <{conf = #conf, kind = #foo<"raw text">}> {extra = !foo.ptr<i8, 3>} : (!pair) -> !foo.value<f32>
  %1:2 = "foo.split"(%0) <[1, "two", #foo.e]> : (!foo.value<f32>) -> (i32, !foo.value<f32>)
  "foo.branch"(%1#0)[^bb1, ^bb2] <{weights = array<i32: 3, 1>}> : (i32) -> ()
^bb1:
  "foo.region_op"() ({
    "foo.inner"() : () -> ()
  ^bb1(%x: i32):
    "foo.back"(%x)[^bb1] : (i32) -> ()
  }, {
  }) : () -> ()
  "foo.jump"()[^bb2] : () -> ()
^bb2:
  "foo.end"(%arg1) {unit_flag, list = [#foo.a, !foo.b, 1 : i8, 2.5 : f16, @sym::@nested]} : (!foo.token) -> ()
}) {sym_name = "m"} : () -> ()

"builtin.module"() ({
  "foo.module"() ({
  ^bb0(%arg0: !foo.pair<"a>b", [1, 2], {k = #foo.inner<(x) -> (y)>}>, %arg1: !foo.token):
    %0 = "foo.make"(%arg0) <{conf = #foo.config<{depth = 3 : i32, name = "n<1>"}, [#foo.level<2>, #foo.level<"3">]>, kind = #foo<"raw text">}> {extra = !foo.ptr<i8, 3>} : (!foo.pair<"a>b", [1, 2], {k = #foo.inner<(x) -> (y)>}>) -> !foo.value<f32>
    %1:2 = "foo.split"(%0) <[1, "two", #foo.e]> : (!foo.value<f32>) -> (i32, !foo.value<f32>)
    "foo.branch"(%1#0)[^bb1, ^bb2] <{weights = array<i32: 3, 1>}> : (i32) -> ()
  ^bb1:  // pred: ^bb0
    "foo.region_op"() ({
      "foo.inner"() : () -> ()
    ^bb1(%2: i32):  // pred: ^bb1
      "foo.back"(%2)[^bb1] : (i32) -> ()
    }, {
    }) : () -> ()
    "foo.jump"()[^bb2] : () -> ()
  ^bb2:  // 2 preds: ^bb0, ^bb1
    "foo.end"(%arg1) {list = [#foo.a, !foo.b, 1 : i8, 2.500000e+00 : f16, @sym::@nested], unit_flag} : (!foo.token) -> ()
  }) {sym_name = "m"} : () -> ()
}) : () -> ()


"builtin.module"() ({
  "func.func"() <{function_type = (i32, i1) -> i32, sym_name = "loop"}> ({
  ^bb0(%arg2: i32, %arg3: i1):
    %6 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %7 = "arith.constant"() <{value = 1 : i32}> : () -> i32
    "cf.br"(%6, %6)[^bb1] : (i32, i32) -> ()
  ^bb1(%8: i32, %9: i32):  // 3 preds: ^bb0, ^bb2, ^bb2
    %10 = "arith.cmpi"(%8, %arg2) <{predicate = 5 : i64}> : (i32, i32) -> i1
    "cf.cond_br"(%10, %9)[^bb3, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb2:  // pred: ^bb1
    %11 = "arith.addi"(%8, %7) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %12 = "arith.addi"(%9, %8) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    "cf.cond_br"(%arg3, %11, %12, %11, %9)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (i1, i32, i32, i32, i32) -> ()
  ^bb3(%13: i32):  // pred: ^bb1
    "func.return"(%13) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i32, f32) -> f32, sym_name = "switch"}> ({
  ^bb0(%arg0: i32, %arg1: f32):
    "cf.switch"(%arg0, %arg1, %arg1, %arg1)[^bb1, ^bb2, ^bb3] <{case_operand_segments = array<i32: 0, 2>, case_values = dense<[42, 43]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 2>}> : (i32, f32, f32, f32) -> ()
  ^bb1(%0: f32):  // 3 preds: ^bb0, ^bb2, ^bb3
    "func.return"(%0) : (f32) -> ()
  ^bb2:  // pred: ^bb0
    %1 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
    "cf.br"(%1)[^bb1] : (f32) -> ()
  ^bb3(%2: f32, %3: f32):  // pred: ^bb0
    %4 = "arith.addf"(%2, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %5 = "arith.constant"() <{value = true}> : () -> i1
    "cf.assert"(%5) <{msg = "a \22quoted\22 message"}> : (i1) -> ()
    "cf.br"(%4)[^bb1] : (f32) -> ()
  ^bb4:  // pred: ^bb4
    "cf.br"()[^bb4] : () -> ()
  }) : () -> ()
}) : () -> ()


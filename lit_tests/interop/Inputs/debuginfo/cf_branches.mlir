#loc2 = loc("src/cf_branches.mlir":3:17)
#loc3 = loc("src/cf_branches.mlir":3:26)
#loc7 = loc("src/cf_branches.mlir":7:9)
#loc8 = loc("src/cf_branches.mlir":7:18)
#loc14 = loc("src/cf_branches.mlir":14:7)
#loc17 = loc("src/cf_branches.mlir":17:19)
#loc18 = loc("src/cf_branches.mlir":17:28)
#loc20 = loc("src/cf_branches.mlir":23:6)
#loc24 = loc("src/cf_branches.mlir":28:6)
#loc25 = loc("src/cf_branches.mlir":28:15)
"builtin.module"() ({
  "func.func"() <{function_type = (i32, i1) -> i32, sym_name = "loop"}> ({
  ^bb0(%arg2: i32 loc("src/cf_branches.mlir":3:17), %arg3: i1 loc("src/cf_branches.mlir":3:26)):
    %6 = "arith.constant"() <{value = 0 : i32}> : () -> i32 loc(#loc4)
    %7 = "arith.constant"() <{value = 1 : i32}> : () -> i32 loc(#loc5)
    "cf.br"(%6, %6)[^bb1] : (i32, i32) -> () loc(#loc6)
  ^bb1(%8: i32 loc("src/cf_branches.mlir":7:9), %9: i32 loc("src/cf_branches.mlir":7:18)):  // 3 preds: ^bb0, ^bb2, ^bb2
    %10 = "arith.cmpi"(%8, %arg2) <{predicate = 5 : i64}> : (i32, i32) -> i1 loc(#loc9)
    "cf.cond_br"(%10, %9)[^bb3, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> () loc(#loc10)
  ^bb2:  // pred: ^bb1
    %11 = "arith.addi"(%8, %7) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc(#loc11)
    %12 = "arith.addi"(%9, %8) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32 loc(#loc12)
    "cf.cond_br"(%arg3, %11, %12, %11, %9)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (i1, i32, i32, i32, i32) -> () loc(#loc13)
  ^bb3(%13: i32 loc("src/cf_branches.mlir":14:7)):  // pred: ^bb1
    "func.return"(%13) : (i32) -> () loc(#loc15)
  }) : () -> () loc(#loc1)
  "func.func"() <{function_type = (i32, f32) -> f32, sym_name = "switch"}> ({
  ^bb0(%arg0: i32 loc("src/cf_branches.mlir":17:19), %arg1: f32 loc("src/cf_branches.mlir":17:28)):
    "cf.switch"(%arg0, %arg1, %arg1, %arg1)[^bb1, ^bb2, ^bb3] <{case_operand_segments = array<i32: 0, 2>, case_values = dense<[42, 43]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 2>}> : (i32, f32, f32, f32) -> () loc(#loc19)
  ^bb1(%0: f32 loc("src/cf_branches.mlir":23:6)):  // 3 preds: ^bb0, ^bb2, ^bb3
    "func.return"(%0) : (f32) -> () loc(#loc21)
  ^bb2:  // pred: ^bb0
    %1 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32 loc(#loc22)
    "cf.br"(%1)[^bb1] : (f32) -> () loc(#loc23)
  ^bb3(%2: f32 loc("src/cf_branches.mlir":28:6), %3: f32 loc("src/cf_branches.mlir":28:15)):  // pred: ^bb0
    %4 = "arith.addf"(%2, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc26)
    %5 = "arith.constant"() <{value = true}> : () -> i1 loc(#loc27)
    "cf.assert"(%5) <{msg = "a \22quoted\22 message"}> : (i1) -> () loc(#loc28)
    "cf.br"(%4)[^bb1] : (f32) -> () loc(#loc29)
  ^bb4:  // pred: ^bb4
    "cf.br"()[^bb4] : () -> () loc(#loc30)
  }) : () -> () loc(#loc16)
}) : () -> () loc(#loc)
#loc = loc("src/cf_branches.mlir":0:0)
#loc1 = loc("src/cf_branches.mlir":3:1)
#loc4 = loc("src/cf_branches.mlir":4:9)
#loc5 = loc("src/cf_branches.mlir":5:9)
#loc6 = loc("src/cf_branches.mlir":6:3)
#loc9 = loc("src/cf_branches.mlir":8:11)
#loc10 = loc("src/cf_branches.mlir":9:3)
#loc11 = loc("src/cf_branches.mlir":11:11)
#loc12 = loc("src/cf_branches.mlir":12:11)
#loc13 = loc("src/cf_branches.mlir":13:3)
#loc15 = loc("src/cf_branches.mlir":15:3)
#loc16 = loc("src/cf_branches.mlir":17:1)
#loc19 = loc("src/cf_branches.mlir":18:3)
#loc21 = loc("src/cf_branches.mlir":24:3)
#loc22 = loc("src/cf_branches.mlir":26:8)
#loc23 = loc("src/cf_branches.mlir":27:3)
#loc26 = loc("src/cf_branches.mlir":29:8)
#loc27 = loc("src/cf_branches.mlir":30:8)
#loc28 = loc("src/cf_branches.mlir":31:3)
#loc29 = loc("src/cf_branches.mlir":32:3)
#loc30 = loc("src/cf_branches.mlir":34:3)


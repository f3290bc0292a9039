#loc2 = loc("src/scf_regions.mlir":3:18)
#loc3 = loc("src/scf_regions.mlir":3:30)
#loc4 = loc("src/scf_regions.mlir":3:42)
#loc5 = loc("src/scf_regions.mlir":3:56)
#loc6 = loc("src/scf_regions.mlir":3:68)
#loc8 = loc("src/scf_regions.mlir":4:18)
#loc9 = loc("src/scf_regions.mlir":4:56)
#loc21 = loc("src/scf_regions.mlir":19:21)
#loc22 = loc("src/scf_regions.mlir":19:33)
#loc25 = loc("src/scf_regions.mlir":23:8)
#loc26 = loc("src/scf_regions.mlir":23:18)
#loc37 = loc("src/scf_regions.mlir":41:17)
"builtin.module"() ({
  "func.func"() <{function_type = (index, index, index, f32, i1) -> f32, sym_name = "loops"}> ({
  ^bb0(%arg0: index loc("src/scf_regions.mlir":3:18), %arg1: index loc("src/scf_regions.mlir":3:30), %arg2: index loc("src/scf_regions.mlir":3:42), %arg3: f32 loc("src/scf_regions.mlir":3:56), %arg4: i1 loc("src/scf_regions.mlir":3:68)):
    %0 = "scf.for"(%arg0, %arg1, %arg2, %arg3) ({
    ^bb0(%arg10: index loc("src/scf_regions.mlir":4:18), %arg11: f32 loc("src/scf_regions.mlir":4:56)):
      %9 = "arith.index_cast"(%arg10) : (index) -> i32 loc(#loc10)
      %10 = "arith.sitofp"(%9) : (i32) -> f32 loc(#loc11)
      %11 = "arith.addf"(%arg11, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc12)
      "scf.yield"(%11) : (f32) -> () loc(#loc13)
    }) : (index, index, index, f32) -> f32 loc(#loc7)
    %1 = "scf.if"(%arg4) ({
      "scf.yield"(%0) : (f32) -> () loc(#loc15)
    }, {
      %8 = "arith.negf"(%0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32 loc(#loc16)
      "scf.yield"(%8) : (f32) -> () loc(#loc17)
    }) : (i1) -> f32 loc(#loc14)
    "scf.if"(%arg4) ({
      %7 = "arith.addf"(%1, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc19)
      "scf.yield"() : () -> () loc(#loc18)
    }, {
    }) : (i1) -> () loc(#loc18)
    %2:2 = "scf.while"(%arg3, %arg0) ({
    ^bb0(%arg8: f32 loc("src/scf_regions.mlir":19:21), %arg9: index loc("src/scf_regions.mlir":19:33)):
      %6 = "arith.cmpi"(%arg9, %arg1) <{predicate = 2 : i64}> : (index, index) -> i1 loc(#loc23)
      "scf.condition"(%6, %arg8, %arg9) : (i1, f32, index) -> () loc(#loc24)
    }, {
    ^bb0(%arg6: f32 loc("src/scf_regions.mlir":23:8), %arg7: index loc("src/scf_regions.mlir":23:18)):
      %5 = "arith.addi"(%arg7, %arg2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index loc(#loc27)
      "scf.yield"(%arg6, %5) : (f32, index) -> () loc(#loc28)
    }) : (f32, index) -> (f32, index) loc(#loc20)
    %3 = "scf.execute_region"() ({
      "cf.cond_br"(%arg4)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> () loc(#loc30)
    ^bb1:  // pred: ^bb0
      "scf.yield"(%2#0) : (f32) -> () loc(#loc31)
    ^bb2:  // pred: ^bb0
      "scf.yield"(%arg3) : (f32) -> () loc(#loc32)
    }) : () -> f32 loc(#loc29)
    %4 = "scf.index_switch"(%arg0) <{cases = array<i64: 2>}> ({
      "scf.yield"(%arg3) : (f32) -> () loc(#loc34)
    }, {
      "scf.yield"(%3) : (f32) -> () loc(#loc35)
    }) : (index) -> f32 loc(#loc33)
    "scf.parallel"(%arg0, %arg1, %arg2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%arg5: index loc("src/scf_regions.mlir":41:17)):
      "scf.reduce"() : () -> () loc(#loc38)
    }) : (index, index, index) -> () loc(#loc36)
    "func.return"(%4) : (f32) -> () loc(#loc39)
  }) : () -> () loc(#loc1)
}) : () -> () loc(#loc)
#loc = loc("src/scf_regions.mlir":0:0)
#loc1 = loc("src/scf_regions.mlir":3:1)
#loc7 = loc("src/scf_regions.mlir":4:10)
#loc10 = loc("src/scf_regions.mlir":5:10)
#loc11 = loc("src/scf_regions.mlir":6:10)
#loc12 = loc("src/scf_regions.mlir":7:10)
#loc13 = loc("src/scf_regions.mlir":8:5)
#loc14 = loc("src/scf_regions.mlir":10:8)
#loc15 = loc("src/scf_regions.mlir":11:5)
#loc16 = loc("src/scf_regions.mlir":13:12)
#loc17 = loc("src/scf_regions.mlir":14:5)
#loc18 = loc("src/scf_regions.mlir":16:3)
#loc19 = loc("src/scf_regions.mlir":17:10)
#loc20 = loc("src/scf_regions.mlir":19:10)
#loc23 = loc("src/scf_regions.mlir":20:11)
#loc24 = loc("src/scf_regions.mlir":21:5)
#loc27 = loc("src/scf_regions.mlir":24:11)
#loc28 = loc("src/scf_regions.mlir":25:5)
#loc29 = loc("src/scf_regions.mlir":27:8)
#loc30 = loc("src/scf_regions.mlir":28:5)
#loc31 = loc("src/scf_regions.mlir":30:5)
#loc32 = loc("src/scf_regions.mlir":32:5)
#loc33 = loc("src/scf_regions.mlir":34:8)
#loc34 = loc("src/scf_regions.mlir":39:5)
#loc35 = loc("src/scf_regions.mlir":36:5)
#loc36 = loc("src/scf_regions.mlir":41:3)
#loc38 = loc("src/scf_regions.mlir":42:5)
#loc39 = loc("src/scf_regions.mlir":44:3)


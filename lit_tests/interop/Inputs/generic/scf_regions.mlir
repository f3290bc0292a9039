"builtin.module"() ({
  "func.func"() <{function_type = (index, index, index, f32, i1) -> f32, sym_name = "loops"}> ({
  ^bb0(%arg0: index, %arg1: index, %arg2: index, %arg3: f32, %arg4: i1):
    %0 = "scf.for"(%arg0, %arg1, %arg2, %arg3) ({
    ^bb0(%arg10: index, %arg11: f32):
      %9 = "arith.index_cast"(%arg10) : (index) -> i32
      %10 = "arith.sitofp"(%9) : (i32) -> f32
      %11 = "arith.addf"(%arg11, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"(%11) : (f32) -> ()
    }) : (index, index, index, f32) -> f32
    %1 = "scf.if"(%arg4) ({
      "scf.yield"(%0) : (f32) -> ()
    }, {
      %8 = "arith.negf"(%0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "scf.yield"(%8) : (f32) -> ()
    }) : (i1) -> f32
    "scf.if"(%arg4) ({
      %7 = "arith.addf"(%1, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    %2:2 = "scf.while"(%arg3, %arg0) ({
    ^bb0(%arg8: f32, %arg9: index):
      %6 = "arith.cmpi"(%arg9, %arg1) <{predicate = 2 : i64}> : (index, index) -> i1
      "scf.condition"(%6, %arg8, %arg9) : (i1, f32, index) -> ()
    }, {
    ^bb0(%arg6: f32, %arg7: index):
      %5 = "arith.addi"(%arg7, %arg2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "scf.yield"(%arg6, %5) : (f32, index) -> ()
    }) : (f32, index) -> (f32, index)
    %3 = "scf.execute_region"() ({
      "cf.cond_br"(%arg4)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
    ^bb1:  // pred: ^bb0
      "scf.yield"(%2#0) : (f32) -> ()
    ^bb2:  // pred: ^bb0
      "scf.yield"(%arg3) : (f32) -> ()
    }) : () -> f32
    %4 = "scf.index_switch"(%arg0) <{cases = array<i64: 2>}> ({
      "scf.yield"(%arg3) : (f32) -> ()
    }, {
      "scf.yield"(%3) : (f32) -> ()
    }) : (index) -> f32
    "scf.parallel"(%arg0, %arg1, %arg2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%arg5: index):
      "scf.reduce"() : () -> ()
    }) : (index, index, index) -> ()
    "func.return"(%4) : (f32) -> ()
  }) : () -> ()
}) : () -> ()


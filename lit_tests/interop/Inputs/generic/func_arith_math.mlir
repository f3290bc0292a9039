"builtin.module"() ({
  "func.func"() <{function_type = (i32) -> (i32, f64), sym_name = "ext", sym_visibility = "private"}> ({
  }) {llvm.emit_c_interface} : () -> ()
  "func.func"() <{function_type = (f32, f32, i32, i64) -> (f32, i1), sym_name = "scalar"}> ({
  ^bb0(%arg3: f32, %arg4: f32, %arg5: i32, %arg6: i64):
    %6 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %7 = "arith.constant"() <{value = 1.500000e+00 : f64}> : () -> f64
    %8 = "arith.constant"() <{value = -7 : i32}> : () -> i32
    %9 = "arith.constant"() <{value = true}> : () -> i1
    %10 = "arith.constant"() <{value = 0x7FC00000 : f32}> : () -> f32
    %11 = "arith.constant"() <{value = 4 : index}> : () -> index
    %12 = "arith.addf"(%arg3, %arg4) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
    %13 = "arith.mulf"(%12, %6) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32
    %14 = "arith.divf"(%13, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %15 = "arith.cmpf"(%14, %arg4) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
    %16 = "arith.select"(%15, %14, %arg4) : (i1, f32, f32) -> f32
    %17 = "arith.addi"(%arg5, %8) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
    %18 = "arith.cmpi"(%17, %8) <{predicate = 5 : i64}> : (i32, i32) -> i1
    %19 = "arith.extsi"(%17) : (i32) -> i64
    %20 = "arith.addi"(%19, %arg6) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
    %21 = "arith.index_cast"(%20) : (i64) -> index
    %22 = "arith.addi"(%21, %11) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %23 = "arith.trunci"(%20) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i16
    %24 = "arith.sitofp"(%23) : (i16) -> f32
    %25 = "math.sqrt"(%24) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %26 = "math.exp"(%25) <{fastmath = #arith.fastmath<afn>}> : (f32) -> f32
    %27 = "math.powf"(%26, %16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %28 = "math.fma"(%27, %arg3, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
    %29:2 = "func.call"(%17) <{callee = @ext}> : (i32) -> (i32, f64)
    %30 = "arith.extf"(%28) : (f32) -> f64
    %31 = "arith.addf"(%30, %29#1) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
    %32 = "arith.truncf"(%31) : (f64) -> f32
    %33 = "arith.ori"(%15, %18) : (i1, i1) -> i1
    %34 = "arith.xori"(%33, %9) : (i1, i1) -> i1
    "func.return"(%32, %34) : (f32, i1) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (vector<4xf32>, f16, bf16) -> vector<4xf32>, sym_name = "vectors"}> ({
  ^bb0(%arg0: vector<4xf32>, %arg1: f16, %arg2: bf16):
    %0 = "arith.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>}> : () -> vector<4xf32>
    %1 = "arith.constant"() <{value = dense<0.000000e+00> : vector<4xf32>}> : () -> vector<4xf32>
    %2 = "arith.addf"(%arg0, %0) <{fastmath = #arith.fastmath<none>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
    %3 = "arith.maximumf"(%2, %1) <{fastmath = #arith.fastmath<none>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
    %4 = "arith.extf"(%arg1) : (f16) -> f32
    %5 = "arith.extf"(%arg2) : (bf16) -> f32
    "func.return"(%3) : (vector<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()


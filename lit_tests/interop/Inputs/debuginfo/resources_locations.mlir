#loc2 = loc("arg":1:1)
#loc3 = loc(unknown)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x2xf32>, i32) -> tensor<2x2xf32>, sym_name = "weights"}> ({
  ^bb0(%arg0: tensor<2x2xf32> loc("arg":1:1), %arg1: i32 loc(unknown)):
    %0 = "arith.constant"() <{value = dense_resource<w0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32> loc(#loc4)
    %1 = "arith.constant"() <{value = dense_resource<b0> : tensor<2xi8>}> : () -> tensor<2xi8> loc(#loc17)
    %2 = "arith.addf"(%arg0, %0) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc(#loc18)
    %3 = "arith.mulf"(%2, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc(#loc16)
    %4 = "arith.subf"(%3, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc(#loc11)
    %5 = "arith.divf"(%4, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc(#loc12)
    %6 = "arith.negf"(%5) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>) -> tensor<2x2xf32> loc(#loc3)
    "func.return"(%6) : (tensor<2x2xf32>) -> () loc(#loc13)
  }) : () -> () loc(#loc1)
}) {test.dict = {a = [1, 2], b = "s"}, test.flag} : () -> () loc(#loc)
#loc = loc("the_module")
#loc1 = loc("model.py":1:1)
#loc4 = loc("conv1/weight")
#loc5 = loc("lib.py":10:4)
#loc6 = loc("model.py":3:2)
#loc7 = loc("model.py":4:1)
#loc8 = loc("model.py":4:9)
#loc9 = loc("meta.py":1:1)
#loc10 = loc("mul")
#loc11 = loc("model.py":5:1 to :20)
#loc12 = loc("model.py":6:1 to 7:3)
#loc13 = loc("ret")
#loc14 = loc("inner"(#loc5))
#loc15 = loc("add"(#loc8))
#loc16 = loc(fused<"torch">[#loc9, #loc10])
#loc17 = loc(callsite(#loc14 at #loc6))
#loc18 = loc(fused[#loc7, #loc15])

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040000080C0",
      b0: "0x010000000102"
    }
  },
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(func.func(canonicalize))",
      disable_threading: true,
      verify_each: false
    }
  }
#-}


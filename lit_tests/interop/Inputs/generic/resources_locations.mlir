"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x2xf32>, i32) -> tensor<2x2xf32>, sym_name = "weights"}> ({
  ^bb0(%arg0: tensor<2x2xf32>, %arg1: i32):
    %0 = "arith.constant"() <{value = dense_resource<w0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %1 = "arith.constant"() <{value = dense_resource<b0> : tensor<2xi8>}> : () -> tensor<2xi8>
    %2 = "arith.addf"(%arg0, %0) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = "arith.mulf"(%2, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = "arith.subf"(%3, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %5 = "arith.divf"(%4, %2) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %6 = "arith.negf"(%5) <{fastmath = #arith.fastmath<none>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "func.return"(%6) : (tensor<2x2xf32>) -> ()
  }) : () -> ()
}) {test.dict = {a = [1, 2], b = "s"}, test.flag} : () -> ()

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


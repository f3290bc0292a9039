#loc2 = loc("src/tensor_linalg.mlir":6:20)
#loc3 = loc("src/tensor_linalg.mlir":6:41)
#loc4 = loc("src/tensor_linalg.mlir":6:62)
#loc8 = loc(unknown)
#loc12 = loc("src/tensor_linalg.mlir":13:8)
#loc13 = loc("src/tensor_linalg.mlir":13:18)
#loc19 = loc("src/tensor_linalg.mlir":20:8)
#loc20 = loc("src/tensor_linalg.mlir":20:18)
#loc26 = loc("src/tensor_linalg.mlir":27:8)
#loc27 = loc("src/tensor_linalg.mlir":27:19)
#loc35 = loc("src/tensor_linalg.mlir":36:8)
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1, d0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<8x4xf32>, tensor<?x8xf32>) -> (tensor<4x4xf32>, tensor<4xf32>), sym_name = "kernels"}> ({
  ^bb0(%arg0: tensor<4x8xf32> loc("src/tensor_linalg.mlir":6:20), %arg1: tensor<8x4xf32> loc("src/tensor_linalg.mlir":6:41), %arg2: tensor<?x8xf32> loc("src/tensor_linalg.mlir":6:62)):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32 loc(#loc5)
    %1 = "tensor.empty"() : () -> tensor<4x4xf32> loc(#loc6)
    %2 = "linalg.fill"(%0, %1) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg15: f32 loc(unknown), %arg16: f32 loc(unknown)):
      "linalg.yield"(%arg15) : (f32) -> () loc(#loc8)
    }) : (f32, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc7)
    %3 = "linalg.matmul"(%arg0, %arg1, %2) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg12: f32 loc(unknown), %arg13: f32 loc(unknown), %arg14: f32 loc(unknown)):
      %22 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc8)
      %23 = "arith.addf"(%arg14, %22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc8)
      "linalg.yield"(%23) : (f32) -> () loc(#loc8)
    }) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc9)
    %4 = "tensor.empty"() : () -> tensor<4x4xf32> loc(#loc10)
    %5 = "linalg.generic"(%3, %4) <{indexing_maps = [#map3, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg10: f32 loc("src/tensor_linalg.mlir":13:8), %arg11: f32 loc("src/tensor_linalg.mlir":13:18)):
      %21 = "arith.mulf"(%arg10, %arg10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc14)
      "linalg.yield"(%21) : (f32) -> () loc(#loc15)
    }) {note = "transpose"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc11)
    %6 = "tensor.empty"() : () -> tensor<4xf32> loc(#loc16)
    %7 = "linalg.fill"(%0, %6) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg8: f32 loc(unknown), %arg9: f32 loc(unknown)):
      "linalg.yield"(%arg8) : (f32) -> () loc(#loc8)
    }) : (f32, tensor<4xf32>) -> tensor<4xf32> loc(#loc17)
    %8 = "linalg.generic"(%5, %7) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32 loc("src/tensor_linalg.mlir":20:8), %arg7: f32 loc("src/tensor_linalg.mlir":20:18)):
      %20 = "arith.addf"(%arg6, %arg7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32 loc(#loc21)
      "linalg.yield"(%20) : (f32) -> () loc(#loc22)
    }) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#loc18)
    %9 = "tensor.extract_slice"(%arg0) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 2>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (tensor<4x8xf32>) -> tensor<4x4xf32> loc(#loc23)
    %10 = "tensor.insert_slice"(%9, %5) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> loc(#loc24)
    %11 = "tensor.pad"(%9) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 1>, static_low = array<i64: 1, 0>}> ({
    ^bb0(%arg4: index loc("src/tensor_linalg.mlir":27:8), %arg5: index loc("src/tensor_linalg.mlir":27:19)):
      "tensor.yield"(%0) : (f32) -> () loc(#loc28)
    }) : (tensor<4x4xf32>) -> tensor<5x5xf32> loc(#loc25)
    %12 = "tensor.collapse_shape"(%10) <{reassociation = [[0, 1]]}> : (tensor<4x4xf32>) -> tensor<16xf32> loc(#loc29)
    %13 = "tensor.expand_shape"(%12) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 8>}> : (tensor<16xf32>) -> tensor<2x8xf32> loc(#loc30)
    %14 = "arith.constant"() <{value = 1 : index}> : () -> index loc(#loc31)
    %15 = "tensor.dim"(%arg2, %14) : (tensor<?x8xf32>, index) -> index loc(#loc32)
    %16 = "tensor.extract"(%arg0, %14, %14) : (tensor<4x8xf32>, index, index) -> f32 loc(#loc33)
    %17 = "tensor.generate"(%15) ({
    ^bb0(%arg3: index loc("src/tensor_linalg.mlir":36:8)):
      "tensor.yield"(%16) : (f32) -> () loc(#loc36)
    }) : (index) -> tensor<?xf32> loc(#loc34)
    %18 = "tensor.cast"(%arg2) : (tensor<?x8xf32>) -> tensor<4x8xf32> loc(#loc37)
    %19 = "tensor.empty"() : () -> tensor<4xf32, "enc"> loc(#loc38)
    "func.return"(%10, %8) : (tensor<4x4xf32>, tensor<4xf32>) -> () loc(#loc39)
  }) : () -> () loc(#loc1)
}) : () -> () loc(#loc)
#loc = loc("src/tensor_linalg.mlir":0:0)
#loc1 = loc("src/tensor_linalg.mlir":6:1)
#loc5 = loc("src/tensor_linalg.mlir":7:9)
#loc6 = loc("src/tensor_linalg.mlir":8:8)
#loc7 = loc("src/tensor_linalg.mlir":9:8)
#loc9 = loc("src/tensor_linalg.mlir":10:9)
#loc10 = loc("src/tensor_linalg.mlir":11:8)
#loc11 = loc("src/tensor_linalg.mlir":12:8)
#loc14 = loc("src/tensor_linalg.mlir":14:10)
#loc15 = loc("src/tensor_linalg.mlir":15:5)
#loc16 = loc("src/tensor_linalg.mlir":17:9)
#loc17 = loc("src/tensor_linalg.mlir":18:9)
#loc18 = loc("src/tensor_linalg.mlir":19:10)
#loc21 = loc("src/tensor_linalg.mlir":21:10)
#loc22 = loc("src/tensor_linalg.mlir":22:5)
#loc23 = loc("src/tensor_linalg.mlir":24:12)
#loc24 = loc("src/tensor_linalg.mlir":25:10)
#loc25 = loc("src/tensor_linalg.mlir":26:10)
#loc28 = loc("src/tensor_linalg.mlir":28:5)
#loc29 = loc("src/tensor_linalg.mlir":30:11)
#loc30 = loc("src/tensor_linalg.mlir":31:11)
#loc31 = loc("src/tensor_linalg.mlir":32:9)
#loc32 = loc("src/tensor_linalg.mlir":33:10)
#loc33 = loc("src/tensor_linalg.mlir":34:9)
#loc34 = loc("src/tensor_linalg.mlir":35:10)
#loc36 = loc("src/tensor_linalg.mlir":37:5)
#loc37 = loc("src/tensor_linalg.mlir":39:11)
#loc38 = loc("src/tensor_linalg.mlir":40:10)
#loc39 = loc("src/tensor_linalg.mlir":41:3)


#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1, d0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<8x4xf32>, tensor<?x8xf32>) -> (tensor<4x4xf32>, tensor<4xf32>), sym_name = "kernels"}> ({
  ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<?x8xf32>):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %1 = "tensor.empty"() : () -> tensor<4x4xf32>
    %2 = "linalg.fill"(%0, %1) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg15: f32, %arg16: f32):
      "linalg.yield"(%arg15) : (f32) -> ()
    }) : (f32, tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = "linalg.matmul"(%arg0, %arg1, %2) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg12: f32, %arg13: f32, %arg14: f32):
      %22 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %23 = "arith.addf"(%arg14, %22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%23) : (f32) -> ()
    }) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %4 = "tensor.empty"() : () -> tensor<4x4xf32>
    %5 = "linalg.generic"(%3, %4) <{indexing_maps = [#map3, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg10: f32, %arg11: f32):
      %21 = "arith.mulf"(%arg10, %arg10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%21) : (f32) -> ()
    }) {note = "transpose"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %6 = "tensor.empty"() : () -> tensor<4xf32>
    %7 = "linalg.fill"(%0, %6) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg8: f32, %arg9: f32):
      "linalg.yield"(%arg8) : (f32) -> ()
    }) : (f32, tensor<4xf32>) -> tensor<4xf32>
    %8 = "linalg.generic"(%5, %7) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      %20 = "arith.addf"(%arg6, %arg7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%20) : (f32) -> ()
    }) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %9 = "tensor.extract_slice"(%arg0) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 2>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %10 = "tensor.insert_slice"(%9, %5) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %11 = "tensor.pad"(%9) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 1>, static_low = array<i64: 1, 0>}> ({
    ^bb0(%arg4: index, %arg5: index):
      "tensor.yield"(%0) : (f32) -> ()
    }) : (tensor<4x4xf32>) -> tensor<5x5xf32>
    %12 = "tensor.collapse_shape"(%10) <{reassociation = [[0, 1]]}> : (tensor<4x4xf32>) -> tensor<16xf32>
    %13 = "tensor.expand_shape"(%12) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 8>}> : (tensor<16xf32>) -> tensor<2x8xf32>
    %14 = "arith.constant"() <{value = 1 : index}> : () -> index
    %15 = "tensor.dim"(%arg2, %14) : (tensor<?x8xf32>, index) -> index
    %16 = "tensor.extract"(%arg0, %14, %14) : (tensor<4x8xf32>, index, index) -> f32
    %17 = "tensor.generate"(%15) ({
    ^bb0(%arg3: index):
      "tensor.yield"(%16) : (f32) -> ()
    }) : (index) -> tensor<?xf32>
    %18 = "tensor.cast"(%arg2) : (tensor<?x8xf32>) -> tensor<4x8xf32>
    %19 = "tensor.empty"() : () -> tensor<4xf32, "enc">
    "func.return"(%10, %8) : (tensor<4x4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()


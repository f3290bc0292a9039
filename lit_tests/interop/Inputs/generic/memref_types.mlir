#map = affine_map<(d0, d1) -> (d1, d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<4x?xf32, strided<[?, 1], offset: ?>>, memref<4x4xf32, #map>, memref<8xi8, 3>) -> f32, sym_name = "buffers"}> ({
  ^bb0(%arg0: memref<4x?xf32, strided<[?, 1], offset: ?>>, %arg1: memref<4x4xf32, #map>, %arg2: memref<8xi8, 3>):
    %2 = "arith.constant"() <{value = 0 : index}> : () -> index
    %3 = "arith.constant"() <{value = 1 : index}> : () -> index
    %4 = "memref.load"(%arg0, %2, %3) : (memref<4x?xf32, strided<[?, 1], offset: ?>>, index, index) -> f32
    "memref.store"(%4, %arg1, %3, %2) : (f32, memref<4x4xf32, #map>, index, index) -> ()
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> {test.tag = 64 : i64} : () -> memref<16x16xf32>
    %6 = "memref.subview"(%5) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 2, 2>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (memref<16x16xf32>) -> memref<4x4xf32, strided<[16, 1], offset: 34>>
    %7 = "memref.cast"(%5) : (memref<16x16xf32>) -> memref<?x?xf32>
    %8 = "memref.alloca"(%3) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?xf16>
    %9 = "memref.load"(%arg2, %2) : (memref<8xi8, 3>, index) -> i8
    "memref.dealloc"(%5) : (memref<16x16xf32>) -> ()
    %10 = "memref.get_global"() <{name = @table}> : () -> memref<2xi32>
    "func.return"(%4) : (f32) -> ()
  }) : () -> ()
  "memref.global"() <{constant, initial_value = dense<[7, -3]> : tensor<2xi32>, sym_name = "table", sym_visibility = "private", type = memref<2xi32>}> : () -> ()
  "func.func"() <{function_type = (vector<2x[4]xf32>, complex<f64>, tuple<i32, f32>, f80, i4, ui16, si8, tensor<2xcomplex<f32>>, tensor<*xf32>, memref<*xf32>, none, index) -> (f128, tf32), sym_name = "types", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = () -> tensor<2xcomplex<f32>>, sym_name = "complex_constants"}> ({
    %0 = "arith.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
    %1 = "arith.constant"() <{value = dense<[true, false]> : vector<2xi1>}> : () -> vector<2xi1>
    "func.return"(%0) : (tensor<2xcomplex<f32>>) -> ()
  }) : () -> ()
}) : () -> ()


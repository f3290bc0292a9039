// memref: layouts (strided, affine maps), memory spaces, subviews, casts;
// builtin types geir keeps verbatim (vector, complex, tuple, f80, i4).
#perm = affine_map<(d0, d1) -> (d1, d0)>
func.func @buffers(%m: memref<4x?xf32, strided<[?, 1], offset: ?>>, %p: memref<4x4xf32, #perm>, %s: memref<8xi8, 3>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %m[%c0, %c1] : memref<4x?xf32, strided<[?, 1], offset: ?>>
  memref.store %v, %p[%c1, %c0] : memref<4x4xf32, #perm>
  %a = memref.alloc() {test.tag = 64 : i64} : memref<16x16xf32>
  %sub = memref.subview %a[2, 2] [4, 4] [1, 1] : memref<16x16xf32> to memref<4x4xf32, strided<[16, 1], offset: 34>>
  %cast = memref.cast %a : memref<16x16xf32> to memref<?x?xf32>
  %dyn = memref.alloca(%c1) : memref<?xf16>
  %x = memref.load %s[%c0] : memref<8xi8, 3>
  memref.dealloc %a : memref<16x16xf32>
  %g = memref.get_global @table : memref<2xi32>
  return %v : f32
}
memref.global "private" constant @table : memref<2xi32> = dense<[7, -3]>
func.func private @types(vector<2x[4]xf32>, complex<f64>, tuple<i32, f32>, f80, i4, ui16, si8, tensor<2xcomplex<f32>>, tensor<*xf32>, memref<*xf32>, none, index) -> (f128, tf32)
func.func @complex_constants() -> tensor<2xcomplex<f32>> {
  %c = arith.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>
  %v = arith.constant dense<[true, false]> : vector<2xi1>
  return %c : tensor<2xcomplex<f32>>
}

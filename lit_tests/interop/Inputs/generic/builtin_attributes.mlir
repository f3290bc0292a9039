#distinct = distinct[0]<42 : i32>
#map = affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>
#set = affine_set<(d0) : (d0 - 1 >= 0, d0 == 0)>
"builtin.module"() ({
  "test.attrs"() {big = 18446744073709551615 : ui64, bools = array<i1: true, false, true>, distinct_a = #distinct, distinct_b = #test.holder<distinct[1]<>>, empty = array<i64>, floats = array<f32: 1.500000e+00, -2.250000e+00>, i1t = true, inf = 2.1178512679360433E-314 : f64, m = #map, nan = 0x7FC00000 : f32, neg_zero = -0.000000e+00 : f32, nested = [[1, 2], [unit, "s"], {k = 3 : i8, "quoted key" = @"sym with space"::@inner}], s = #set, si = -128 : si8, small_hex = dense<[1, 2, 3, 4]> : tensor<4xi8>, sparse = sparse<[[0, 1], [1, 0]], [2.000000e+00, -1.000000e+00]> : tensor<2x2xf32>, str_typed = "x" : i32, strides = strided<[4, 1], offset: 2>, text = "tab\09here \22quoted\22 \\ and \00 bytes\0A", types = [i32, (i32, f32) -> (), tensor<?x4xf32, #test.enc<"csr">>, vector<[4]x2xf32>, memref<*xf32, 1>], ui = 255 : ui8} : () -> ()
  "test.uses"() {m = #map, s2 = #set} : () -> ()
}) : () -> ()


// Builtin attributes and types as MLIR prints them: distinct (aliased as
// #distinct), sparse and typed opaque ones, -0.0, hex floats, dense arrays,
// nested arrays and dictionaries, quoted symbols and keys, escaped strings,
// tensor encodings, scalable vectors.
"test.attrs"() {
  distinct_a = distinct[0]<42 : i32>,
  distinct_b = #test.holder<distinct[1]<>>,
  sparse = sparse<[[0, 1], [1, 0]], [2.0, -1.0]> : tensor<2x2xf32>,
  small_hex = dense<"0x01020304"> : tensor<4xi8>,
  neg_zero = -0.0 : f32,
  nan = 0x7FC00000 : f32,
  inf = 0xFF800000 : f64,
  bools = array<i1: true, false, true>,
  floats = array<f32: 1.5, -2.25>,
  empty = array<i64>,
  nested = [[1, 2], [unit, "s"], {k = 3 : i8, "quoted key" = @"sym with space"::@inner}],
  types = [i32, (i32, f32) -> (), tensor<?x4xf32, #test.enc<"csr">>, vector<[4]x2xf32>, memref<*xf32, 1>],
  text = "tab\there \"quoted\" \\ and \00 bytes\n",
  strides = strided<[4, 1], offset: 2>,
  m = affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>,
  s = affine_set<(d0) : (d0 - 1 >= 0, d0 == 0)>,
  i1t = true,
  ui = 255 : ui8,
  si = -128 : si8,
  big = 18446744073709551615 : ui64,
  str_typed = "x" : i32
} : () -> ()
"test.uses"() {m = affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>, s2 = affine_set<(d0) : (d0 - 1 >= 0, d0 == 0)>} : () -> ()

// Literals spelled as a person writes them: MLIR prints the numbers of dense
// vectors and complex tensors canonically, one repeated value as a splat, more
// than 100 elements as hex bytes; rounds bf16 and float8 values to their type;
// reads a signless integer's unsigned literal back signed.
"test.dense"() {
  f32_splat = dense<1.0> : vector<4xf32>,
  f32_list = dense<[1.5, -2.0, 0.1]> : vector<3xf32>,
  f32_same = dense<[2.0, 2.0]> : vector<2xf32>,
  f32_bits = dense<0x7FC00000> : vector<2xf32>,
  f32_bytes = dense<"0x0000803F0000004000004040"> : vector<3xf32>,
  f16_nested = dense<[[1.0, 2.5], [3.25, 4.0]]> : vector<2x2xf16>,
  bf16 = dense<[0.5, 1.0e10]> : vector<2xbf16>,
  i8_nested = dense<[[1, -2], [3, 0x7F]]> : vector<2x2xi8>,
  i1 = dense<[true, false, true]> : vector<3xi1>,
  index = dense<[0, 7]> : vector<2xindex>,
  large = dense<[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 13.0, 13.5, 14.0, 14.5, 15.0, 15.5, 16.0, 16.5, 17.0, 17.5, 18.0, 18.5, 19.0, 19.5, 20.0, 20.5, 21.0, 21.5, 22.0, 22.5, 23.0, 23.5, 24.0, 24.5, 25.0, 25.5, 26.0, 26.5, 27.0, 27.5, 28.0, 28.5, 29.0, 29.5, 30.0, 30.5, 31.0, 31.5, 32.0, 32.5, 33.0, 33.5, 34.0, 34.5, 35.0, 35.5, 36.0, 36.5, 37.0, 37.5, 38.0, 38.5, 39.0, 39.5, 40.0, 40.5, 41.0, 41.5, 42.0, 42.5, 43.0, 43.5, 44.0, 44.5, 45.0, 45.5, 46.0, 46.5, 47.0, 47.5, 48.0, 48.5, 49.0, 49.5, 50.0, 50.5, 51.0, 51.5, 52.0, 52.5, 53.0, 53.5, 54.0, 54.5, 55.0, 55.5, 56.0, 56.5, 57.0, 57.5, 58.0, 58.5, 59.0, 59.5]> : vector<120xf32>,
  scalable = dense<1> : vector<[4]xi32>,
  c32 = dense<[(1.0, 2.0), (3.5, -4.0)]> : tensor<2xcomplex<f32>>,
  c64_same = dense<[(1.0,2.0), (1.0,2.0)]> : tensor<2xcomplex<f64>>,
  c64_splat = dense<(0.1, 0.2)> : tensor<2x2xcomplex<f64>>,
  ci16 = dense<[[(1, 2)], [(3, 4)]]> : tensor<2x1xcomplex<i16>>,
  t_bf16 = dense<[0.5, 1.0e10, 0.1, 3.0e38]> : tensor<4xbf16>,
  t_f8 = dense<[0.1, 0.7, 448.0, 3.0e-3]> : tensor<4xf8E4M3FN>,
  t_f8e5 = dense<[0.1, 57344.0, 1.0e-5]> : tensor<3xf8E5M2>,
  s_f8 = 0.3 : f8E4M3FN,
  i8_unsigned_literal = 255 : i8,
  i8_hex = 0xFF : i8,
  i64_unsigned_literal = 18446744073709551615 : i64,
  t_i8_wrapped = dense<[200, 0x80, -1]> : tensor<3xi8>,
  v_i16_wrapped = dense<65535> : vector<4xi16>,
  a_i8_wrapped = array<i8: 200, 1>,
  i32_negative_hex = -0x10 : i32,
  untyped_hex = 0x7FFFFFFFFFFFFFFF,
  untyped_wrapped = 18446744073709551615,
  a_ui8_negative = array<ui8: -1, 255, -128>,
  a_i16_negative_hex = array<i16: -0x8000, 0x7FFF>,
  t_i8_negative_hex = dense<[-0x80, 0x7F]> : tensor<2xi8>,
  strings = dense<["a", "b\n", "q\""]> : tensor<3x!t.str>
} : () -> ()

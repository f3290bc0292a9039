// tensor and linalg: affine map aliases, iterator types, regions of
// linalg.generic / named ops, tensor.pad's region, reassociation indices.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @kernels(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %d: tensor<?x8xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = tensor.empty() : tensor<4x4xf32>
  %g = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) attrs = {note = "transpose"} {
  ^bb0(%in: f32, %out: f32):
    %x = arith.mulf %in, %in : f32
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%c0 : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %red = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%g : tensor<4x4xf32>) outs(%r1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %slice = tensor.extract_slice %a[0, 2] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %ins = tensor.insert_slice %slice into %g[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x4xf32>
  %pad = tensor.pad %slice low[1, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c0 : f32
  } : tensor<4x4xf32> to tensor<5x5xf32>
  %flat = tensor.collapse_shape %ins [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %back = tensor.expand_shape %flat [[0, 1]] output_shape [2, 8] : tensor<16xf32> into tensor<2x8xf32>
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %d, %c1 : tensor<?x8xf32>
  %el = tensor.extract %a[%c1, %c1] : tensor<4x8xf32>
  %gen = tensor.generate %dim {
  ^bb0(%i: index):
    tensor.yield %el : f32
  } : tensor<?xf32>
  %cast = tensor.cast %d : tensor<?x8xf32> to tensor<4x8xf32>
  %enc = tensor.empty() : tensor<4xf32, "enc">
  return %ins, %red : tensor<4x4xf32>, tensor<4xf32>
}

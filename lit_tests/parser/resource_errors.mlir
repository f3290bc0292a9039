// Malformed resources and types: each a located error.
// RUN: ge-opt %s --split-input-file --verify-diagnostics

ge.graph @g() -> tensor<64xf32> {
  // expected-error@+1 {{resource 'w' holds 8 bytes, but 'tensor<64xf32>' needs 256}}
  %w = ge.weights {value = dense_resource<w> : tensor<64xf32>} : () -> tensor<64xf32>
  ge.return %w : (tensor<64xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x10000000AABBCCDDAABBCCDD"
    }
  }
#-}

// -----

ge.graph @g() -> tensor<2xf32> {
  %w = ge.weights {value = dense_resource<w> : tensor<2xf32>} : () -> tensor<2xf32>
  ge.return %w : (tensor<2xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{resource blob's alignment header says 3, which is not a power of two}}
      w: "0x03000000AABBCCDDAABBCCDD"
    }
  }
#-}

// -----

ge.graph @g() -> tensor<2xf32> {
  %w = ge.weights {value = dense_resource<w> : tensor<2xf32>} : () -> tensor<2xf32>
  ge.return %w : (tensor<2xf32>) -> ()
}
{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{resource blob's alignment header says 0, which is not a power of two}}
      w: "0x00000000AABBCCDDAABBCCDD"
    }
  }
#-}

// -----

// expected-error@+1 {{tensor dimension -1 is negative (a dynamic dimension is written '?')}}
ge.graph @g(%x: tensor<-1x3xf32>) -> tensor<2x3xf32> {
  ge.return %x : (tensor<2x3xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{tensor dimension -4 is negative (a dynamic dimension is written '?')}}
  %y = ge.relu %x : (tensor<2x3xf32>) -> tensor<2x-4xf32>
  ge.return %x : (tensor<2x3xf32>) -> ()
}

// -----

ge.graph @g() -> tensor<4xf32> {
  // expected-error@+1 {{elements hex data size is invalid for provided type: 'tensor<4xf32>'}}
  %w = ge.const {value = dense<"0x0000803F0000803F"> : tensor<4xf32>} : () -> tensor<4xf32>
  ge.return %w : (tensor<4xf32>) -> ()
}

// -----

ge.graph @g(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error@+1 {{'ge.max_pool' op attribute 'kernel_shape' must be an array of integers, but got "3x3"}}
  %y = ge.max_pool %x {kernel_shape = "3x3"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  ge.return %y : (tensor<1x3x8x8xf32>) -> ()
}

// dense_resource blobs, external resources, and every kind of location:
// file:line:col (and ranges), names, call sites, fused (with metadata), unknown.
#meta = loc("meta.py":1:1)
module attributes {test.flag, test.dict = {a = [1, 2], b = "s"}} {
  func.func @weights(%x: tensor<2x2xf32> loc("arg":1:1), %y: i32 loc(unknown)) -> tensor<2x2xf32> {
    %w = arith.constant dense_resource<w0> : tensor<2x2xf32> loc("conv1/weight")
    %b = arith.constant dense_resource<b0> : tensor<2xi8> loc(callsite("inner"("lib.py":10:4) at "model.py":3:2))
    %s = arith.addf %x, %w : tensor<2x2xf32> loc(fused["model.py":4:1, "add"("model.py":4:9)])
    %t = arith.mulf %s, %s : tensor<2x2xf32> loc(fused<"torch">[#meta, "mul"])
    %u = arith.subf %t, %s : tensor<2x2xf32> loc("model.py":5:1 to 5:20)
    %v = arith.divf %u, %s : tensor<2x2xf32> loc("model.py":6:1 to 7:3)
    %q = arith.negf %v : tensor<2x2xf32> loc(unknown)
    return %q : tensor<2x2xf32> loc("ret"(unknown))
  } loc("model.py":1:1)
} loc("the_module")
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040000080C0",
      b0: "0x010000000102",
      unused: "0x04000000DEADBEEF"
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

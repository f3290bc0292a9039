"""Print a ge graph that is one chain of N ReLUs, each followed by a reshape."""
import sys

n = int(sys.argv[1])
a, b = "tensor<4x16xf32>", "tensor<64xf32>"
print(f"ge.graph @chain(%x: {a} {{ge.name = \"x\"}}) -> ({a} {{ge.name = \"y\"}}) {{")
print(f"  %flat = ge.const {{value = dense<[64]> : tensor<1xi64>}} : () -> tensor<1xi64>")
print(f"  %rows = ge.const {{value = dense<[4, 16]> : tensor<2xi64>}} : () -> tensor<2xi64>")
prev = "%x"
for i in range(n):
    t, u, s = (a, b, "%flat") if i % 2 == 0 else (b, a, "%rows")
    print(f"  %r{i} = ge.relu {prev} : ({t}) -> {t}")
    print(f"  %v{i} = ge.reshape %r{i}, {s} : ({t}, {s == '%flat' and 'tensor<1xi64>' or 'tensor<2xi64>'}) -> {u}")
    prev = f"%v{i}"
print(f"  ge.return {prev} : ({a}) -> ()")
print("}")

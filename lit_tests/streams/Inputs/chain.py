"""Print a ge graph that is one chain of N elementwise ops."""
import sys

n = int(sys.argv[1])
t = "tensor<4x16xf32>"
ops = ["relu", "sigmoid", "tanh"]
print(f"ge.graph @chain(%x: {t} {{ge.name = \"x\"}}) -> ({t} {{ge.name = \"y\"}}) {{")
prev = "%x"
for i in range(n):
    print(f"  %v{i} = ge.{ops[i % 3]} {prev} : ({t}) -> {t}")
    prev = f"%v{i}"
print(f"  ge.return {prev} : ({t}) -> ()")
print("}")

"""A graph holding N ge.if nested one in another's then branch (N + 1 levels of
regions), one op per line: python nested_ifs.py N > nested.mlir"""

import sys

n = int(sys.argv[1])
lines = ["ge.graph @main(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {"]
lines += [f"%r{i} = ge.if %p ({{" for i in range(n)]
lines += ["%a = ge.relu %x : (tensor<4xf32>) -> tensor<4xf32>", "ge.yield %a : (tensor<4xf32>) -> ()"]
for i in reversed(range(n)):
    lines += ["}, {", "ge.yield %x : (tensor<4xf32>) -> ()", "}) : (tensor<i1>) -> tensor<4xf32>"]
    if i > 0:
        lines.append(f"ge.yield %r{i} : (tensor<4xf32>) -> ()")
lines += ["ge.return %r0 : (tensor<4xf32>) -> ()" if n else "ge.return %x : (tensor<4xf32>) -> ()", "}"]
print("\n".join(lines))

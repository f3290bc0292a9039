#!/usr/bin/env bash
# Re-make the corpus: upstream MLIR (iree-opt, the `peers` extra) prints each
# source in src/ in generic form, without and with debug info. Records the
# version it used in VERSION. Run from anywhere: bash regenerate.sh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p generic debuginfo
for src in src/*.mlir; do
  name=$(basename "$src")
  iree-opt --allow-unregistered-dialect --mlir-print-op-generic "$src" -o "generic/$name"
  iree-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo "$src" -o "debuginfo/$name"
done
{
  echo "# The corpus in generic/ and debuginfo/ was printed by:"
  echo "iree-base-compiler $(python -c 'import importlib.metadata as m; print(m.version("iree-base-compiler"))')"
  iree-opt --version | sed -n 's/^ *\(LLVM version .*\)/\1/p'
} > VERSION

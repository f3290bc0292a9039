# -*- Python -*-
# lit configuration: RUN lines call the installed tools (ge-opt, ge-translate,
# ge-run) and `filecheck` (the Python port of LLVM FileCheck).
import os
import shutil
import sys

import lit.formats

config.name = "geir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

# The tools live next to the interpreter running lit (the project's venv).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The ONNX models of the importer's tests (built by import/Inputs/make_models.py).
config.substitutions.append(("%onnx", os.path.join(config.test_source_root, "import", "Inputs")))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples")))
# Round trips: print, re-parse, print again.
config.substitutions.append(("%roundtrip-generic", "ge-opt --mlir-print-op-generic %s | ge-opt --mlir-print-op-generic"))
config.substitutions.append(("%roundtrip", "ge-opt %s | ge-opt"))

if shutil.which("iree-opt", path=config.environment["PATH"]):
    config.available_features.add("mlir-peer")
    # The `iree-opt` script only starts the native binary beside IREE's libraries;
    # calling that directly saves an interpreter start per RUN line.
    try:
        from iree.compiler.tools.binaries import find_tool as find_iree_tool
        native = os.path.dirname(os.path.realpath(find_iree_tool("iree-opt")))
        config.environment["PATH"] = os.pathsep.join([native, config.environment["PATH"]])
    except (ImportError, ValueError):
        pass

# ge-run --timeline draws with matplotlib, an optional extra.
import importlib.util  # noqa: E402
if importlib.util.find_spec("matplotlib") is not None:
    config.available_features.add("matplotlib")

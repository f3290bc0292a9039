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
for var in ("HOME", "TMPDIR", "PYTHONPATH", "OPENBLAS_NUM_THREADS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def _start_tool_server() -> str:
    """Serve the tools from one forking process (lit_tests/tool_server.py):
    each RUN line's `ge-opt` or `filecheck` then skips the interpreter start and
    the imports. GEIR_LIT_FRESH_TOOLS=1 runs every tool in a fresh interpreter.
    Returns what `%python` runs: the interpreter, or its shim when served."""
    import atexit
    import json
    import subprocess
    import tempfile

    if os.environ.get("GEIR_LIT_FRESH_TOOLS", "") not in ("", "0") or not hasattr(os, "fork"):
        return sys.executable
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from tool_server import TOOLS
    scratch = tempfile.mkdtemp(prefix="geir-lit-")
    socket_path = os.path.join(scratch, "tools.sock")
    # The server starts in the RUN lines' environment; a RUN line that changes a
    # PYTHON* variable other than PYTHONPATH (they act at interpreter start)
    # gets a fresh interpreter.
    from tool_client import SERVER_PYTHON_VARIABLES
    server_env = dict(config.environment)
    server = subprocess.Popen([sys.executable, os.path.join(here, "tool_server.py"), socket_path],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=server_env)

    def stop() -> None:
        server.terminate()
        server.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    atexit.register(stop)
    if server.stdout.readline().strip() != "ready":
        return sys.executable
    shims = os.path.join(scratch, "bin")
    os.makedirs(shims)
    for tool in TOOLS:
        real = shutil.which(tool, path=config.environment["PATH"])
        if real is None:
            continue
        shim = os.path.join(shims, tool)
        with open(shim, "w") as f:
            f.write(f"#!{sys.executable} -SE\n"
                    f"import sys\nsys.path.insert(0, {here!r})\n"
                    f"from tool_client import main\nmain({tool!r}, {real!r}, {socket_path!r})\n")
        os.chmod(shim, 0o755)
    config.environment["PATH"] = os.pathsep.join([shims, config.environment["PATH"]])
    config.environment[SERVER_PYTHON_VARIABLES] = json.dumps(
        {k: v for k, v in server_env.items() if k.startswith("PYTHON") and k != "PYTHONPATH"})
    python = os.path.join(scratch, "python")  # for `%python` only: not on PATH
    with open(python, "w") as f:
        f.write(f"#!{sys.executable} -SE\n"
                f"import sys\nsys.path.insert(0, {here!r})\n"
                f"from tool_client import python\npython({sys.executable!r}, {socket_path!r})\n")
    os.chmod(python, 0o755)
    return python


config.substitutions.append(("%python", _start_tool_server()))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The ONNX models of the importer's tests (built by import/Inputs/make_models.py).
config.substitutions.append(("%onnx", os.path.join(config.test_source_root, "import", "Inputs")))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples")))
# MLIR's own tests call LLVM's FileCheck by that name: the same tool here.
config.substitutions.append((r"\bFileCheck\b", "filecheck"))
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

"""A fork server for the lit suite's command-line tools.

Every RUN line starts `ge-opt`, `ge-run`, `ge-translate`, `ge-bench` or
`filecheck`: a fresh interpreter that imports numpy, lark, attrs and the IR core
before doing a few milliseconds of work. This server imports those once; each
call forks it, and the child runs the tool's console-script entry point with
the caller's arguments, working directory, environment and standard streams
(passed as file descriptors), then exits as the interpreter would. The caller
(``tool_client.py``, installed in lit's PATH under each tool's name) exits with
the child's status, or runs the real tool itself when no server answers.
``%python -m geir.tools.<module>`` is served the same way.

    python tool_server.py SOCKET        (started by lit.cfg.py, ends with lit)
"""

from __future__ import annotations

import gc
import glob
import importlib
import io
import json
import os
import random
import re
import runpy
import select
import signal
import socket
import struct
import sys
from importlib.metadata import entry_points
from typing import Callable

#: the tools served: console-script names
TOOLS = ("ge-opt", "ge-translate", "ge-run", "ge-bench", "filecheck")

#: what every tool reads first: imported once, before any fork
PRELOAD = ("numpy", "lark", "attrs", "geir.parser", "geir.printer", "geir.verifier", "geir.dialects.builtin",
           "geir.diagnostic_verifier", "geir.passes.registry", "geir.passes.pass_manager", "geir.passes.pipeline",
           "geir.passes.instrumentation", "geir.tools.driver",
           # ge-translate and ge-run: the importer, lowering, the emulator, the scheduler's matching
           "onnx", "geir.onnx_importer", "geir.passes.canonicalize", "geir.passes.lower_to_tasks",
           "geir.backends.run_model", "geir.backends.emulator", "geir.backends.interpreter", "geir.report",
           "geir.tools.ge_run_compile", "geir.tools.ge_run_corun", "geir.tools.ge_run_emulator",
           "geir.tools.ge_run_scenarios", "geir.tools.ge_run_sweep", "scipy.sparse.csgraph")

HERE = os.path.dirname(os.path.abspath(__file__))

#: a line `#name = ...` or `!name = ...`
_ALIAS_DEFINITION = re.compile(r"^[#!][\w.$-]+\s*=", re.MULTILINE)


def _entry_points() -> dict[str, Callable[[], object]]:
    scripts = {ep.name: ep for ep in entry_points(group="console_scripts") if ep.name in TOOLS}
    return {name: scripts[name].load() for name in TOOLS if name in scripts}


def _preload() -> None:
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the tool reports the same error when it imports the module
            pass
    # Lark's contextual lexer compiles a regex per parser state on first use:
    # reading the suite's inputs once compiles them before the forks. Inputs
    # that define aliases are left out: the parser names interned opaque types
    # and attributes after the aliases it reads, which would change what a
    # child prints.
    from geir.parser import parse_module
    inputs = glob.glob(os.path.join(os.path.dirname(HERE), "examples", "*.mlir"))
    inputs += glob.glob(os.path.join(HERE, "**", "*.mlir"), recursive=True)
    for path in sorted(inputs):
        try:
            with open(path, encoding="utf-8") as f:
                chunks = f.read().split("// -----")
        except (OSError, UnicodeDecodeError):  # a test's own bad input: the test reads it
            continue
        for chunk in chunks:
            if _ALIAS_DEFINITION.search(chunk):
                continue
            try:
                parse_module(chunk, path, allow_unregistered=True)
            except Exception:  # noqa: BLE001 - bad inputs are part of the suite
                pass


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    if len(data) < 4:
        raise ConnectionError("short request")
    (size,) = struct.unpack("!I", data[:4])
    body = data[4:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ConnectionError("truncated request")
        body += chunk
    return json.loads(body), fds


def _fresh_stdio() -> None:
    """Standard streams over fds 0-2 as a starting interpreter makes them (the
    server's own were made for other files: buffering and seekability differ)."""
    encoding = os.environ.get("PYTHONIOENCODING", "utf-8").split(":")[0] or "utf-8"

    def stream(fd: int, mode: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(buffered, encoding=encoding, errors=errors,
                                line_buffering=line_buffering or raw.isatty(), write_through=False)

    sys.stdin = sys.__stdin__ = stream(0, "r", "strict", False)
    sys.stdout = sys.__stdout__ = stream(1, "w", "strict", False)
    sys.stderr = sys.__stderr__ = stream(2, "w", "backslashreplace", True)


def _run_child(conn: socket.socket, tools: dict[str, Callable[[], object]]) -> None:
    """In the forked child: become the requested tool, then exit like it."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    request, fds = _receive(conn)
    conn.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    module = request.get("module")
    # sys.path as the interpreter would start it: the script's folder (the
    # working directory for -m), the caller's PYTHONPATH, then the rest
    first = os.getcwd() if module is not None else os.path.dirname(os.path.abspath(request["argv0"]))
    path = [first, *(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p),
            *_BASE_PATH]
    sys.path[:] = list(dict.fromkeys(path))
    importlib.invalidate_caches()
    _fresh_stdio()
    random.seed()  # a fresh interpreter's generators start from fresh entropy, not the server's state
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if module is not None:  # `python -m geir.tools.x`: run the module afresh as __main__
        sys.modules.pop(module, None)
        sys.argv = [module, *request["args"]]  # run_module puts the module's path first
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        sys.exit(0)
    sys.argv = [request["argv0"], *request["args"]]
    main = tools[request["tool"]]
    sys.exit(main())  # exceptions and exit codes unwind as in the console script


#: the server's sys.path after its script's folder and its PYTHONPATH entries
_BASE_PATH: list[str] = []


def serve(path: str) -> None:
    """Accept calls on the Unix socket ``path`` until the parent (lit) exits."""
    own = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    _BASE_PATH[:] = [p for p in sys.path[1:] if p not in own]
    parent = os.getppid()
    tools = _entry_points()
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select() through the pipe
    # Objects made so far stay out of the collector's passes: a child's collection
    # would otherwise touch (and copy) every page it shares with the server.
    gc.collect()
    gc.freeze()
    waiting: dict[int, socket.socket] = {}  # child pid -> the caller's connection
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent:
        readable, _, _ = select.select([listener, wake_r], [], [], 1.0)
        if wake_r in readable:
            os.read(wake_r, 4096)
        if listener in readable:
            conn, _ = listener.accept()
            pid = os.fork()
            if pid == 0:
                listener.close()
                _run_child(conn, tools)
            waiting[pid] = conn
        while waiting:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
                except OSError:
                    pass
                conn.close()
    os.unlink(path)


if __name__ == "__main__":
    serve(sys.argv[1])

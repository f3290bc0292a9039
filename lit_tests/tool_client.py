"""The caller side of ``tool_server.py``: a RUN line's `ge-opt` (or another
served tool) hands its arguments, working directory, environment and standard
streams to the server and exits with the status of the child that ran the
tool; with no server it runs the real tool. It imports only the standard
library and runs under ``python -S``, so it starts in a few milliseconds."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys


#: the environment variable holding the server's own ``PYTHON*`` variables (JSON)
SERVER_PYTHON_VARIABLES = "GEIR_LIT_TOOL_SERVER_PYTHON"

#: ``python -m`` modules the server runs
SERVED_MODULES = "geir.tools."


def python(real: str, server: str | None) -> None:
    """``python -m geir.tools.<module> ...`` through the server; anything else
    (``-c``, scripts, other modules) runs ``real``, the interpreter itself."""
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "-m" and args[1].startswith(SERVED_MODULES):
        _call(server, {"module": args[1], "args": args[2:]}, args[1])
    os.execv(real, [real, *args])


def main(tool: str, real: str, server: str | None) -> None:
    """Run ``tool`` through the server listening on ``server``, else exec ``real``."""
    _call(server, {"tool": tool, "argv0": real, "args": sys.argv[1:]}, tool)
    os.execv(real, [real, *sys.argv[1:]])


def _python_variables() -> dict[str, str]:
    # PYTHONPATH is left out: the server's child puts it on sys.path itself
    # (lit sets it for its out-of-process builtins such as `not`)
    return {k: v for k, v in os.environ.items() if k.startswith("PYTHON") and k != "PYTHONPATH"}


def _call(server: str | None, request: dict, name: str) -> None:
    """Have the server run ``request`` and exit with its status; return when no
    server answers, or when the caller's ``PYTHON*`` variables are not the
    server's (``env PYTHONHASHSEED=0 ge-opt``: they act at interpreter start)."""
    if server and _python_variables() != json.loads(os.environ.get(SERVER_PYTHON_VARIABLES, "null")):
        server = None
    if server:
        try:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(server)
        except OSError:
            conn = None
        if conn is not None:
            body = json.dumps({**request, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
            socket.send_fds(conn, [struct.pack("!I", len(body)) + body], [0, 1, 2])
            reply = b""
            while len(reply) < 4:
                chunk = conn.recv(4 - len(reply))
                if not chunk:
                    break
                reply += chunk
            if len(reply) == 4:
                (code,) = struct.unpack("!i", reply)
                if code < 0:  # the child died of a signal: so do we
                    signal.signal(-code, signal.SIG_DFL)
                    os.kill(os.getpid(), -code)
                os._exit(code)
            sys.stderr.write(f"{name}: the lit tool server closed the connection\n")
            os._exit(70)

"""``ge-translate``: convert between geir IR and other formats.

  ge-translate --import-onnx model.onnx [--input-shape x=1x3x224x224] [--strict] -o model.mlir
  ge-translate --export-tasks-json tasks.mlir -o tasks.json
  ge-translate --import-tasks-json tasks.json -o tasks.mlir
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ge-translate", description="Translate between geir IR and other formats.")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--import-onnx", action="store_true", help="ONNX model -> ge dialect")
    mode.add_argument("--export-tasks-json", action="store_true", help="rt dialect -> task-list JSON")
    mode.add_argument("--import-tasks-json", action="store_true", help="task-list JSON -> rt dialect")
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="bind a dynamic input shape, e.g. x=1x3x224x224 (repeatable)")
    p.add_argument("--strict", action="store_true", help="fail on ONNX ops with no native ge op")
    p.add_argument("--mlir-print-op-generic", "--print-op-generic", dest="generic", action="store_true")
    p.add_argument("--mlir-print-debuginfo", dest="debuginfo", action="store_true")
    p.add_argument("--elide-large-constants", dest="elide", nargs="?", const=16, type=int, default=None, metavar="N")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    from geir.tools.driver import run_guarded
    return run_guarded(lambda: _run(args), "ge-translate")


def _parse_shape_bindings(items: list[str]) -> dict[str, tuple[int, ...]]:
    from geir.diagnostics import Diagnostic, DiagnosticError
    out: dict[str, tuple[int, ...]] = {}
    for item in items:
        name, eq, dims = item.rpartition("=")
        try:
            if not eq or not name:
                raise ValueError
            out[name] = tuple(int(d) for d in dims.lower().split("x")) if dims else ()
        except ValueError:
            raise DiagnosticError(Diagnostic("error", f"--input-shape expects NAME=DxDxD, got '{item}'")) from None
    return out


def _run(args: argparse.Namespace) -> int:
    from geir.printer import PrintOptions, module_to_string
    from geir.tools.driver import read_input, write_output
    options = PrintOptions(generic=args.generic, debuginfo=args.debuginfo, elide_constants_larger_than=args.elide)
    if args.import_onnx:
        from geir.onnx_importer import import_onnx
        source = sys.stdin.buffer.read() if args.input == "-" else args.input
        module = import_onnx(source, input_shapes=_parse_shape_bindings(args.input_shape), strict=args.strict)
        write_output(args.output, module_to_string(module, options))
        return 0
    if args.export_tasks_json:
        from geir.backends.task_json import module_to_json
        from geir.parser import parse_module
        from geir.verifier import verify
        name, text = read_input(args.input)
        module = parse_module(text, name, allow_unregistered=args.allow_unregistered_dialect)
        verify(module, allow_unregistered=args.allow_unregistered_dialect)
        write_output(args.output, module_to_json(module))
        return 0
    from geir.backends.task_json import json_to_module
    name, text = read_input(args.input)
    write_output(args.output, module_to_string(json_to_module(text, name), options))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``ge-translate``: convert between geir IR and other formats.

  ge-translate --import-onnx model.onnx [--input-shape x=1x3x224x224] [--strict] -o model.mlir
  ge-translate --import-onnx model.onnx --input-shape batch=4 -o model.mlir     # bind a symbolic dim
  ge-translate --import-onnx model.onnx --dynamic-batch-size=1,2,4,8 -o gears.mlir
  ge-translate --import-onnx model.onnx --dynamic-image-size="224,224;448,448" -o gears.mlir
  ge-translate --import-onnx model.onnx --dynamic-dims="1,16;4,32" -o gears.mlir
  ge-translate --export-tasks-json tasks.mlir -o tasks.json
  ge-translate --import-tasks-json tasks.json -o tasks.mlir

Without ``--input-shape``, a dynamic dim imports as ``?`` with its ONNX name in
a ``ge.symbols`` argument attribute. A gear option (GE's ATC names) writes one
static graph per gear into one module; ``ge-run`` picks the smallest gear that
fits its inputs and compiles it for its device as any static model.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def build_arg_parser() -> argparse.ArgumentParser:
    from geir.tools.driver import refuse_repeated_options
    p = argparse.ArgumentParser(prog="ge-translate", description="Translate between geir IR and other formats.")
    refuse_repeated_options(p)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--import-onnx", action="store_true", help="ONNX model -> ge dialect")
    mode.add_argument("--export-tasks-json", action="store_true", help="rt dialect -> task-list JSON")
    mode.add_argument("--import-tasks-json", action="store_true", help="task-list JSON -> rt dialect")
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="bind a dynamic input shape (x=1x3x224x224, or ATC's x:1,3,224,224) or symbolic dim (batch=4); "
                        "repeatable")
    gears = p.add_mutually_exclusive_group()
    gears.add_argument("--dynamic-batch-size", default=None, metavar="N,N,...",
                       help="with --import-onnx: one static graph per batch size (dim 0 of the inputs)")
    gears.add_argument("--dynamic-image-size", default=None, metavar="H,W;H,W;...",
                       help="with --import-onnx: one static graph per image size (dims 2, 3 of NCHW inputs)")
    gears.add_argument("--dynamic-dims", default=None, metavar="D,D;D,D;...",
                       help="with --import-onnx: one static graph per set of sizes of the dynamic dims, in order")
    p.add_argument("--strict", action="store_true", help="fail on ONNX ops with no native ge op")
    p.add_argument("--elide-weights", action="store_true",
                   help="with --import-onnx: import the weights without their values (types kept; the IR then "
                        "runs timing-only)")
    p.add_argument("--precision-mode", default=None, metavar="MODE",
                   help="with --import-onnx: the types ops compute in, as ATC's --precision_mode (force_fp16, "
                        "allow_fp32_to_fp16, allow_mix_precision, must_keep_origin_dtype, force_fp32; the "
                        "precision-mode pass on 910B2)")
    p.add_argument("--insert-op-conf", default=None, metavar="FILE",
                   help="with --import-onnx: static AIPP before the inputs an ATC AIPP configuration names, as "
                        "ATC's --insert_op_conf (the insert-aipp pass)")
    p.add_argument("--mlir-print-op-generic", "--print-op-generic", dest="generic", action="store_true")
    p.add_argument("--mlir-print-debuginfo", dest="debuginfo", action="store_true")
    p.add_argument("--elide-large-constants", "--mlir-elide-elementsattrs-if-larger", dest="elide", nargs="?",
                   const=16, type=int, default=None, metavar="N")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    from geir.tools.driver import add_debug_argument
    add_debug_argument(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from geir.tools.driver import llvm_style_arguments, run_guarded
    parser = build_arg_parser()
    args = parser.parse_args(llvm_style_arguments(parser, sys.argv[1:] if argv is None else argv))
    return run_guarded(lambda: _run(args), "ge-translate", args.debug)


def _gear_option(args: argparse.Namespace) -> tuple[str, str] | None:
    for kind, value in (("batch", args.dynamic_batch_size), ("image", args.dynamic_image_size),
                        ("dims", args.dynamic_dims)):
        if value is not None:
            return kind, value
    return None


def _run(args: argparse.Namespace) -> int:
    from geir.printer import PrintOptions, print_module
    from geir.output_file import check_writable
    from geir.tools.driver import read_input, write_output
    check_writable(args.output)  # before the import, not after it
    options = PrintOptions(generic=args.generic, debuginfo=args.debuginfo, elide_constants_larger_than=args.elide)
    gear = _gear_option(args)
    if args.import_onnx:
        from geir.api import import_onnx
        from geir.passes.specialize_shapes import parse_shape_bindings
        bindings = parse_shape_bindings(args.input_shape)
        gears = None
        if gear is not None:
            from geir.backends.shape_gears import parse_gears
            gears = parse_gears(gear[0], gear[1])
        source = sys.stdin.buffer.read() if args.input == "-" else args.input
        # binding dims folds the shape arithmetic they feed, as GE's --input_shape
        module = import_onnx(source, input_shapes=bindings, strict=args.strict, elide_weights=args.elide_weights)
        from geir.passes.pass_base import PassContext
        if args.insert_op_conf is not None:
            from geir.passes.insert_aipp import InsertAipp
            InsertAipp(args.insert_op_conf).run(module, PassContext())
        if args.precision_mode is not None:
            from geir.passes.precision_mode import PrecisionMode
            PrecisionMode(args.precision_mode).run(module, PassContext())
        if gear is not None:
            from geir.backends.shape_gears import specialize_gears
            from geir.verifier import verify
            specialize_gears(module, gear[0], gears)  # type: ignore[arg-type]
            verify(module)
        write_output(args.output, lambda out: print_module(module, out, options))
        return 0
    for flag, value in (("--precision-mode", args.precision_mode), ("--insert-op-conf", args.insert_op_conf)):
        if value is not None:
            from geir.diagnostics import Diagnostic, DiagnosticError
            raise DiagnosticError(Diagnostic("error", f"{flag} goes with --import-onnx"))
    if gear is not None or args.input_shape or args.elide_weights:
        from geir.diagnostics import Diagnostic, DiagnosticError
        what = "--elide-weights goes" if args.elide_weights else "--input-shape and the gear options go"
        raise DiagnosticError(Diagnostic("error", f"{what} with --import-onnx"))
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
    imported = json_to_module(text, name)
    write_output(args.output, lambda out: print_module(imported, out, options))
    return 0


if __name__ == "__main__":
    sys.exit(main())

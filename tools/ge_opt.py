"""``ge-opt``: parse IR, run a pass pipeline, print IR — with ``mlir-opt``'s flags.

Heavy modules (lark, numpy, the dialects, the passes) are imported only after the
arguments are read, so ``ge-opt --version`` starts at once.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from typing import Any, Sequence, TextIO

VERSION = "0.1.0"


class _PassFlag(argparse.Action):
    """``--canonicalize`` / ``--partition-streams='max-streams=4'``: appends to the
    pipeline in command-line order."""

    def __call__(self, parser: argparse.ArgumentParser, ns: argparse.Namespace, value: Any,
                 option_string: str | None = None) -> None:
        ns.pass_flags.append((self.dest, value or ""))


class _BoolFlag(argparse.Action):
    """``--verify-each`` or ``--verify-each=false`` (MLIR's cl::opt<bool> style)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("nargs", "?")
        kwargs.setdefault("const", "true")  # given bare
        super().__init__(*args, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, ns: argparse.Namespace, value: Any,
                 option_string: str | None = None) -> None:
        if value is None or value.lower() in ("true", "1"):
            setattr(ns, self.dest, True)
        elif value.lower() in ("false", "0"):
            setattr(ns, self.dest, False)
        else:
            parser.error(f"{option_string} expects true or false, got '{value}'")


def build_arg_parser() -> argparse.ArgumentParser:
    from geir.passes.registry import PASSES
    from geir.tools.driver import refuse_repeated_options
    p = argparse.ArgumentParser(prog="ge-opt", description="Run geir pass pipelines on IR files (like mlir-opt).")
    refuse_repeated_options(p)
    p.add_argument("inputs", nargs="*", default=["-"], metavar="input",
                   help="input file(s) ('-' for stdin); several are processed one by one, like split chunks")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--pass-pipeline", default=None, help="a textual pipeline: 'p1,p2{opt=v}'")
    p.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against '// expected-error {{...}}' annotations")
    p.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass")
    p.add_argument("--mlir-print-ir-before", default="", metavar="PASSES",
                   help="print the IR before each of these passes (comma-separated names)")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass")
    p.add_argument("--mlir-print-ir-after", default="", metavar="PASSES",
                   help="print the IR after each of these passes (comma-separated names)")
    p.add_argument("--mlir-print-ir-after-change", action="store_true",
                   help="print the IR after a pass only when it changed the IR")
    p.add_argument("--dump-pass-pipeline", action="store_true", help="print the pipeline that runs, before it runs")
    p.add_argument("--mlir-disable-threading", action="store_true",
                   help="accepted for mlir-opt's command lines: passes run on one thread anyway")
    p.add_argument("--verify-each", action=_BoolFlag, default=True, help="verify after each pass (default true)")
    p.add_argument("--mlir-timing", action="store_true", help="print a time report of parsing, passes and output")
    p.add_argument("--mlir-print-op-generic", "--print-op-generic", dest="generic", action="store_true",
                   help="print MLIR's generic form")
    p.add_argument("--mlir-print-debuginfo", dest="debuginfo", action="store_true", help="print op locations")
    p.add_argument("--mlir-print-local-scope", dest="local_scope", action="store_true",
                   help="print no aliases: attributes, types and locations inline where used")
    p.add_argument("--elide-large-constants", "--mlir-elide-elementsattrs-if-larger", dest="elide", nargs="?",
                   const=16, type=int, default=None, metavar="N",
                   help="print constants of more than N (16) elements as dense_resource<__elided__>")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops no dialect defines")
    p.add_argument("-Rpass", dest="remarks", default=None, metavar="REGEX",
                   help="print the optimisation remarks of the passes whose name matches REGEX "
                        "(-Rpass=assign-engines, -Rpass='.*'); remarks are silent otherwise")
    p.add_argument("--list-passes", action="store_true", help="list the passes and their options")
    p.add_argument("--version", action="version", version=f"ge-opt {VERSION}")
    group = p.add_argument_group("passes (in command-line order; options after '=': --canonicalize=max-iterations=1)")
    for name in sorted(PASSES):
        group.add_argument(f"--{name}", dest=name, action=_PassFlag, nargs="?", const="",
                           metavar="OPTIONS", help=f"run the {name} pass")
    p.set_defaults(pass_flags=[])
    from geir.tools.driver import add_debug_argument
    add_debug_argument(p)
    return p


def list_passes(out: Any) -> None:
    from geir.passes.registry import all_pass_classes, pass_options
    for cls in all_pass_classes():
        out.write(f"  --{cls.name}  {cls.summary}\n")
        for o in pass_options(cls):
            out.write(f"      {o.name}=<{o.type.__name__}>  {o.help} (default: {_default_text(o.default)})\n")
    from geir.passes.pipeline import NAMED_PIPELINES, pipeline_options
    out.write("Pipelines (--pass-pipeline=NAME or NAME{options}):\n")
    for name, text in sorted(NAMED_PIPELINES.items()):
        out.write(f"  {name}  {text}\n")
        for option in pipeline_options(name):
            infos = [info for _, info in option.passes]
            reaches = ", ".join(f"{pass_name}'s {info.name}" if info.name != option.name else pass_name
                                for pass_name, info in option.passes)
            defaults = {_default_text(info.default) for info in infos}
            default = f"default: {defaults.pop()}; " if len(defaults) == 1 and "" not in defaults else ""
            out.write(f"      {option.name}=<{infos[0].type.__name__}>  {option.help} "
                      f"({default}to {reaches})\n")


def _default_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def main(argv: Sequence[str] | None = None) -> int:
    from geir.tools.driver import llvm_style_arguments, run_guarded
    parser = build_arg_parser()
    args = parser.parse_args(llvm_style_arguments(parser, sys.argv[1:] if argv is None else argv))
    if args.list_passes:
        list_passes(sys.stdout)
        return 0
    return run_guarded(lambda: _run(args), "ge-opt", args.debug)


def _run(args: argparse.Namespace) -> int:
    from geir.diagnostic_verifier import check_diagnostics, parse_expectations
    from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile, SourceManager
    from geir.parser import parse_module, split_input_file
    from geir.printer import PrintOptions, print_module
    from geir.verifier import verify
    from geir.passes.instrumentation import PassTiming, PrintIR, TimingReport
    from geir.passes.pass_base import PassContext
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import PipelineError, parse_pipeline
    from geir.output_file import check_writable
    from geir.tools.driver import read_input, write_output

    check_writable(args.output)  # before the passes, not after them
    t_start = time.perf_counter()
    try:
        passes = parse_pipeline(args.pass_pipeline) if args.pass_pipeline else []
        for name, opts in args.pass_flags:
            passes += parse_pipeline(f"{name}{{{opts}}}" if opts else name)
    except PipelineError as e:
        sys.stderr.write(f"ge-opt: error: {e}\n")
        return 1
    try:
        before = _pass_names(args.mlir_print_ir_before, "--mlir-print-ir-before")
        after = _pass_names(args.mlir_print_ir_after, "--mlir-print-ir-after")
    except ValueError as e:
        sys.stderr.write(f"ge-opt: error: {e}\n")
        return 1
    if args.dump_pass_pipeline:
        sys.stderr.write(f"Pass Manager with {len(passes)} passes:\n"
                         f"builtin.module({','.join(p.pipeline_text() for p in passes)})\n")
    if args.remarks is not None:
        import re
        try:
            re.compile(args.remarks)
        except re.error as e:
            sys.stderr.write(f"ge-opt: error: -Rpass='{args.remarks}' is not a valid regular expression: {e}\n")
            return 1
    options = PrintOptions(generic=args.generic, debuginfo=args.debuginfo, local_scope=args.local_scope,
                           elide_constants_larger_than=args.elide)
    sources = SourceManager()
    chunks: list[tuple[str, str, int]] = []
    for path in args.inputs:
        name, text = read_input(path)
        sources.add(SourceFile(name, text))  # every chunk's diagnostics show their source line
        chunks += [(name, c, o) for c, o in (split_input_file(text) if args.split_input_file else [(text, 0)])]
    outputs: list[Any] = []  # the modules to print
    failed = False
    timing = TimingReport() if args.mlir_timing else None
    for name, chunk, offset in chunks:
        emitted: list[Diagnostic] = []
        result: Any = None
        dump = io.StringIO()
        try:
            t0 = time.perf_counter()
            module = parse_module(chunk, name, allow_unregistered=args.allow_unregistered_dialect, line_offset=offset)
            verify(module, allow_unregistered=args.allow_unregistered_dialect)
            if timing is not None:
                timing.add("Parser", time.perf_counter() - t0)
            pm = PassManager(list(passes), verify_each=args.verify_each,
                             allow_unregistered=args.allow_unregistered_dialect)
            # --mlir-print-ir-after-change alone prints after every pass that changed the IR
            after_all = args.mlir_print_ir_after_all or args.mlir_print_ir_after_change and not after
            if before or after or after_all or args.mlir_print_ir_before_all:
                pm.instrumentations.append(PrintIR(dump, options, before=before, after=after,
                                                   before_all=args.mlir_print_ir_before_all, after_all=after_all,
                                                   only_on_change=args.mlir_print_ir_after_change))
            if timing is not None:
                pm.instrumentations.append(PassTiming(timing))
            ctx = PassContext()
            try:
                pm.run(module, ctx)
            finally:
                emitted.extend(ctx.diagnostics)
            result = module
        except DiagnosticError as e:
            emitted.extend(e.diagnostics)
            for source in e.source_files:  # a file a pass option names
                sources.add(source)
        sys.stderr.write(dump.getvalue())
        if args.verify_diagnostics:
            try:
                problems = check_diagnostics(name, parse_expectations(chunk, offset, name), emitted)
            except DiagnosticError as e:  # an annotation that does not parse
                problems = list(e.diagnostics)
            if problems:
                failed = True
                sys.stderr.write("".join(p.format(sources) for p in problems))
        else:
            shown = [d for d in emitted if d.severity != "remark" or _remark_wanted(d, args.remarks)]
            if shown:
                sys.stderr.write("".join(d.format(sources) for d in shown))
            if any(d.severity == "error" for d in emitted):
                failed = True
        if result is not None:
            outputs.append(result)
    if not failed:
        def emit(out: TextIO) -> None:
            # printed straight into the output file: a model's weights are never one string
            t1 = time.perf_counter()
            for i, module in enumerate(outputs):
                if i:
                    out.write("// -----\n")
                print_module(module, out, options)
            if timing is not None:
                timing.add("Output", time.perf_counter() - t1)
        write_output(args.output, emit)
    if timing is not None:
        sys.stderr.write(timing.format(time.perf_counter() - t_start))
    return 1 if failed else 0


def _pass_names(text: str, flag: str) -> list[str]:
    """The pass names of ``--mlir-print-ir-before=a,b``; ValueError naming an unknown one."""
    from geir.passes.registry import PASSES
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in PASSES:
            import difflib
            close = difflib.get_close_matches(name, list(PASSES), n=1)
            raise ValueError(f"{flag}: unknown pass '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""))
    return names


def _remark_wanted(d: Any, pattern: str | None) -> bool:
    """Whether -Rpass=pattern asks for remark ``d`` (matched on the pass name, as LLVM does)."""
    import re
    return pattern is not None and re.fullmatch(pattern, d.origin) is not None


if __name__ == "__main__":
    sys.exit(main())

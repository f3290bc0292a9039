"""What a pass is: a small class whose attrs fields are its options."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from geir.diagnostics import Diagnostic, op_position
from geir.module import Module
from geir.operation import Operation

__all__ = ["ModulePass", "PassContext", "option", "option_value_text"]


def option(default: Any, help: str) -> Any:
    """Declare a pass option: ``max_streams: int = option(8, "...")`` is
    ``max-streams=`` in a pipeline and ``--list-passes`` shows ``help``."""
    return attrs.field(default=default, metadata={"help": help})


@attrs.define
class PassContext:
    """What a pass may report besides changing the IR: remarks and warnings,
    collected for the driver to print (or match under --verify-diagnostics)."""

    diagnostics: list[Diagnostic] = attrs.Factory(list)
    #: the name of the pass running now (the pass manager sets it)
    current_pass: str = ""

    def remark(self, op: Operation, message: str) -> None:
        """An optimisation remark at ``op``: what the pass decided and why."""
        self.diagnostics.append(Diagnostic("remark", message, op_position(op), origin=self.current_pass))

    def warning(self, op: Operation, message: str) -> None:
        self.diagnostics.append(Diagnostic("warning", message, op_position(op), origin=self.current_pass))


def option_value_text(value: object) -> str:
    """``value`` as a pass option's value in pipeline text: booleans as
    ``true``/``false``, and quoted when it holds what would end it (a space, a
    brace, a comma, a quote), so that the text reads back as ``value``."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if not text or any(ch.isspace() or ch in "{}()'\"," for ch in text):
        return "'" + text + "'" if "'" not in text else '"' + text + '"'
    return text


@attrs.define
class ModulePass:
    """Base of every pass. Subclasses are ``@attrs.define`` classes that set
    ``name`` and ``summary``, declare options as fields with :func:`option`, and
    implement :meth:`run`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def run(self, module: Module, ctx: PassContext) -> None:
        """Transform ``module`` in place; raise DiagnosticError on failure."""
        raise NotImplementedError

    def pipeline_text(self) -> str:
        """This pass with its non-default options, as pipeline text."""
        opts = []
        for f in attrs.fields(type(self)):
            v = getattr(self, f.name)
            if v != f.default:
                opts.append(f"{f.metadata.get('name', f.name.replace('_', '-'))}={option_value_text(v)}")
        return self.name + ("{" + " ".join(opts) + "}" if opts else "")

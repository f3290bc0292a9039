"""The pass manager: runs passes in order, verifies after each (by default), and
calls instrumentation hooks around each pass."""

from __future__ import annotations

from typing import Sequence

import attrs

from geir.module import Module
from geir.verifier import verify
from geir.passes.pass_base import ModulePass, PassContext

__all__ = ["PassManager", "PassInstrumentation"]


class PassInstrumentation:
    """Hooks around each pass (MLIR's PassInstrumentation)."""

    def before_pipeline(self, module: Module) -> None:
        pass

    def before_pass(self, p: ModulePass, module: Module) -> None:
        pass

    def after_pass(self, p: ModulePass, module: Module) -> None:
        pass

    def after_pipeline(self, module: Module) -> None:
        pass


@attrs.define
class PassManager:
    """An ordered list of passes with its instrumentation."""

    passes: list[ModulePass] = attrs.Factory(list)
    verify_each: bool = True
    allow_unregistered: bool = False
    instrumentations: list[PassInstrumentation] = attrs.Factory(list)

    def add(self, p: ModulePass) -> "PassManager":
        self.passes.append(p)
        return self

    def extend(self, ps: Sequence[ModulePass]) -> "PassManager":
        self.passes.extend(ps)
        return self

    def run(self, module: Module, ctx: PassContext | None = None) -> PassContext:
        """Run every pass on ``module``; raise DiagnosticError at the first failure."""
        ctx = ctx or PassContext()
        for inst in self.instrumentations:
            inst.before_pipeline(module)
        for p in self.passes:
            for inst in self.instrumentations:
                inst.before_pass(p, module)
            ctx.current_pass = p.name
            try:
                p.run(module, ctx)
            finally:
                ctx.current_pass = ""
            if self.verify_each:
                verify(module, allow_unregistered=self.allow_unregistered)
            for inst in reversed(self.instrumentations):
                inst.after_pass(p, module)
        for inst in self.instrumentations:
            inst.after_pipeline(module)
        return ctx

    def pipeline_text(self) -> str:
        return ",".join(p.pipeline_text() for p in self.passes)

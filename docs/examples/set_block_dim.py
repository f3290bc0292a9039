"""``set-block-dim``: run the chosen ops on a fixed number of AICore cores.

The example pass of the user guide (docs/guide/writing-a-pass.md). ``block_dim`` is a
scheduling decision ``lower-to-tasks`` copies into each kernel task; without
it, the kernel's tiling decides (a convolution takes every core once its output
has as many 16x16 blocks as there are cores).
"""

from __future__ import annotations

import attrs

from geir.attributes import IntegerAttr
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.module import Module
from geir.passes.pass_base import ModulePass, PassContext, option


@attrs.define
class SetBlockDim(ModulePass):
    name = "set-block-dim"
    summary = "Set block_dim (the AICore cores a kernel occupies) on the ops of one kind"

    op: str = option("ge.conv2d", "the op name to match (ge.conv2d, ge.matmul, ...)")
    block_dim: int = option(1, "cores per kernel (at least 1)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if self.block_dim < 1:
            raise DiagnosticError(Diagnostic("error", f"set-block-dim: option 'block-dim' must be at least 1, "
                                                      f"got {self.block_dim}"))
        for graph in module.graphs():
            matched = [op for op in graph.walk() if op.name == self.op]
            for op in matched:
                op.attributes["block_dim"] = IntegerAttr(self.block_dim)
            if matched:
                ctx.remark(graph, f"block_dim = {self.block_dim} on {len(matched)} '{self.op}' op(s)")

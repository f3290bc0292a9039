"""The memory plan as a table (``reuse-memory{print-plan=true}``): one row per
tensor with its offset, size, lifetime and stream, then the figures."""

from __future__ import annotations

from geir.operation import BlockArgument, Value
from geir.passes.memory.arena_plan import ArenaPlan
from geir.passes.memory.lifetimes import Buffer, tensor_bytes
from geir.passes.memory.memory_bound import MemoryBound

__all__ = ["format_plan", "value_name", "buffer_name"]


def value_name(v: Value) -> str:
    """The SSA name a reader sees (``%x``), else the argument/result position."""
    if v.name_hint:
        return f"%{v.name_hint}"
    if isinstance(v, BlockArgument):
        return f"%arg{v.index}"
    return f"%{v.op.name}#{v.index}"  # type: ignore[attr-defined]


def buffer_name(b: Buffer) -> str:
    """A buffer by its first tensor, or a region buffer by its control op's first result."""
    if b.values:
        return value_name(b.values[0])
    op = b.region_op
    assert op is not None
    return f"regions of {value_name(op.results[0])}" if op.results else f"regions of '{op.name}'"


def _lifetime(plan: ArenaPlan, b: Buffer) -> str:
    start = "in" if b.is_input else str(b.define)
    end = "out" if b.live_out else (str(max(b.uses)) if b.uses else "in")
    return f"{start}..{end}"


def format_plan(plan: ArenaPlan, bound: MemoryBound, single_stream: int, graph_name: str,
                no_reuse: int | None = None, unified: ArenaPlan | None = None) -> str:
    """The table and the summary line. Lifetimes are node indices in block
    order (``in``: a graph input, ``out``: live to the end); ``zero-copy`` rows
    are outside the arena; a ``region buffer`` row holds a control op's regions;
    ``unified buffer`` rows (the plan ``unified``) are a fused chain's
    intermediates, at offsets in the unified buffer, not the arena.
    ``no_reuse`` counts region tensors one by one (default: the problem's buffers)."""
    problem = plan.problem
    order = problem.order
    rows = [("tensor", "offset", "size", "lifetime", "stream", "note")]
    entries: list[tuple[int, int, tuple[str, ...]]] = []
    for io, bufs in ((False, problem.buffers), (True, problem.io)):
        for k, b in enumerate(bufs):
            offset = plan.offset_of(k, io)
            stream = "-" if b.is_input else str(order.stream_ids[order.stream[b.define]])
            for j, v in enumerate(b.values):
                if v in problem.concats.slices:  # a no-task concat's input, inside the concat's result
                    inside = problem.within(v)
                    note = f"in {value_name(b.values[0])} at +{inside}"
                    offset_text, size_text = str(offset + inside), str(tensor_bytes(v.type))
                elif v in problem.views:  # a reshape's or an aliased split's result, inside its operand
                    inside = problem.within(v)
                    note = f"view of {value_name(problem.views[v][0])} at +{problem.views[v][1]}"
                    offset_text, size_text = str(offset + inside), str(tensor_bytes(v.type))
                else:
                    note = "zero-copy" if io else ("in place of " + value_name(b.values[j - 1]) if j else "")
                    offset_text, size_text = str(offset), str(b.size)
                entries.append((b.define, len(entries), (value_name(v), offset_text, size_text,
                                                         _lifetime(plan, b), stream, note)))
            if b.region_op is not None:
                entries.append((b.define, len(entries), (buffer_name(b), str(offset), str(b.size),
                                                         _lifetime(plan, b), stream, "region buffer")))
    if unified is not None:
        for k, b in enumerate(unified.problem.buffers):
            stream = str(order.stream_ids[order.stream[b.define]])
            entries.append((b.define, len(entries), (buffer_name(b), str(unified.offsets[k]), str(b.size),
                                                     _lifetime(unified, b), stream, "unified buffer")))
    rows.extend(e[2] for e in sorted(entries))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [f"memory plan of @{graph_name} ({plan.algorithm}):"]
    for r in rows:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    lines.append(f"  arena {plan.arena_bytes} B, lower bound {bound.bytes} B"
                 f"{'' if bound.exact else ' (block order)'}, single-stream {single_stream} B, "
                 f"no reuse {problem.no_reuse_bytes if no_reuse is None else no_reuse} B, "
                 f"zero-copy I/O {plan.zero_copy_bytes} B"
                 + (f", unified buffer {unified.arena_bytes} B" if unified is not None else ""))
    return "\n".join(lines) + "\n"

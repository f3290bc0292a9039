"""The verifier, derived from the op declarations: arity, attributes (presence,
kind, allowed values, unknown names), result types against inference, terminators,
and that every graph is in topological order (naming the cycle when it is not).
"""

from __future__ import annotations

from typing import Iterable

from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.opdef import ATTR_KINDS, KIND_NAMES, InferContext, InferError, OpDef
from geir.operation import MAX_REGION_DEPTH, TOO_DEEP, Block, OpResult, Operation, Value
from geir.types import MAX_ELEMENTS, TensorType, Type

__all__ = ["verify", "verify_op", "types_compatible"]

#: stop collecting after this many errors; the first ones are the useful ones
MAX_ERRORS = 20


def types_compatible(inferred: Type, declared: Type) -> bool:
    """``declared`` may refine ``inferred`` (a static dim where inference has ``?``)."""
    if inferred is declared:
        return True
    if isinstance(inferred, TensorType) and isinstance(declared, TensorType):
        if inferred.element_type is not declared.element_type:
            return False
        if inferred.shape is None or declared.shape is None:
            return True
        if len(inferred.shape) != len(declared.shape):
            return False
        return all(a is None or b is None or a == b for a, b in zip(inferred.shape, declared.shape))
    return False


class _Collector:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def error(self, op: Operation, message: str, notes: Iterable[tuple[str, Operation]] = ()) -> None:
        if len(self.diagnostics) >= MAX_ERRORS:
            return
        d = Diagnostic("error", f"'{op.name}' op {message}", op_position(op))
        for text, other in notes:
            d.attach_note(text, op_position(other))
        self.diagnostics.append(d)


def verify(module: Module, *, allow_unregistered: bool = False) -> None:
    """Raise :class:`DiagnosticError` listing what is wrong with ``module``."""
    c = _Collector()
    _verify_tree(module.op, c, allow_unregistered)
    if c.diagnostics:
        raise DiagnosticError(c.diagnostics)


def verify_op(op: Operation, *, allow_unregistered: bool = False) -> None:
    """Verify one op and everything nested in it."""
    c = _Collector()
    _verify_tree(op, c, allow_unregistered)
    if c.diagnostics:
        raise DiagnosticError(c.diagnostics)


def _verify_tree(root: Operation, c: _Collector, allow_unregistered: bool, depth: int = 0) -> None:
    # Post-order: an op's own checks run after its regions', and are skipped when
    # those already failed (one mistake, one message — as MLIR stops at the first).
    before = len(c.diagnostics)
    if root.regions and depth >= MAX_REGION_DEPTH:
        # IR built in Python can nest without bound; nothing below may recurse into it
        c.error(root, TOO_DEEP)
        return
    inner = depth + 1 if depth or root.name != "builtin.module" else 0  # the module's own region is level 0
    for region in root.regions:
        for block in region.blocks:
            _verify_block(root, block, c)
            for op in block.ops:
                _verify_tree(op, c, allow_unregistered, inner)
    _verify_one(root, c, allow_unregistered, nested_failed=len(c.diagnostics) > before)


def _verify_one(op: Operation, c: _Collector, allow_unregistered: bool, nested_failed: bool = False) -> None:
    od = op.definition
    if od is None:
        if not allow_unregistered:
            c.error(op, "is not registered (use --allow-unregistered-dialect to allow it)")
        return
    if not _verify_structure(op, od, c):
        return
    if not _verify_attributes(op, od, c):
        return
    try:
        if od.infer is not None:
            _verify_result_types(op, od, c)
        if od.verify is not None and not nested_failed:
            od.verify(op)
    except InferError as e:
        c.error(op, str(e))


def _verify_structure(op: Operation, od: OpDef, c: _Collector) -> bool:
    lo, hi = od.operand_range()
    n = len(op.operands)
    if n < lo or (hi is not None and n > hi):
        want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
        c.error(op, f"expected {want} operands, but found {n}")
        return False
    if od.num_results >= 0 and len(op.results) != od.num_results:
        c.error(op, f"expected {od.num_results} results, but found {len(op.results)}")
        return False
    if (len(op.regions) != od.num_regions) if od.num_regions >= 0 else not op.regions:
        want = f"{od.num_regions} regions" if od.num_regions >= 0 else "at least one region"
        c.error(op, f"expected {want}, but found {len(op.regions)}")
        return False
    if od.has_trait("terminator") and op.parent is not None and op.next is not None:
        c.error(op, "must be the last operation in its block")
        return False
    return True


def _verify_attributes(op: Operation, od: OpDef, c: _Collector) -> bool:
    ok = True
    for name, spec in od.attributes.items():
        if spec.required and name not in op.attributes:
            c.error(op, f"requires attribute '{name}'")
            ok = False
    for name, value in op.attributes.items():
        spec = od.attributes.get(name)
        if spec is None:
            # Dotted names are discardable (MLIR's dialect attributes); open ops take anything.
            if "." in name or od.open_attributes:
                continue
            known = ", ".join(sorted(od.attributes)) or "none"
            c.error(op, f"unknown attribute '{name}' (known attributes: {known})")
            ok = False
            continue
        if not ATTR_KINDS[spec.kind](value):
            c.error(op, f"attribute '{name}' must be {KIND_NAMES[spec.kind]}, but got {value}")
            ok = False
            continue
        if spec.choices is not None:
            from geir.attributes import from_attribute
            v = from_attribute(value)
            if v not in spec.choices:
                allowed = ", ".join(repr(x) for x in spec.choices)
                c.error(op, f"attribute '{name}' is {v!r}, expected one of {allowed}")
                ok = False
    return ok


def _verify_result_types(op: Operation, od: OpDef, c: _Collector) -> None:
    assert od.infer is not None
    if any(not isinstance(v.type, Type) for v in op.operands):
        return
    inferred = list(od.infer(InferContext.for_op(op, od)))
    if len(inferred) != len(op.results):
        c.error(op, f"infers {len(inferred)} results, but declares {len(op.results)}")
        return
    for i, (t, r) in enumerate(zip(inferred, op.results)):
        which = "result" if len(op.results) == 1 else f"result #{i}"
        if not types_compatible(t, r.type):
            c.error(op, f"{which} type {r.type} does not match the inferred type {t}")
        elif type(t) is TensorType and (t.num_elements or 0) > MAX_ELEMENTS:
            # shapes computed from values (ConstantOfShape, Expand, Range) may be any size
            c.error(op, f"{which} {t} holds {t.num_elements:.3g} elements, more than a tensor's bytes can "
                        f"number ({MAX_ELEMENTS:.3g} at most)")


def _value_name(v: Value) -> str:
    return "%" + v.name_hint if v.name_hint else ("%<result>" if isinstance(v, OpResult) else "%<arg>")


def _verify_block(parent: Operation, block: Block, c: _Collector) -> None:
    """Every operand defined before its use; when not, say whether it is a cycle."""
    position: dict[Operation, int] = {}
    late: list[tuple[Operation, int, Value]] = []
    for i, op in enumerate(block.ops):
        for k, v in enumerate(op.operands):
            if isinstance(v, OpResult) and v.op.parent is block and v.op not in position:
                late.append((op, k, v))
        position[op] = i
    if not late:
        return
    cycle = _find_cycle(block, position)
    if cycle:
        first = min(range(len(cycle)), key=lambda i: position[cycle[i]])
        cycle = cycle[first:] + cycle[:first]  # report from the earliest op
        path = " -> ".join(_value_name(op.results[0]) if op.results else f"'{op.name}'" for op in cycle + cycle[:1])
        c.error(cycle[0], f"is part of a cycle in the graph: {path}",
                [(f"'{op.name}' is on the cycle", op) for op in cycle[1:3]])
        return
    op, k, v = late[0]
    c.error(op, f"operand #{k} ({_value_name(v)}) is used before it is defined; ops must be in topological order",
            [("defined here", v.op)])  # type: ignore[attr-defined]


def _find_cycle(block: Block, position: dict[Operation, int]) -> list[Operation]:
    """A cycle of ops in ``block`` along def-use edges, or []."""
    white, grey, black = 0, 1, 2
    color: dict[Operation, int] = {op: white for op in position}
    for start in position:
        if color[start] != white:
            continue
        stack: list[tuple[Operation, int]] = [(start, 0)]
        path: list[Operation] = [start]
        color[start] = grey
        while stack:
            op, k = stack[-1]
            if k < len(op.operands):
                stack[-1] = (op, k + 1)
                v = op.operands[k]
                if not isinstance(v, OpResult) or v.op not in color:
                    continue
                dep = v.op
                if color[dep] == grey:
                    return list(reversed(path[path.index(dep):]))
                if color[dep] == white:
                    color[dep] = grey
                    stack.append((dep, 0))
                    path.append(dep)
            else:
                color[op] = black
                stack.pop()
                path.pop()
    return []

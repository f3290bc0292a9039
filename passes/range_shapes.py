"""Why a graph is not static yet, said at the op where a dynamic dim starts.

``lower-to-tasks`` plans every buffer at a fixed size. A dim still ``?`` after
``specialize-shapes`` comes from one of two places, and each needs a different
fix, so :func:`dynamic_shape_diagnostics` reports the *origin*, not every op
downstream of it:

* an unbound input dim: bind it (``specialize-shapes``; a tool's own options,
  through the ``hint`` it passes);
* an op whose operands are static but whose result is not: its size depends on
  tensor *values* (NonZero, Unique, NonMaxSuppression, TopK with a computed k,
  Range with computed bounds, a Loop's trip count ...). GE runs such ops with
  *range shapes* (an upper bound per dim, the actual size known after the
  kernel); the task list has no such buffers yet, so this is refused, naming
  the op and the dim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, op_position
from geir.graph_io import input_names
from geir.opdef import InferError
from geir.operation import Block, Operation, OpResult, Value
from geir.passes.canonicalize import SHAPE_OPS
from geir.types import TensorType

__all__ = ["BindingHint", "bind_by_pass", "dynamic_shape_diagnostics", "unbound_input_diagnostics",
           "data_dependent_diagnostics"]

#: at most this many origins are reported
MAX_ORIGINS = 20

#: how a diagnostic says to make bindings ("batch=<size>", "x=<dims>"): a
#: pipeline binds with a pass option, a tool with its own flags
BindingHint = Callable[[Sequence[str]], str]


def bind_by_pass(bindings: Sequence[str]) -> str:
    """How a pass pipeline makes ``bindings``: ``specialize-shapes``'s option,
    or ``ge-default``'s, which runs it."""
    shapes = ",".join(bindings)
    return f'specialize-shapes{{shapes="{shapes}"}} (in ge-default: input-shape="{shapes}")'


def _dynamic_dims(v: Value) -> list[int] | None:
    t = v.type
    if not isinstance(t, TensorType):
        return None
    if t.shape is None:
        return []  # unranked: every dim
    dims = [k for k, d in enumerate(t.shape) if d is None]
    return dims or None


def dynamic_shape_diagnostics(graph: Operation, hint: BindingHint = bind_by_pass) -> list[Diagnostic]:
    """One error per place a dynamic dim of ``graph`` starts (empty when static);
    ``hint`` says how to bind an input."""
    return (unbound_input_diagnostics(graph, hint) + data_dependent_diagnostics(graph))[:MAX_ORIGINS]


def unbound_input_diagnostics(graph: Operation, hint: BindingHint = bind_by_pass) -> list[Diagnostic]:
    """One error per input of ``graph`` with a dynamic dim, saying how to bind it
    (``hint`` spells the bindings it needs as the caller takes them)."""
    from geir.passes.specialize_shapes import graph_symbols
    block = graph.regions[0].blocks[0]
    out: list[Diagnostic] = []
    symbols = graph_symbols(graph)
    for i, (name, arg) in enumerate(zip(input_names(graph), block.arguments)):
        dims = _dynamic_dims(arg)
        if dims is None:
            continue
        if not dims:
            out.append(Diagnostic("error", f"input '{name}' has no static rank ({arg.type}); bind it with "
                                           f"{hint([f'{name}=<dims>'])}", op_position(graph)))
            continue
        # every dynamic dim at once, so that one fix binds the input
        named = [(k, symbols[i][k] if i < len(symbols) and k < len(symbols[i]) else "") for k in dims]
        if all(symbol for _, symbol in named):
            how = hint([f"{symbol}=<size>" for symbol in dict.fromkeys(s for _, s in named)])
        else:
            how = hint([f"{name}=<dims>"])
        where = [f"{k} ('{symbol}')" if symbol else str(k) for k, symbol in named]
        which = (f"dim {where[0]} is" if len(where) == 1
                 else f"dims {', '.join(where[:-1])} and {where[-1]} are")
        them = "it" if len(where) == 1 else "them"
        out.append(Diagnostic("error", f"input '{name}' {which} dynamic ({arg.type}); bind {them} with {how}",
                              op_position(graph)))
    return out[:MAX_ORIGINS]


def data_dependent_diagnostics(graph: Operation) -> list[Diagnostic]:
    """One error per op where a value-dependent size starts (downstream of an
    unbound input does not count: that input is the origin)."""
    out: list[Diagnostic] = []
    _origins(graph.regions[0].blocks[0], out)
    return out[:MAX_ORIGINS]


def _origins(block: Block, out: list[Diagnostic]) -> None:
    """Ops whose result is dynamic although nothing they read derives from an
    unbound input (a ``ge.shape`` of a dynamic value is static in type but not
    in value: it taints what reads it)."""
    tainted: set[Value] = {a for a in block.arguments if _dynamic_dims(a) is not None}
    folds: set[Value] = set()  # values computed from constants and static shapes alone
    for op in block.ops:
        if op.name in ("ge.return", "ge.yield", "ge.none"):
            continue
        reads = [v for nested in op.walk() for v in nested.operands]
        if any(v in tainted for v in reads):
            tainted.update(op.results)
            continue  # downstream of an unbound input, reported there
        if _folds(op, folds):
            folds.update(op.results)
        for k, r in enumerate(op.results):
            dims = _dynamic_dims(r)
            if dims is None:
                continue
            tainted.update(op.results)
            unfolded = [i for i, v in enumerate(op.operands) if v in folds and _is_computed(v)]
            if op.name == "ge.onnx_op":
                qualified = ".".join(str(x) for x in (op.get_attr("domain"), op.get_attr("op_type")) if x)
                why = (f"'ge.onnx_op' op ({qualified}) result #{k} has no static shape ({r.type}): ONNX's shape "
                       "inference gives none for it and geir has no inference of its own")
            elif unfolded or (inferred := _static_inference(op, k)) is not None:
                # not data-dependent: its size is known from constants, not yet folded or inferred
                if unfolded:
                    which = " and ".join(f"#{i}" for i in unfolded)
                    why = f"its operand {which} is computed from constants alone"
                else:
                    why = f"its operands give {inferred}"
                out.append(Diagnostic("error", f"'{op.name}' op result #{k} has no static shape yet ({r.type}): "
                                               f"{why}: specialize-shapes folds and infers it (ge-default runs it "
                                               "first)", op_position(op)))
                break
            else:
                dim = f"dim {dims[0]}" if dims else "rank"
                why = (f"'{op.name}' op result #{k} {dim} has a data-dependent size ({r.type}): it depends on "
                       "the values of the op's operands, not only on their shapes")
            out.append(Diagnostic("error", why + "; lower-to-tasks plans fixed-size buffers (GE's range shapes, an "
                                             "upper bound per dim, are not supported; ge-run launches it alone)",
                                  op_position(op)))
            break


def _static_inference(op: Operation, k: int) -> TensorType | None:
    """The static type ``op``'s declaration infers for result ``k`` from its operands
    as they are now, or None."""
    from geir.passes.specialize_shapes import infer_result_types
    try:
        inferred = infer_result_types(op) or []
    except InferError:
        return None
    t = inferred[k] if k < len(inferred) else None
    return t if isinstance(t, TensorType) and t.is_static else None


def _is_computed(v: Value) -> bool:
    """Whether ``v`` is the result of an op that computes it (not a constant)."""
    return isinstance(v, OpResult) and v.op.name not in CONSTANT_OPS


def _folds(op: Operation, folds: set[Value]) -> bool:
    """Whether specialize-shapes can fold ``op``'s results to constants: a constant, a
    shape or size of a static tensor, or an op without regions all of whose
    operands fold."""
    if op.name in CONSTANT_OPS:
        return True
    if op.regions or not op.results:
        return False
    if op.name in SHAPE_OPS:
        return bool(op.operands) and _dynamic_dims(op.operands[0]) is None
    return bool(op.operands) and all(v in folds for v in op.operands)

"""The one API through which passes change the IR (MLIR's RewriterBase).

Every insertion, erasure and use replacement goes through :class:`Rewriter`, so a
pass never edits block links or use lists itself, and a listener (the greedy
driver's worklist, change tracking) sees every change.
"""

from __future__ import annotations

from typing import Callable, Sequence

from geir.attributes import UNKNOWN_LOC, Attribute, Location
from geir.operation import Block, Operation, Region, Value
from geir.types import Type

__all__ = ["Rewriter", "InsertionPoint"]


class InsertionPoint:
    """Where the rewriter's ``create`` puts new ops: before ``anchor`` or at the
    end of ``block``."""

    __slots__ = ("block", "anchor")

    def __init__(self, block: Block, anchor: Operation | None = None) -> None:
        self.block = block
        self.anchor = anchor

    @classmethod
    def before(cls, op: Operation) -> "InsertionPoint":
        assert op.parent is not None, "op is not in a block"
        return cls(op.parent, op)

    @classmethod
    def after(cls, op: Operation) -> "InsertionPoint":
        assert op.parent is not None, "op is not in a block"
        return cls(op.parent, op.next)

    @classmethod
    def at_end(cls, block: Block) -> "InsertionPoint":
        return cls(block, None)


class Rewriter:
    """Mutates the IR and tells ``listener`` about each changed op."""

    def __init__(self, listener: Callable[[Operation], None] | None = None) -> None:
        self.listener = listener
        self.changed = False
        self.insertion_point: InsertionPoint | None = None

    def _notify(self, op: Operation) -> None:
        self.changed = True
        if self.listener is not None:
            self.listener(op)

    # --------------------------------------------------------- creation
    def set_insertion_point(self, ip: InsertionPoint) -> None:
        self.insertion_point = ip

    def create(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
               attributes: dict[str, Attribute] | None = None, regions: Sequence[Region] = (),
               location: Location = UNKNOWN_LOC) -> Operation:
        """Build an op and insert it at the insertion point."""
        op = Operation(name, operands, result_types, attributes, regions, location)
        return self.insert(op)

    def insert(self, op: Operation) -> Operation:
        ip = self.insertion_point
        if ip is None:
            raise ValueError("no insertion point set")
        if ip.anchor is None:
            ip.block.append(op)
        else:
            ip.block.insert_before(ip.anchor, op)
        self._notify(op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        assert anchor.parent is not None
        anchor.parent.insert_before(anchor, op)
        self._notify(op)
        return op

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        assert anchor.parent is not None
        anchor.parent.insert_after(anchor, op)
        self._notify(op)
        return op

    def move_before(self, op: Operation, anchor: Operation) -> None:
        """Move ``op`` (already in a block) to just before ``anchor``."""
        assert op.parent is not None and anchor.parent is not None
        op.parent.unlink(op)
        anchor.parent.insert_before(anchor, op)
        self._notify(op)

    # --------------------------------------------------------- replacement
    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        for user in list(old.users()):
            self._notify(user)
        old.replace_all_uses_with(new)

    def replace_op(self, op: Operation, new_values: Sequence[Value]) -> None:
        """Make users of ``op``'s results use ``new_values``, then erase ``op``."""
        if len(new_values) != len(op.results):
            raise ValueError(f"replacing '{op.name}' needs {len(op.results)} values, got {len(new_values)}")
        for r, v in zip(op.results, new_values):
            self.replace_all_uses_with(r, v)
        self.erase_op(op)

    def set_attribute(self, op: Operation, name: str, value: Attribute) -> None:
        op.attributes[name] = value
        self._notify(op)

    def remove_attribute(self, op: Operation, name: str) -> None:
        if op.attributes.pop(name, None) is not None:
            self._notify(op)

    def set_operand(self, op: Operation, index: int, value: Value) -> None:
        op.set_operand(index, value)
        self._notify(op)

    # --------------------------------------------------------- erasure
    def erase_op(self, op: Operation) -> None:
        """Remove ``op``; its results must have no uses left."""
        for r in op.results:
            if r.uses:
                raise ValueError(f"cannot erase '{op.name}': result #{r.index} still has {len(r.uses)} uses")
        for v in op.operands:
            if isinstance(v.owner, Operation):
                self._notify(v.owner)
        op.drop_operand_uses()
        assert op.parent is not None
        op.parent.unlink(op)
        self.changed = True

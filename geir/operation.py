"""The IR's objects: values, operations, blocks and regions, with use-def chains.

Blocks hold their operations in a doubly linked list, as MLIR does, so inserting
and erasing are O(1); passes mutate through :mod:`geir.rewriter`, never by
touching these links themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from geir.attributes import UNKNOWN_LOC, Attribute, FileLineColLoc, Location
from geir.types import Type

if TYPE_CHECKING:
    from geir.opdef import OpDef

__all__ = ["Value", "OpResult", "BlockArgument", "Operation", "Block", "Region", "Use"]


class Use:
    """One operand slot that reads a value: ``owner.operands[index]``."""

    __slots__ = ("owner", "index")

    def __init__(self, owner: "Operation", index: int) -> None:
        self.owner = owner
        self.index = index

    def __repr__(self) -> str:
        return f"Use({self.owner.name}#{self.index})"


class Value:
    """An SSA value. ``name_hint`` is the name it had in the source (without ``%``)."""

    __slots__ = ("type", "uses", "name_hint")

    def __init__(self, type: Type, name_hint: str | None = None) -> None:
        self.type = type
        self.uses: list[Use] = []
        self.name_hint = name_hint

    @property
    def owner(self) -> "Operation | Block":
        raise NotImplementedError

    @property
    def has_uses(self) -> bool:
        return bool(self.uses)

    def users(self) -> Iterator["Operation"]:
        """The operations that read this value (an op reading it twice appears twice)."""
        return (u.owner for u in self.uses)

    def replace_all_uses_with(self, new: "Value") -> None:
        """Make every reader of this value read ``new`` instead."""
        if new is self:
            return
        for use in self.uses:
            use.owner.operands[use.index] = new
            new.uses.append(use)
        self.uses = []


class OpResult(Value):
    """The ``index``-th result of ``op``."""

    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int, name_hint: str | None = None) -> None:
        super().__init__(type, name_hint)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op

    def __repr__(self) -> str:
        return f"<OpResult {self.op.name}#{self.index}: {self.type}>"


class BlockArgument(Value):
    """The ``index``-th argument of ``block``; ``location`` is printed in the
    generic form with ``--mlir-print-debuginfo``, as MLIR does."""

    __slots__ = ("block", "index", "location")

    def __init__(self, type: Type, block: "Block", index: int, name_hint: str | None = None,
                 location: Location = UNKNOWN_LOC) -> None:
        super().__init__(type, name_hint)
        self.block = block
        self.index = index
        self.location = location

    @property
    def owner(self) -> "Block":
        return self.block

    def __repr__(self) -> str:
        return f"<BlockArgument #{self.index}: {self.type}>"


class Operation:
    """A generic operation: a name, operands, results, attributes and regions.

    ``properties`` is MLIR's ``<{...}>`` (an unregistered op's inherent
    attributes, kept apart from ``attributes`` so they print back where they
    were); ``successors`` are the blocks a terminator branches to (``[^bb1]``).

    What an op *means* (arity, attributes, type inference, engine, cost) is its
    :class:`~geir.opdef.OpDef`, looked up by name in the dialect registry.
    """

    # ``source`` is where the op was parsed (for diagnostics), kept apart from
    # ``location`` so an explicit ``loc("onnx_node")`` still prints unchanged.
    __slots__ = ("name", "operands", "results", "attributes", "regions", "location",
                 "parent", "prev", "next", "source", "properties", "successors", "__weakref__")

    def __init__(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 attributes: dict[str, Attribute] | None = None, regions: Sequence["Region"] = (),
                 location: Location = UNKNOWN_LOC, result_names: Sequence[str | None] | None = None,
                 properties: Attribute | None = None, successors: Sequence["Block"] = ()) -> None:
        self.name = name
        self.operands: list[Value] = list(operands)
        for i, v in enumerate(self.operands):
            v.uses.append(Use(self, i))
        names = result_names or (None,) * len(result_types)
        self.results: list[OpResult] = [OpResult(t, self, i, n) for i, (t, n) in enumerate(zip(result_types, names))]
        self.attributes: dict[str, Attribute] = attributes if attributes is not None else {}
        self.regions: list[Region] = []
        for r in regions:
            self.add_region(r)
        self.location = location
        self.parent: Block | None = None
        self.prev: Operation | None = None
        self.next: Operation | None = None
        self.source: FileLineColLoc | None = None
        self.properties: Attribute | None = properties
        self.successors: list[Block] = list(successors)

    # --- structure -------------------------------------------------------
    @property
    def result(self) -> OpResult:
        """The single result (an error for ops with zero or several)."""
        if len(self.results) != 1:
            raise ValueError(f"'{self.name}' has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def definition(self) -> "OpDef | None":
        """This op's declaration, or None for an unregistered op."""
        from geir.dialect_registry import lookup_op
        return lookup_op(self.name)

    @property
    def parent_op(self) -> "Operation | None":
        block = self.parent
        region = block.parent if block is not None else None
        return region.parent if region is not None else None

    def add_region(self, region: "Region") -> "Region":
        region.parent = self
        self.regions.append(region)
        return region

    def walk(self) -> Iterator["Operation"]:
        """This op and every op nested in it, in pre-order."""
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    yield from op.walk()

    def set_operand(self, index: int, value: Value) -> None:
        old = self.operands[index]
        for k, use in enumerate(old.uses):
            if use.owner is self and use.index == index:
                del old.uses[k]
                break
        self.operands[index] = value
        value.uses.append(Use(self, index))

    def drop_operand_uses(self) -> None:
        """Forget that this op reads its operands (before it is erased)."""
        for i, v in enumerate(self.operands):
            v.uses = [u for u in v.uses if not (u.owner is self and u.index == i)]
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    op.drop_operand_uses()

    def get_attr(self, name: str, default: object = None) -> object:
        """The Python value of attribute ``name`` (or its declared default)."""
        from geir.attributes import from_attribute
        attr = self.attributes.get(name)
        if attr is None:
            d = self.definition
            spec = d.attributes.get(name) if d is not None else None
            if spec is not None and spec.default is not None:
                return spec.default
            return default
        return from_attribute(attr)

    def __repr__(self) -> str:
        return f"<Operation {self.name} ({len(self.operands)} operands, {len(self.results)} results)>"


class Block:
    """A list of operations with arguments; ops are linked in order."""

    __slots__ = ("arguments", "parent", "first_op", "last_op", "label", "__weakref__")

    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[str | None] | None = None) -> None:
        names = arg_names or (None,) * len(arg_types)
        self.arguments: list[BlockArgument] = [BlockArgument(t, self, i, n) for i, (t, n) in enumerate(zip(arg_types, names))]
        self.parent: Region | None = None
        self.first_op: Operation | None = None
        self.last_op: Operation | None = None
        self.label: str | None = None

    @property
    def ops(self) -> Iterator[Operation]:
        """The operations in order; safe against erasing the current op while iterating."""
        op = self.first_op
        while op is not None:
            nxt = op.next
            yield op
            op = nxt

    def ops_reversed(self) -> Iterator[Operation]:
        op = self.last_op
        while op is not None:
            prv = op.prev
            yield op
            op = prv

    def __len__(self) -> int:
        return sum(1 for _ in self.ops)

    @property
    def is_empty(self) -> bool:
        return self.first_op is None

    @property
    def terminator(self) -> Operation | None:
        return self.last_op

    def add_argument(self, type: Type, name: str | None = None, location: Location = UNKNOWN_LOC) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.arguments), name, location)
        self.arguments.append(arg)
        return arg

    # Linking is the rewriter's job; these are its primitives.
    def append(self, op: Operation) -> Operation:
        """Add ``op`` at the end of the block."""
        op.parent = self
        op.prev = self.last_op
        op.next = None
        if self.last_op is None:
            self.first_op = op
        else:
            self.last_op.next = op
        self.last_op = op
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        op.parent = self
        op.prev = anchor.prev
        op.next = anchor
        if anchor.prev is None:
            self.first_op = op
        else:
            anchor.prev.next = op
        anchor.prev = op
        return op

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        if anchor.next is None:
            return self.append(op)
        return self.insert_before(anchor.next, op)

    def unlink(self, op: Operation) -> None:
        if op.prev is None:
            self.first_op = op.next
        else:
            op.prev.next = op.next
        if op.next is None:
            self.last_op = op.prev
        else:
            op.next.prev = op.prev
        op.parent = op.prev = op.next = None


class Region:
    """A list of blocks owned by an operation."""

    __slots__ = ("blocks", "parent", "__weakref__")

    def __init__(self, blocks: Iterable[Block] = ()) -> None:
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def walk(self) -> Iterator[Operation]:
        for block in self.blocks:
            for op in block.ops:
                yield from op.walk()

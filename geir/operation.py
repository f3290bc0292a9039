"""The IR's objects: values, operations, blocks and regions, with use-def chains.

Blocks hold their operations in a doubly linked list, as MLIR does, so inserting
and erasing are O(1); passes mutate through :mod:`geir.rewriter`, never by
touching these links themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from geir.attributes import UNKNOWN_LOC, Attribute, FileLineColLoc, Location, from_attribute
from geir.dialect_registry import lookup_op
from geir.types import Type

if TYPE_CHECKING:
    from geir.opdef import OpDef

__all__ = ["Value", "OpResult", "BlockArgument", "Operation", "Block", "Region", "Use", "IRMapping",
           "MAX_REGION_DEPTH", "TOO_DEEP"]

#: how deep regions may nest in a module geir takes (an op's regions inside an
#: op's regions ...): the printer, the verifier and the passes walk nested
#: regions recursively, a few Python frames a level. Real models nest a few
#: levels (an ONNX file cannot nest much past 30: protobuf's own limit).
MAX_REGION_DEPTH = 100
#: what the parser and the verifier say of an op past it (after "'name' op ")
TOO_DEEP = f"nests regions more than {MAX_REGION_DEPTH} deep, the most geir takes"


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
        # An explicit stack of op iterators: no Python frame per nesting level.
        yield self
        stack: list[Iterator[Operation]] = [_nested_ops(self)]
        while stack:
            op = next(stack[-1], None)
            if op is None:
                stack.pop()
                continue
            yield op
            if op.regions:
                stack.append(_nested_ops(op))

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
        for op in self.walk():
            for i, v in enumerate(op.operands):
                v.uses = [u for u in v.uses if not (u.owner is op and u.index == i)]

    def get_attr(self, name: str, default: object = None) -> object:
        """The Python value of attribute ``name`` (or its declared default)."""
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

    def __reduce__(self) -> tuple:
        # Flat tables, not the linked objects: see geir.flat_ir.
        from geir.flat_ir import op_from_table, op_table
        return op_from_table, op_table(self)

    def clone(self, mapping: "IRMapping | None" = None) -> "Operation":
        """A copy of this op and everything nested in it, detached (no parent),
        as MLIR's ``Operation::clone``.

        Operands defined inside the op read the copies; operands defined outside
        read what ``mapping`` maps them to, else the same values. ``mapping``
        is extended with every result, block argument and block copied.
        Attributes, properties, types and locations are immutable and shared;
        result and argument names, block labels and source positions are kept,
        and every value's uses are in the same order as the original's.
        """
        if mapping is None:
            mapping = IRMapping()
        values = mapping.values
        blocks = mapping.blocks
        pairs: list[tuple[Operation, Operation]] = []
        inner: list[Value] = []  # values defined inside the copied op
        # Pass 1, pre-order: every op, region, block and value, without operands;
        # ops in graph regions may read values defined after them.
        stack: list[tuple[Operation, Block | None]] = [(self, None)]
        while stack:
            op, into = stack.pop()
            copy = Operation(op.name, (), [r.type for r in op.results], dict(op.attributes), (), op.location,
                             [r.name_hint for r in op.results], op.properties)
            copy.source = op.source
            for old, new in zip(op.results, copy.results):
                values[old] = new
                inner.append(old)
            pairs.append((op, copy))
            if into is not None:
                into.append(copy)
            nested: list[tuple[Operation, Block]] = []
            for region in op.regions:
                new_region = copy.add_region(Region())
                for block in region.blocks:
                    new_block = new_region.add_block(Block())
                    new_block.label = block.label
                    for arg in block.arguments:
                        values[arg] = new_block.add_argument(arg.type, arg.name_hint, arg.location)
                        inner.append(arg)
                    blocks[block] = new_block
                    nested.extend((o, new_block) for o in block.ops)
            stack.extend(reversed(nested))
        # Pass 2: operands and successors, through the now complete mapping.
        for op, copy in pairs:
            copy.operands = [values.get(v, v) for v in op.operands]
            copy.successors = [blocks.get(b, b) for b in op.successors]
        # Pass 3: use lists. A value defined inside gets its uses in the
        # original's order; one defined outside gets the copies' reads in op order.
        copies = dict(pairs)
        for old in inner:
            new = values[old]
            new.uses = [Use(copies[u.owner], u.index) for u in old.uses if u.owner in copies]
        inner_set = set(inner)
        for op, copy in pairs:
            for i, v in enumerate(op.operands):
                if v not in inner_set:
                    copy.operands[i].uses.append(Use(copy, i))
        return pairs[0][1]


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
        """Every op in the region, in pre-order."""
        for block in self.blocks:
            for op in block.ops:
                yield from op.walk()


class IRMapping:
    """What a clone maps to what: values (results, block arguments) and blocks,
    as MLIR's ``IRMapping``. Seed it to make a clone read other values."""

    __slots__ = ("values", "blocks")

    def __init__(self) -> None:
        self.values: dict[Value, Value] = {}
        self.blocks: dict[Block, Block] = {}

    def map(self, old: Value, new: Value) -> None:
        self.values[old] = new

    def lookup_or_default(self, value: Value) -> Value:
        """What ``value`` maps to, else ``value`` itself."""
        return self.values.get(value, value)


def _nested_ops(op: Operation) -> Iterator[Operation]:
    """The ops directly inside ``op``'s regions, in order."""
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops

"""An op tree as flat tables: ops in pre-order, values and blocks named by
number, no object of the tree referring to another. This is what an
:class:`~geir.operation.Operation` or :class:`~geir.module.Module` pickles to,
so pickling (and ``copy.deepcopy``) takes the same few frames however deep the
graph is; following use-def links object by object would recurse once per op.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from geir.operation import Block, Operation, Region, Use, Value

if TYPE_CHECKING:
    from geir.attributes import FileMetadata, ResourceBlob
    from geir.diagnostics import SourceFile
    from geir.module import Module

__all__ = ["op_table", "op_from_table", "module_from_tables"]

#: one block: argument types, names and locations, and its label
BlockRow = tuple[list[Any], list[str | None], list[Any], str | None]
#: one op: name, parent block number (-1 for the root), operand value numbers,
#: result types and names, attributes, properties, location, source position,
#: successor block numbers, and its regions as lists of blocks
OpRow = tuple[str, int, list[int], list[Any], list[str | None], dict[str, Any], Any, Any, Any, list[int],
              list[list[BlockRow]]]


def op_table(root: Operation) -> tuple[list[OpRow], list[list[tuple[int, int]]]]:
    """``root`` and everything nested in it as rows, plus each value's uses
    (as ``(op number, operand index)``, in use-list order) by value number.

    Values are numbered in creation order (an op's results, then the
    arguments of its blocks, op by op in pre-order), blocks likewise.

    Raises:
        pickle.PicklingError: an operand or successor is defined outside ``root``.
    """
    op_number: dict[Operation, int] = {}
    value_number: dict[Value, int] = {}
    block_number: dict[Block, int] = {}
    values: list[Value] = []
    ops = list(root.walk())
    for op in ops:
        op_number[op] = len(op_number)
        for r in op.results:
            value_number[r] = len(values)
            values.append(r)
        for region in op.regions:
            for block in region.blocks:
                block_number[block] = len(block_number)
                for a in block.arguments:
                    value_number[a] = len(values)
                    values.append(a)
    rows: list[OpRow] = []
    for op in ops:
        try:
            operands = [value_number[v] for v in op.operands]
            successors = [block_number[b] for b in op.successors]
        except KeyError:
            raise pickle.PicklingError(f"cannot pickle '{root.name}': '{op.name}' in it reads a value or "
                                       f"branches to a block defined outside it") from None
        regions = [[([a.type for a in b.arguments], [a.name_hint for a in b.arguments],
                     [a.location for a in b.arguments], b.label) for b in region.blocks] for region in op.regions]
        parent = -1 if op is root else block_number[op.parent]  # type: ignore[index]
        rows.append((op.name, parent, operands, [r.type for r in op.results], [r.name_hint for r in op.results],
                     op.attributes, op.properties, op.location, op.source, successors, regions))
    uses = [[(op_number[u.owner], u.index) for u in v.uses if u.owner in op_number] for v in values]
    return rows, uses


def op_from_table(rows: list[OpRow], uses: list[list[tuple[int, int]]]) -> Operation:
    """The op tree :func:`op_table` describes."""
    ops: list[Operation] = []
    values: list[Value] = []
    blocks: list[Block] = []
    for name, parent, _, types, names, attributes, properties, location, source, _, regions in rows:
        op = Operation(name, (), types, dict(attributes), (), location, names, properties)
        op.source = source
        values.extend(op.results)
        for region_rows in regions:
            region = op.add_region(Region())
            for arg_types, arg_names, arg_locs, label in region_rows:
                block = region.add_block(Block())
                block.label = label
                for t, n, loc in zip(arg_types, arg_names, arg_locs):
                    values.append(block.add_argument(t, n, loc))
                blocks.append(block)
        if parent >= 0:
            blocks[parent].append(op)
        ops.append(op)
    for op, row in zip(ops, rows):
        op.operands = [values[k] for k in row[2]]
        op.successors = [blocks[k] for k in row[9]]
    for value, value_uses in zip(values, uses):
        value.uses = [Use(ops[k], index) for k, index in value_uses]
    return ops[0]


def module_from_tables(rows: list[OpRow], uses: list[list[tuple[int, int]]], resources: dict[str, "ResourceBlob"],
                       source: "SourceFile | None", file_metadata: "FileMetadata | None",
                       type_aliases: dict[str, str] | None = None,
                       attribute_aliases: dict[str, str] | None = None) -> "Module":
    """The module a pickled :class:`~geir.module.Module` describes."""
    from geir.module import Module
    module = Module(op_from_table(rows, uses), resources, source)
    module.file_metadata = file_metadata
    module.type_aliases = dict(type_aliases or {})
    module.attribute_aliases = dict(attribute_aliases or {})
    return module

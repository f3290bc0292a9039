"""Copying IR: ``Operation.clone``/``Module.clone`` (MLIR's ``Operation::clone``)
and pickling, on random modules of every construct the printer knows."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import HealthCheck, given, settings

from geir.attributes import StringAttr
from geir.module import Module
from geir.operation import Block, IRMapping, Operation, Region, Value
from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string
from geir.types import F32, TensorType

from ir_strategies import modules

FORMS = [PrintOptions(), PrintOptions(generic=True), PrintOptions(generic=True, debuginfo=True),
         PrintOptions(debuginfo=True)]
T = TensorType((1, 4), F32)


def texts(module: Module) -> list[str]:
    return [module_to_string(module, o) for o in FORMS]


def values_of(op: Operation) -> list[Value]:
    """Every value defined in ``op`` (results and block arguments), in walk order."""
    out: list[Value] = []
    for o in op.walk():
        out.extend(o.results)
        for region in o.regions:
            for block in region.blocks:
                out.extend(block.arguments)
    return out


def check_use_lists(root: Operation) -> None:
    """Each operand slot is in its value's use list exactly once, and each use
    names a slot that reads the value."""
    for op in root.walk():
        for i, v in enumerate(op.operands):
            assert sum(1 for u in v.uses if u.owner is op and u.index == i) == 1
    for v in values_of(root):
        for u in v.uses:
            assert u.owner.operands[u.index] is v


def use_order(root: Operation) -> list[list[tuple[int, int]]]:
    """Each value's uses as (op position in walk order, operand index)."""
    position = {op: k for k, op in enumerate(root.walk())}
    return [[(position.get(u.owner, -1), u.index) for u in v.uses] for v in values_of(root)]


def graph_block(module: Module) -> Block:
    return next(iter(module.body.ops)).regions[0].blocks[0]


# Drawing a random module is the slow part (about a second each), so one
# property test checks everything on each module it draws.
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_clones_and_pickles_are_independent_equal_copies(module: Module) -> None:
    before = texts(module)
    orders = use_order(module.op)
    for copied in (module.clone(), pickle.loads(pickle.dumps(module)), copy.deepcopy(module)):
        assert texts(copied) == before
        check_use_lists(copied.op)
        assert use_order(copied.op) == orders
        assert not set(map(id, copied.walk())) & set(map(id, module.walk()))
        assert not set(map(id, values_of(copied.op))) & set(map(id, values_of(module.op)))
        change(copied)
        assert texts(module) == before
        assert use_order(module.op) == orders
        check_use_lists(module.op)
        check_use_lists(copied.op)


def change(module: Module) -> None:
    """Add an op, set attributes and rewire every operand of the graph's body."""
    block = graph_block(module)
    arg = block.arguments[0]
    extra = Operation("test.extra", [arg, arg], [arg.type], {"k": StringAttr("v")})
    block.append(extra)
    for op in list(block.ops):
        op.attributes["touched"] = StringAttr("yes")
        for i in range(len(op.operands)):
            op.set_operand(i, extra.result)
    module.add_resource("blob", b"\0" * 4)


def test_clone_keeps_resources_and_file_metadata() -> None:
    text = ('%0 = "test.c"() {value = dense_resource<w> : tensor<2xf32>} : () -> tensor<2xf32>\n'
            '{-#\n  dialect_resources: {\n    builtin: {\n      w: "0x040000000000803F00000040"\n    },\n'
            '    other: {\n      k: true\n    }\n  }\n#-}\n')
    module = parse_module(text, "t.mlir", allow_unregistered=True)
    clone = module.clone()
    assert str(clone) == str(module)
    assert clone.resources["w"] is module.resources["w"]
    assert clone.file_metadata is not module.file_metadata
    assert str(pickle.loads(pickle.dumps(module))) == str(module)


def test_a_nested_op_clone_reads_outside_values_or_what_the_mapping_says() -> None:
    block = Block([T, T], ["a", "b"])
    graph = Operation("test.graph", regions=[Region([block])])
    a, b = block.arguments
    inner = Block([T])
    inner.append(Operation("test.use", [a, inner.arguments[0]], [T]))
    op = Operation("test.wrap", [a], [T], regions=[Region([inner])])
    block.append(op)

    plain = op.clone()
    assert plain.operands == [a]
    nested = next(plain.regions[0].blocks[0].ops)
    assert nested.operands[0] is a and nested.operands[1] is plain.regions[0].blocks[0].arguments[0]
    assert [u.owner for u in a.uses] == [next(inner.ops), op, plain, nested]

    mapping = IRMapping()
    mapping.map(a, b)
    mapped = op.clone(mapping)
    assert mapped.operands == [b]
    assert mapping.lookup_or_default(op.result) is mapped.result
    assert mapping.blocks[inner] is mapped.regions[0].blocks[0]
    check_use_lists(graph)
    assert [u.owner for u in b.uses] == [mapped, next(mapped.regions[0].blocks[0].ops)]


def test_an_op_reading_values_from_outside_does_not_pickle() -> None:
    block = Block([T])
    op = Operation("test.use", [block.arguments[0]], [T])
    block.append(op)
    with pytest.raises(pickle.PicklingError, match="defined outside"):
        pickle.dumps(op)
    graph = Operation("test.graph", regions=[Region([block])])
    back = pickle.loads(pickle.dumps(graph))
    check_use_lists(back)
    assert str(Module.from_top_level([back], {}, None)) == str(Module.from_top_level([graph], {}, None))

"""The alias names a source gives its types and attributes belong to the module
parsed from it: types are interned and shared by every module in the process, so
naming one in a module never renames it in another, and the module keeps its
names through cloning and pickling."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string

ALIASED = """!t = !foo.bar<1>
ge.graph @a(%x: !t) -> !t {
  ge.return %x : (!t) -> ()
}"""

PLAIN = """ge.graph @b(%x: !foo.bar<1>) -> !foo.bar<1> {
  ge.return %x : (!foo.bar<1>) -> ()
}"""


def _text(source: str, options: PrintOptions = PrintOptions()) -> str:
    return module_to_string(parse_module(source, allow_unregistered=True), options)


def test_a_type_alias_does_not_leak_into_a_later_module() -> None:
    a = parse_module(ALIASED, allow_unregistered=True)
    b = parse_module(PLAIN, allow_unregistered=True)
    printed_b = module_to_string(b)
    assert "!t" not in printed_b
    assert "ge.graph @b(%x: !foo.bar<1>) -> !foo.bar<1>" in printed_b
    assert "ge.return %x : (!foo.bar<1>) -> ()" in printed_b
    # the aliased module, parsed first, keeps its name
    printed_a = module_to_string(a)
    assert printed_a.startswith("!t = !foo.bar<1>\n")


def test_a_type_alias_does_not_leak_into_an_earlier_module() -> None:
    b = parse_module(PLAIN.replace("!foo.bar<1>", "!foo.bar<2>"), allow_unregistered=True)
    parse_module(ALIASED.replace("!foo.bar<1>", "!foo.bar<2>"), allow_unregistered=True)
    assert "!t" not in module_to_string(b)


def test_two_modules_name_one_type_differently() -> None:
    first = parse_module(ALIASED.replace("!foo.bar<1>", "!foo.bar<3>"), allow_unregistered=True)
    second = parse_module(ALIASED.replace("!foo.bar<1>", "!foo.bar<3>").replace("!t", "!u"),
                          allow_unregistered=True)
    assert module_to_string(first).startswith("!t = !foo.bar<3>\n")
    assert module_to_string(second).startswith("!u = !foo.bar<3>\n")
    assert "!t" not in module_to_string(second)


def test_a_graph_signature_prints_through_the_alias_as_its_body_does() -> None:
    """mlir-opt prints a function's argument and result types through their
    aliases, like its operands' types; the graph syntax does the same."""
    printed = _text(ALIASED)
    assert "ge.graph @a(%x: !t) -> !t {" in printed
    assert "ge.return %x : (!t) -> ()" in printed
    assert "!foo.bar<1>" not in printed.split("\n", 1)[1]


def test_an_attribute_alias_inside_a_type_does_not_leak() -> None:
    """A type that refers to an aliased attribute keeps the attribute it was
    first parsed with; the attribute's alias name must not come with it."""
    aliased = """#a = #foo.x
%0 = "foo.op"() : () -> !foo.baz<#a>"""
    plain = """%0 = "foo.op"() : () -> !foo.baz<#foo.x>"""
    first = parse_module(aliased, allow_unregistered=True)
    second = parse_module(plain, allow_unregistered=True)
    assert "#a" not in module_to_string(second)
    assert "() -> !foo.baz<#foo.x>" in module_to_string(second)
    assert module_to_string(first).startswith("#a = #foo.x\n")
    assert "() -> !foo.baz<#a>" in module_to_string(first)


def test_clone_and_pickle_keep_the_module_aliases() -> None:
    source = ALIASED.replace("!foo.bar<1>", "!foo.bar<4>")
    module = parse_module(source, allow_unregistered=True)
    expected = module_to_string(module)
    assert expected.startswith("!t = !foo.bar<4>\n")
    assert module_to_string(module.clone()) == expected
    assert module_to_string(pickle.loads(pickle.dumps(module))) == expected


def test_local_scope_prints_no_alias() -> None:
    printed = _text(ALIASED, PrintOptions(local_scope=True))
    assert "!t" not in printed


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r"]), st.integers(0, 3)), min_size=1, max_size=6))
def test_printing_a_module_depends_only_on_its_own_source(parses: list[tuple[str, int]]) -> None:
    """Whatever other modules were parsed before, with whatever alias names for
    the same types, a module prints as it does alone after a fresh parse."""
    def source(name: str, n: int) -> str:
        return (f"!{name} = !foo.prop<{n}>\n"
                f"ge.graph @g(%x: !{name}) -> !foo.prop<{n}> {{\n"
                f"  ge.return %x : (!foo.prop<{n}>) -> ()\n}}")
    modules = [(parse_module(source(name, n), allow_unregistered=True), name, n) for name, n in parses]
    for module, name, n in modules:
        printed = module_to_string(module)
        assert printed.startswith(f"!{name} = !foo.prop<{n}>\n")
        assert f"ge.graph @g(%x: !{name}) -> !{name} {{" in printed
        others = {other for other, _ in parses if other != name}
        assert not any(f"!{other}" in printed for other in others)

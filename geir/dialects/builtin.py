"""The ``builtin`` dialect: the module that holds everything."""

from geir.opdef import AttrDef, Dialect

DIALECT = Dialect("builtin")

DIALECT.define(
    "module", results=0, regions=1, traits=("isolated", "symbol_table", "no_terminator"),
    attributes=(AttrDef("sym_name", "str"),),
    summary="The top-level container: one block of graphs (and task lists).",
)

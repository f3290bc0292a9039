"""The module: the top-level ``builtin.module`` op plus what lives beside it in a
file (the resource blobs behind ``dense_resource`` constants, the source text)."""

from __future__ import annotations

from typing import Iterator, Sequence, TextIO

from geir.attributes import (ArrayAttr, Attribute, DenseResourceAttr, DictionaryAttr, FileMetadata, ResourceBlob,
                             StringAttr)
from geir.diagnostics import SourceFile
from geir.operation import Block, Operation, Region

__all__ = ["Module"]


class Module:
    """A parsed or built module. ``op`` is the ``builtin.module`` operation."""

    def __init__(self, op: Operation | None = None, resources: dict[str, ResourceBlob] | None = None,
                 source: SourceFile | None = None) -> None:
        if op is None:
            op = Operation("builtin.module", regions=[Region([Block()])])
        self.op = op
        self.resources: dict[str, ResourceBlob] = resources if resources is not None else {}
        self.source = source
        #: what the file's metadata section held (``{-# ... #-}`` beyond dialect
        #: resources, e.g. ``external_resources``), printed back as it came
        self.file_metadata: FileMetadata | None = None
        #: the alias names the source gave its dialect types and attributes, by
        #: their inline text (``!foo.bar<1>`` -> ``t``, its counter dropped); the
        #: printer names them so again. Kept here, not on the values: types are
        #: interned and shared by every module in the process.
        self.type_aliases: dict[str, str] = {}
        self.attribute_aliases: dict[str, str] = {}

    @classmethod
    def from_top_level(cls, ops: Sequence[Operation], resources: dict[str, ResourceBlob],
                       source: SourceFile | None) -> "Module":
        """A file holding one ``module`` is that module; anything else is wrapped
        in an implicit one, as MLIR does."""
        if len(ops) == 1 and ops[0].name == "builtin.module":
            return cls(ops[0], resources, source)
        module = cls(None, resources, source)
        if source is not None:  # MLIR places the implicit module at the file's line 0, column 0
            from geir.attributes import FileLineColLoc
            module.op.location = FileLineColLoc(source.name, 0, 0)
        for op in ops:
            module.body.append(op)
        return module

    def clone(self) -> "Module":
        """A copy that can be changed without touching this module: the op tree
        cloned (:meth:`Operation.clone`), the resource table copied with the same
        blobs (their bytes are immutable, and ``dense_resource`` attributes refer
        to them), the source, file metadata and alias names kept."""
        copy = Module(self.op.clone(), dict(self.resources), self.source)
        copy.type_aliases = dict(self.type_aliases)
        copy.attribute_aliases = dict(self.attribute_aliases)
        if self.file_metadata is not None:
            fm = self.file_metadata
            copy.file_metadata = FileMetadata(list(fm.dialect_order),
                                              {k: list(v) for k, v in fm.dialect_resources.items()},
                                              {k: list(v) for k, v in fm.external_resources.items()})
        return copy

    def __reduce__(self) -> tuple:
        # Flat tables, not the linked objects: see geir.flat_ir.
        from geir.flat_ir import module_from_tables, op_table
        return module_from_tables, (*op_table(self.op), self.resources, self.source, self.file_metadata,
                                    self.type_aliases, self.attribute_aliases)

    @property
    def body(self) -> Block:
        return self.op.regions[0].blocks[0]

    def walk(self) -> Iterator[Operation]:
        """Every op in the module, in pre-order (the module op first)."""
        return self.op.walk()

    def graphs(self) -> Iterator[Operation]:
        """The ``ge.graph`` ops at the top level."""
        return (op for op in self.body.ops if op.name == "ge.graph")

    def lookup_symbol(self, name: str) -> Operation | None:
        for op in self.body.ops:
            sym = op.attributes.get("sym_name")
            if isinstance(sym, StringAttr) and sym.value == name:
                return op
        return None

    def add_resource(self, name: str, data: bytes | memoryview | None, alignment: int = 16) -> ResourceBlob:
        """Register a blob under a name not yet used (``name``, ``name_1``, ...);
        ``data`` None is a blob whose bytes are absent (a graph without its weights),
        a memoryview one whose bytes an array holds (:meth:`ResourceBlob.bytes_of`)."""
        unique = name
        k = 0
        while unique in self.resources:
            k += 1
            unique = f"{name}_{k}"
        blob = ResourceBlob(unique, data, alignment)
        self.resources[unique] = blob
        return blob

    def used_resources(self) -> list[ResourceBlob]:
        """The blobs referenced by ops, in first-use order (what the printer writes),
        also from inside arrays and dictionaries (``rt.model``'s weights) and from
        properties (upstream ``arith.constant`` keeps its value there)."""
        seen: dict[int, ResourceBlob] = {}
        stack: list[Attribute] = []
        for op in self.walk():
            stack.extend(reversed(op.attributes.values()))
            if op.properties is not None:
                stack.append(op.properties)
            while stack:
                attr = stack.pop()
                if isinstance(attr, DenseResourceAttr):
                    seen.setdefault(id(attr.blob), attr.blob)
                elif isinstance(attr, ArrayAttr):
                    stack.extend(reversed(attr.value))
                elif isinstance(attr, DictionaryAttr):
                    stack.extend(v for _, v in reversed(attr.value))
        return list(seen.values())

    # ---------------------------------------------------------------- display

    def print(self, generic: bool = False, *, debuginfo: bool = False, file: TextIO | None = None) -> None:
        """Print the module as ``ge-opt`` does, to ``file`` (standard output by
        default): the custom syntax, or MLIR's generic form with ``generic``;
        op locations with ``debuginfo``. ``str(module)`` is the custom form."""
        import sys

        from geir.printer import PrintOptions, print_module
        print_module(self, file if file is not None else sys.stdout, PrintOptions(generic=generic, debuginfo=debuginfo))

    def __str__(self) -> str:
        from geir.printer import module_to_string
        return module_to_string(self)

    def _display_text(self) -> tuple[str, int]:
        """The custom form for a notebook: large constants elided, at most
        ``_DISPLAY_LINES`` lines; also the number of lines left out."""
        from geir.printer import PrintOptions, module_to_string
        lines = module_to_string(self, PrintOptions(elide_constants_larger_than=16)).splitlines()
        return "\n".join(lines[:_DISPLAY_LINES]), max(0, len(lines) - _DISPLAY_LINES)

    def _repr_html_(self) -> str:
        from geir.ir_highlight import highlight_html
        text, cut = self._display_text()
        more = f"<div><i>... {cut} more lines (module.print() shows all)</i></div>" if cut else ""
        return f"<pre class='geir-ir'>{highlight_html(text)}</pre>{more}"

    def _repr_markdown_(self) -> str:
        text, cut = self._display_text()
        more = f"\n\n*... {cut} more lines (module.print() shows all)*" if cut else ""
        return f"```mlir\n{text}\n```{more}\n"


#: lines of IR a notebook shows of a module
_DISPLAY_LINES = 400

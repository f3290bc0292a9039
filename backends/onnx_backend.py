"""geir as an ONNX backend (``onnx.backend.base.Backend``): import the model with
:func:`geir.onnx_importer.import_onnx`, run it with the reference interpreter.

    from geir.backends.onnx_backend import GeirBackend
    rep = GeirBackend.prepare(model)
    (y,) = rep.run([x])

A model whose inputs have dynamic dims is imported on each new set of input
shapes (bound to the shapes of the values given); a static model is imported
once, in :meth:`GeirBackend.prepare`, so import errors surface there.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep, namedtupledict

from geir.backends.interpreter import Interpreter
from geir.module import Module
from geir.onnx_importer import import_onnx

__all__ = ["GeirBackend", "GeirBackendRep", "prepare", "run_model", "run_node", "supports_device"]


def _graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The inputs a caller feeds: graph inputs that are not initializers."""
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def _is_static(value: onnx.ValueInfoProto) -> bool:
    t = value.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") for d in t.tensor_type.shape.dim)


class GeirBackendRep(BackendRep):
    """A prepared model: its imported module(s) and interpreter(s)."""

    def __init__(self, model: onnx.ModelProto, strict: bool = False) -> None:
        self.model = model
        self.strict = strict
        self.input_names = [i.name for i in _graph_inputs(model)]
        self.output_names = [o.name for o in model.graph.output]
        self._dynamic = not all(_is_static(i) for i in _graph_inputs(model))
        #: one interpreter per bound input shapes (a single one for a static model)
        self._interpreters: dict[tuple[tuple[int, ...], ...], Interpreter] = {}
        if not self._dynamic:
            self._interpreters[()] = Interpreter(import_onnx(model, strict=strict))

    @property
    def module(self) -> Module | None:
        """The imported module (of the last shapes run, for a dynamic model)."""
        if not self._interpreters:
            return None
        return next(reversed(self._interpreters.values())).module

    def _feeds(self, inputs: Any) -> dict[str, np.ndarray]:
        if isinstance(inputs, Mapping):
            return {k: np.asarray(v) for k, v in inputs.items()}
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        values = list(inputs)
        if len(values) > len(self.input_names):
            raise ValueError(f"{len(values)} inputs given, the model takes {len(self.input_names)}")
        return {name: np.asarray(v) for name, v in zip(self.input_names, values)}

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """The model's outputs, in graph order, for ``inputs`` (a list in graph
        input order, or a dict by name)."""
        feeds = self._feeds(inputs)
        key: tuple[tuple[int, ...], ...] = ()
        if self._dynamic:
            key = tuple(feeds[n].shape if n in feeds else () for n in self.input_names)
        interpreter = self._interpreters.get(key)
        if interpreter is None:
            shapes = {n: tuple(feeds[n].shape) for n in self.input_names if n in feeds}
            interpreter = Interpreter(import_onnx(self.model, input_shapes=shapes, strict=self.strict))
            self._interpreters[key] = interpreter
        outputs = interpreter.run(feeds)
        values = [outputs[name] for name in self.output_names]
        return namedtupledict("Outputs", self.output_names)(*values)  # type: ignore[call-arg]


class GeirBackend(Backend):
    """The ONNX backend API over import + interpret (CPU only)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> GeirBackendRep:
        """Import ``model`` (checked, shape-inferred) for repeated runs.

        Keyword args: ``strict`` (bool) refuses ops without a native ge op.
        """
        return GeirBackendRep(model, strict=bool(kwargs.get("strict", False)))

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
                 **kwargs: Any) -> tuple[Any, ...]:
        """Run one node on ``inputs`` (in the node's input order) as a one-node model."""
        from onnx import helper
        values = [np.asarray(x) for x in (inputs.values() if isinstance(inputs, Mapping) else inputs)]
        names = [n for n in node.input if n]
        graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                        for n, v in zip(names, values)]
        graph_outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        model = helper.make_model(helper.make_graph([node], "run_node", graph_inputs, graph_outputs),
                                  opset_imports=[helper.make_opsetid(node.domain, opset)])
        return cls.run_model(model, values, device)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.split(":")[0].upper() == "CPU"


prepare = GeirBackend.prepare
run_model = GeirBackend.run_model
run_node = GeirBackend.run_node
supports_device = GeirBackend.supports_device

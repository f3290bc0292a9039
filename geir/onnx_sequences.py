"""ONNX sequence values whose elements are known when the model is built,
replaced by those tensors.

geir has no sequence type: a tensor list lives in GE as the tensors
themselves. Exporters write lists the graph fixes: torch's ``unbind`` and
``chunk`` become ``SplitToSequence`` read back by ``SequenceAt`` at constant
positions, a Python list built in a loop that tracing unrolled becomes
``SequenceEmpty`` and ``SequenceInsert``, ``torch.stack`` of it
``ConcatFromSequence``. When every position is fixed by the graph (a
constant, or arithmetic on constants, static shapes and an unrolled loop's
iteration number, which onnx's reference evaluator runs) and a split's sizes
are known, each sequence is a Python list of tensor names here, and

* ``SplitToSequence`` becomes ``Split`` (and a ``Squeeze`` per part for
  ``keepdims=0``),
* ``SequenceAt`` an ``Identity`` of the element it reads,
* ``SequenceLength`` a constant,
* ``ConcatFromSequence`` a ``Concat`` (of each element unsqueezed, for
  ``new_axis=1``),
* ``SequenceEmpty``, ``SequenceConstruct``, ``SequenceInsert`` and
  ``SequenceErase`` nothing, once nothing reads their list,
* a ``Loop`` that carries such a list or reads one from the graph around it,
  runs a constant number of times (at most 64) while true and nests no
  region, its iterations one after the other.

A sequence the rules cannot follow (a position computed at run time, a list a
``Loop`` carries or reads for a run-time trip count, a graph output) is left as it is,
and the importer names it as a type geir does not support. Only the main graph
is rewritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnx

__all__ = ["resolve_static_sequences"]

#: the ops that make or read a sequence
SEQUENCE_OPS = frozenset({"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SequenceAt",
                          "SequenceLength", "SplitToSequence", "ConcatFromSequence"})


def resolve_static_sequences(model: "onnx.ModelProto") -> None:
    """Rewrite ``model``'s main graph in place: every sequence whose elements
    are known becomes its tensors (see the module's docstring)."""
    graph = model.graph
    if not any(n.op_type in SEQUENCE_OPS and n.domain in ("", "ai.onnx") for n in graph.node):
        return
    _Resolver(model).run()


class _Resolver:
    def __init__(self, model: "onnx.ModelProto") -> None:
        self.model = model
        self.graph = model.graph
        #: each known sequence: the names of its tensors, in order
        self.lists: dict[str, list[str]] = {}
        self.constants = {t.name: t for t in self.graph.initializer}
        self._shapes: dict[str, list[int | None]] | None = None
        self._fresh = 0
        self.producer = {o: n for n in self.graph.node for o in n.output if o}
        #: each producer's place in a topological order: a graph node's index, and an
        #: unrolled loop's clones, in the order made, after the node before their loop
        self.rank: dict[int, tuple[int, int]] = {id(n): (i, 0) for i, n in enumerate(self.graph.node)}
        self._values: dict[str, np.ndarray | None] = {}
        #: before opset 13, Split's sizes and (Un)Squeeze's axes are attributes, not inputs
        self.inputs_since_13 = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13) >= 13

    def run(self) -> None:
        import onnx
        out: list[onnx.NodeProto] = []
        for node in self.graph.node:
            unrolled = self._unroll(node) if node.op_type == "Loop" and node.domain in ("", "ai.onnx") else None
            for each in unrolled if unrolled is not None else [node]:
                self._visit(each, out)
        outputs = {o.name for o in self.graph.output}
        while True:
            read = {name for node in out for name in _reads(node)} | outputs
            kept = [n for n in out if not (n.op_type in _LIST_MAKERS and n.output[0] in self.lists
                                           and n.output[0] not in read)]
            if len(kept) == len(out):
                break
            out = kept
        del self.graph.node[:]
        self.graph.node.extend(out)
        gone = set(self.lists) - read
        infos = [v for v in self.graph.value_info if v.name not in gone]
        del self.graph.value_info[:]
        self.graph.value_info.extend(infos)

    def _visit(self, node: "onnx.NodeProto", out: "list[onnx.NodeProto]") -> None:
        """Append what stands for ``node`` to ``out``."""
        replaced = self._rewrite(node) if node.domain in ("", "ai.onnx") else None
        if replaced is not None:
            out.extend(replaced)
        if replaced is None or node.op_type in _LIST_MAKERS:
            # a list maker stays until nothing reads its list
            out.append(node)
            if node.op_type == "Constant" and len(node.output) == 1:
                self._note_constant(node)

    def _unroll(self, loop: "onnx.NodeProto") -> "list[onnx.NodeProto] | None":
        """The iterations of a ``Loop`` that carries a known list or reads one from
        the graph around it, one after the other (the list then grows or is read
        at known positions), when its trip count is a constant, it runs while
        true, and its body neither nests a region nor makes scan outputs; None
        to keep the loop."""
        ins = list(loop.input)
        body = next((a.g for a in loop.attribute if a.name == "body"), None)
        carried = ins[2:]
        if body is None or not any(name in self.lists for name in carried + [i for n in body.node for i in n.input]) \
                or len(body.output) != 1 + len(carried) or len(loop.output) != len(carried):
            return None
        trips = self._int(ins[0], bool(ins[0]))
        condition = self._array(ins[1]) if len(ins) > 1 and ins[1] else np.array(True)
        if not isinstance(trips, int) or not 0 <= trips <= _MAX_UNROLLED or condition is None \
                or not bool(condition.reshape(-1)[0]):
            return None
        if any(a.type in (a.GRAPH, a.GRAPHS) for n in body.node for a in n.attribute):
            return None
        # the body's condition must stay true: its own input (or a copy of it), or a constant true from outside
        cond_out = body.output[0].name
        stays = cond_out == body.input[1].name or any(
            n.op_type == "Identity" and n.output[0] == cond_out and (
                n.input[0] == body.input[1].name
                or (a := self._array(n.input[0])) is not None and a.size == 1 and bool(a.reshape(-1)[0]))
            for n in body.node)
        if not stays:
            return None
        nodes: list[onnx.NodeProto] = []
        condition_name = ins[1] if len(ins) > 1 and ins[1] else self._fresh_name(loop, "true")
        if condition_name != ins[1]:
            nodes.append(self._constant(condition_name, np.array(True), loop))
        current = list(carried)
        place = self.rank[id(loop)][0]
        for i in range(trips):
            prefix = f"{loop.name or loop.output[0]}/iteration{i}/"
            iteration = prefix + body.input[0].name
            nodes.append(self._constant(iteration, np.array(i, np.int64), loop))
            rename = {body.input[0].name: iteration, body.input[1].name: condition_name}
            rename.update({v.name: c for v, c in zip(body.input[2:], current)})
            for n in body.node:
                clone = type(n)()
                clone.CopyFrom(n)
                clone.name = prefix + n.name
                clone.input[:] = [rename.get(x, x) for x in n.input]
                for k, o in enumerate(n.output):
                    if o:
                        rename[o] = prefix + o
                        clone.output[k] = rename[o]
                        # a position the body computes is then found like the graph's own
                        self.producer[rename[o]] = clone
                self.rank[id(clone)] = (place - 1, 1 + len(nodes))
                nodes.append(clone)
            current = [rename.get(o.name, o.name) for o in body.output[1:]]
        for result, value in zip(loop.output, current):
            if result:
                nodes.append(self._node("Identity", [value], [result], loop))
        return nodes

    # ------------------------------------------------------------ the rules

    def _rewrite(self, node: "onnx.NodeProto") -> "list[onnx.NodeProto] | None":
        """The nodes that stand for ``node`` (none for a list maker whose list is
        now known), or None to keep it as it is."""
        op, ins = node.op_type, list(node.input)
        if op == "SequenceEmpty":
            self.lists[node.output[0]] = []
            return []
        if op == "SequenceConstruct":
            self.lists[node.output[0]] = list(ins)
            return []
        if op in ("SequenceInsert", "SequenceErase"):
            items = self.lists.get(ins[0])
            given = len(ins) > _POSITION[op] and bool(ins[_POSITION[op]])
            position = self._int(ins[_POSITION[op]], True) if given else None
            if items is None or position is _UNKNOWN:
                return None
            items = list(items)
            if op == "SequenceInsert":
                at = len(items) if position is None else position + (len(items) if position < 0 else 0)
                if not 0 <= at <= len(items):
                    return None
                items.insert(at, ins[1])
            else:
                at = len(items) - 1 if position is None else position + (len(items) if position < 0 else 0)
                if not 0 <= at < len(items):
                    return None
                del items[at]
            self.lists[node.output[0]] = items
            return []
        if op == "Identity" and ins and ins[0] in self.lists:
            # a list passed on (a loop's result)
            self.lists[node.output[0]] = self.lists[ins[0]]
            return []
        if op == "SequenceAt":
            items = self.lists.get(ins[0])
            position = self._int(ins[1], True)
            if items is None or position is _UNKNOWN or position is None \
                    or not -len(items) <= position < len(items):
                return None
            return [self._node("Identity", [items[position]], [node.output[0]], node)]
        if op == "SequenceLength":
            items = self.lists.get(ins[0])
            if items is None:
                return None
            return [self._constant(node.output[0], np.array(len(items), np.int64), node)]
        if op == "ConcatFromSequence":
            items = self.lists.get(ins[0])
            if not items:
                return None
            axis, new_axis = _attribute(node, "axis", 0), _attribute(node, "new_axis", 0)
            nodes: list[onnx.NodeProto] = []
            parts = self._each_on_axis("Unsqueeze", list(items), axis, node, nodes) if new_axis else list(items)
            nodes.append(self._node("Concat", parts, [node.output[0]], node, axis=axis))
            return nodes
        if op == "SplitToSequence":
            return self._split(node)
        return None

    def _split(self, node: "onnx.NodeProto") -> "list[onnx.NodeProto] | None":
        ins = list(node.input)
        axis, keepdims = _attribute(node, "axis", 0), _attribute(node, "keepdims", 1)
        dims = self._shape(ins[0])
        if dims is None:
            return None
        if axis < 0:
            axis += len(dims)
        if not 0 <= axis < len(dims):
            return None
        length = dims[axis]
        split = self._array(ins[1]) if len(ins) > 1 and ins[1] else None
        if len(ins) > 1 and ins[1] and split is None:
            return None
        if split is None or split.ndim == 0:
            if length is None:
                return None
            chunk = 1 if split is None else int(split)
            if chunk <= 0:
                return None
            sizes = [min(chunk, length - start) for start in range(0, length, chunk)]
        else:
            sizes = [int(s) for s in split.reshape(-1)]
        squeeze = split is None and not keepdims
        nodes: list[onnx.NodeProto] = []
        parts = [self._fresh_name(node, f"part{i}") for i in range(len(sizes))]
        if self.inputs_since_13:
            split_name = self._fresh_name(node, "split")
            nodes.append(self._constant(split_name, np.array(sizes, np.int64), node))
            nodes.append(self._node("Split", [ins[0], split_name], parts, node, axis=axis))
        else:
            nodes.append(self._node("Split", [ins[0]], parts, node, axis=axis, split=sizes))
        if squeeze:
            parts = self._each_on_axis("Squeeze", parts, axis, node, nodes)
        self.lists[node.output[0]] = parts
        return nodes

    def _each_on_axis(self, op_type: str, tensors: list[str], axis: int, origin: "onnx.NodeProto",
                      nodes: "list[onnx.NodeProto]") -> list[str]:
        """``op_type`` (Squeeze, Unsqueeze) of each of ``tensors`` on ``axis``,
        its nodes appended to ``nodes``: the names of the results."""
        axes = self._fresh_name(origin, "axes")
        if self.inputs_since_13:
            nodes.append(self._constant(axes, np.array([axis], np.int64), origin))
        results = []
        for tensor in tensors:
            results.append(self._fresh_name(origin, op_type.lower()))
            if self.inputs_since_13:
                nodes.append(self._node(op_type, [tensor, axes], [results[-1]], origin))
            else:
                nodes.append(self._node(op_type, [tensor], [results[-1]], origin, axes=[axis]))
        return results

    # ------------------------------------------------------------ values

    def _note_constant(self, node: "onnx.NodeProto") -> None:
        import onnx
        for a in node.attribute:
            if a.name == "value" and a.type == a.TENSOR:
                tensor = onnx.TensorProto()
                tensor.CopyFrom(a.t)
                tensor.name = node.output[0]
                self.constants[node.output[0]] = tensor

    def _array(self, name: str) -> np.ndarray | None:
        """The value tensor ``name`` holds when the graph fixes it: a constant,
        or a computation of constants and static shapes (torch's split sizes)."""
        import onnx.numpy_helper
        tensor = self.constants.get(name)
        if tensor is not None:
            if tensor.data_location == tensor.EXTERNAL:
                return None
            try:
                return onnx.numpy_helper.to_array(tensor)
            except (ValueError, TypeError, KeyError):
                return None  # data that does not fit its tensor fixes nothing; the importer reports it
        if name not in self._values:
            self._values[name] = self._evaluate(name)
        return self._values[name]

    def _evaluate(self, name: str) -> np.ndarray | None:
        """``name``'s value from the nodes it depends on, run by onnx's reference
        evaluator, when those depend only on constants and on the shapes of
        tensors whose every dim is known; None otherwise."""
        import onnx
        import onnx.helper
        import onnx.numpy_helper
        import onnx.reference
        nodes: dict[int, onnx.NodeProto] = {}
        fixed: dict[str, np.ndarray] = {}
        seen: set[str] = set()
        stack = [name]
        while stack:
            tensor = stack.pop()
            if tensor in seen or tensor in self.constants:
                continue
            seen.add(tensor)
            node = self.producer.get(tensor)
            # a graph input, a run-time list, a region or a random draw: not fixed by the graph
            if node is None or node.domain not in ("", "ai.onnx") or node.op_type in SEQUENCE_OPS \
                    or node.op_type.startswith("Random") or node.op_type in ("Bernoulli", "Multinomial") \
                    or any(a.type in (a.GRAPH, a.GRAPHS) for a in node.attribute) or len(nodes) >= _MAX_FOLDED:
                return None
            if node.op_type == "Shape":
                dims = self._shape(node.input[0])
                if dims is None or any(d is None for d in dims):
                    return None
                start, end = _attribute(node, "start", 0), _attribute(node, "end", len(dims))
                fixed[tensor] = np.array(dims[start:end], np.int64)
                continue
            nodes[id(node)] = node
            stack.extend(i for i in node.input if i)
        used = {i for n in nodes.values() for i in n.input}
        initializers = [self.constants[i] for i in used if i in self.constants]
        if any(t.data_location == t.EXTERNAL for t in initializers):
            return None
        initializers += [onnx.numpy_helper.from_array(v, k) for k, v in fixed.items()]
        ordered = sorted(nodes.values(), key=lambda n: self.rank[id(n)])
        graph = onnx.helper.make_graph(ordered, "fold", [],
                                       [onnx.helper.make_empty_tensor_value_info(name)], initializers)
        folded = onnx.helper.make_model(graph, opset_imports=self.model.opset_import)
        try:
            with np.errstate(all="ignore"):
                return np.asarray(onnx.reference.ReferenceEvaluator(folded).run(None, {})[0])
        except Exception:  # noqa: BLE001 - a value the graph does not fix stays unknown
            return None

    def _int(self, name: str, given: bool) -> Any:
        """The constant integer scalar ``name`` holds; None when the optional
        input is not ``given``, :data:`_UNKNOWN` when it is not a constant."""
        if not given:
            return None
        array = self._array(name)
        if array is None or array.size != 1 or array.dtype.kind not in "iu":
            return _UNKNOWN
        return int(array.reshape(()))

    def _shape(self, name: str) -> list[int | None] | None:
        """The dims of tensor ``name`` as shape inference finds them (None: unknown rank)."""
        if self._shapes is None:
            import onnx
            try:
                inferred = onnx.shape_inference.infer_shapes(self.model)
            except Exception:  # noqa: BLE001 - the importer's own strict inference reports what is wrong
                inferred = self.model
            g = inferred.graph
            self._shapes = {}
            for v in [*g.input, *g.value_info, *g.output]:
                if v.type.HasField("tensor_type") and v.type.tensor_type.HasField("shape"):
                    self._shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None
                                            for d in v.type.tensor_type.shape.dim]
            for t in self.graph.initializer:
                self._shapes[t.name] = list(t.dims)
        return self._shapes.get(name)

    # ------------------------------------------------------------ nodes

    def _fresh_name(self, node: "onnx.NodeProto", what: str) -> str:
        self._fresh += 1
        return f"{node.name or node.output[0]}/{what}_{self._fresh}"

    def _node(self, op_type: str, inputs: list[str], outputs: list[str], origin: "onnx.NodeProto",
              **attributes: Any) -> "onnx.NodeProto":
        import onnx.helper
        self._fresh += 1
        return onnx.helper.make_node(op_type, inputs, outputs, name=f"{origin.name or origin.output[0]}"
                                     f"/{op_type}_{self._fresh}", **attributes)

    def _constant(self, name: str, value: np.ndarray, origin: "onnx.NodeProto") -> "onnx.NodeProto":
        import onnx.numpy_helper
        node = self._node("Constant", [], [name], origin, value=onnx.numpy_helper.from_array(value, name))
        self._note_constant(node)
        return node


#: a position that is not a constant
_UNKNOWN = object()
#: at most this many nodes are run to find a split's sizes or a position
_MAX_FOLDED = 256
#: at most this many iterations of a loop that carries a list are unrolled
_MAX_UNROLLED = 64
#: the ops whose result is a list (dropped once nothing reads it)
_LIST_MAKERS = frozenset({"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SplitToSequence",
                          "Identity"})
#: where a list op takes its optional position
_POSITION = {"SequenceInsert": 2, "SequenceErase": 1}


def _reads(node: "onnx.NodeProto") -> list[str]:
    """The names ``node`` reads: its inputs, and those of the nodes of its
    regions at any depth (a body reads the graph around it by name)."""
    names = list(node.input)
    graphs = [g for a in node.attribute for g in ([a.g] if a.type == a.GRAPH else a.graphs)]
    while graphs:
        graph = graphs.pop()
        for n in graph.node:
            names.extend(n.input)
            graphs.extend(g for a in n.attribute for g in ([a.g] if a.type == a.GRAPH else a.graphs))
    return names


def _attribute(node: "onnx.NodeProto", name: str, default: int) -> int:
    for a in node.attribute:
        if a.name == name:
            return int(a.i)
    return default

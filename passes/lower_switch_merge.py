"""GE's dataflow control ops in the task sink: a ``ge.switch`` / ``ge.merge``
diamond (TF v1's ``cond``) lowered as GE's ``SwitchToStreamSwitchPass`` and
``MergeToStreamMergePass`` turn it into stream tasks
(``compiler/graph/passes/control_flow_and_stream/``).

A *switch group* is every ``ge.switch`` on one predicate (GE groups the
switches of one condition into one ``StreamSwitch`` per branch), the ops that
read a branch's values (its *branch*: forward from the switches' false #0 or
true #1 results up to the merges) and the ``ge.merge`` ops that join one value
of each branch. Lowered, on the stream of the group's last merge::

    cast %pred -> %p32                 (GE's Cast of the predicate to i32)
    stream_switch %p32 ne 0 -> T       (GE: StreamSwitch_t)
    stream_switch %p32 eq 0 -> F       (StreamSwitch_f)
    wait merged
    T: the true branch's tasks ; each merge input into the merge's slot ;
       its index (constant) into value_index ; stream_active M
    F: the same for the false branch
    M: memcpy slot -> merge result (GE's StreamMerge) ... ; record merged

The switch itself is bypassed (``BypassSwitchNode``): a branch reads the
switch's data input. Each merge's inputs share one slot (GE assigns a
merge's inputs one address), written in place by the op that computes a
branch's value; the merge stream is started by whichever branch ran (GE's
``StreamActive`` after each merge input, ``SetActiveLabelList``). The two
branches' buffers start at one arena base: only one runs.

Refused, with a located error (``ge-run`` runs them host-driven, as GE's
runtime v2 does: :mod:`geir.backends.host_control`): a merge whose inputs
are not one value from each branch of one switch group, a branch value read
outside its branch except by a merge, a switch nested in another's branch,
an op with regions in a branch, and a group no merge joins. Loop frames
(``ge.enter`` / ``ge.exit`` / ``ge.next_iteration`` / ``ge.loop_cond``) are
refused by :func:`~geir.passes.lower_control_flow.control_op_problem`; nothing
runs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import numpy as np

from geir.attributes import TypeAttr
from geir.backends.task_list import Kernel, Memcpy, Record, StreamActive, StreamSwitch, Wait
from geir.operation import Block, Operation, Value
from geir.types import I32, TensorType

if TYPE_CHECKING:
    from geir.passes.lower_to_tasks import _GraphLowering

__all__ = ["DATAFLOW_OPS", "SwitchGroup", "switch_groups", "emit_switch_group"]

#: GE's dataflow control ops a diamond is made of
DATAFLOW_OPS = frozenset({"ge.switch", "ge.merge"})

_REFUSED = "is not supported by lower-to-tasks: "
_SIDES = ("false", "true")


@attrs.define(eq=False)
class SwitchGroup:
    """The switches on one predicate, their two branches and the merges that join them."""

    pred: Value
    switches: list[Operation]
    #: the ops of the false (#0) and the true (#1) branch, in block order
    branches: tuple[list[Operation], list[Operation]]
    merges: list[Operation]
    #: per merge: the operand index of its false input and of its true input
    sides: list[tuple[int, int]]

    @property
    def ops(self) -> list[Operation]:
        """Every op of the group."""
        return [*self.switches, *self.branches[0], *self.branches[1], *self.merges]


def _top(op: Operation, block: Block) -> Operation | None:
    """The op of ``block`` that is ``op`` or holds it in a region."""
    while op is not None and op.parent is not block:
        op = op.parent_op  # type: ignore[assignment]
    return op


def switch_groups(block: Block) -> tuple[list[SwitchGroup], dict[Operation, str]]:
    """The switch groups of ``block`` that lower to stream tasks, and why each
    op of a group that cannot be lowered (or a stray merge) is refused."""
    problems: dict[Operation, str] = {}
    by_pred: dict[Value, list[Operation]] = {}
    for op in block.ops:
        if op.name == "ge.switch":
            by_pred.setdefault(op.operands[1], []).append(op)
    side: dict[Value, tuple[int, int]] = {}  # value -> (group number, branch)
    owner: dict[Operation, tuple[int, int]] = {}
    #: per group: the ops refused that read its values (its diamond cannot be lowered)
    touched: dict[int, list[Operation]] = {}
    candidates = list(by_pred.items())
    for g, (_, switches) in enumerate(candidates):
        for sw in switches:
            for k in (0, 1):
                side[sw.results[k]] = (g, k)

    def refuse(op: Operation, message: str, reads: set[tuple[int, int]]) -> None:
        problems[op] = message
        for g in {g for g, _ in reads}:
            touched.setdefault(g, []).append(op)

    for op in block.ops:
        if op.name in ("ge.merge", "ge.return"):
            continue
        reads = {side[v] for inner in op.walk() for v in inner.operands if v in side}
        if not reads:
            continue
        if op.name == "ge.switch":
            refuse(op, _REFUSED + "a ge.switch inside another switch's branch (a nested conditional) runs "
                                  "host-driven (runtime v2)", reads)
        elif len(reads) > 1:
            refuse(op, "reads values of both branches of a ge.switch: only a ge.merge joins them; lower-to-tasks "
                       "lowers a switch/merge diamond", reads)
        elif op.regions:
            refuse(op, _REFUSED + "an op with regions inside a ge.switch branch runs host-driven (runtime v2)", reads)
        else:
            where = next(iter(reads))
            owner[op] = where
            for r in op.results:
                side[r] = where
    merges: dict[int, list[tuple[Operation, tuple[int, int]]]] = {}
    for op in block.ops:
        if op.name != "ge.merge":
            continue
        found = [side.get(v) for v in op.operands]
        reads = {w for w in found if w is not None}
        named = {g for g, _ in reads}
        if not named:
            problems[op] = (_REFUSED + "none of its inputs comes from a ge.switch branch; the task sink lowers "
                            "a switch/merge diamond")
        elif len(op.operands) != 2 or len(named) != 1 or {k for _, k in reads} != {0, 1}:
            counts = ", ".join(f"{sum(1 for w in found if w is not None and w[1] == k)} from the {_SIDES[k]} branch"
                               for k in (1, 0))
            refuse(op, _REFUSED + f"it merges {len(op.operands)} inputs ({counts}); the task sink lowers a merge "
                                  "of one value from each branch of one switch", reads)
        else:
            false_at = next(i for i, w in enumerate(found) if w is not None and w[1] == 0)
            merges.setdefault(named.pop(), []).append((op, (false_at, 1 - false_at)))
    order = {op: i for i, op in enumerate(block.ops)}
    all_branches: list[tuple[list[Operation], list[Operation]]] = [([], []) for _ in candidates]
    for op, (g, k) in owner.items():  # in block order: owner was filled walking the block
        all_branches[g][k].append(op)
    groups: list[SwitchGroup] = []
    for g, (pred, switches) in enumerate(candidates):
        branches = all_branches[g]
        joined = merges.get(g, [])
        members = {*switches, *branches[0], *branches[1], *(m for m, _ in joined)}
        bad = list(touched.get(g, [])) + [op for op in switches if op in problems]
        for op in [*switches, *branches[0], *branches[1]]:
            for r in op.results:
                for use in r.uses:
                    user = _top(use.owner, block)
                    if user is not None and user not in members and user not in problems:
                        problems[user] = (f"reads a value of the {_SIDES[side[r][1]]} branch of a ge.switch outside "
                                          "that branch: only a ge.merge joins a branch back")
                        bad.append(user)
        last = max((order[m] for m, _ in joined), default=-1)
        for op in [*branches[0], *branches[1]]:
            if order[op] > last and op not in problems and joined:
                problems[op] = (_REFUSED + "it is in a ge.switch branch but after the branch's last ge.merge; "
                                "the task sink runs a branch before its merges")
                bad.append(op)
        if not bad and not joined:
            for sw in switches:
                problems[sw] = _REFUSED + "no ge.merge joins its branches"
        elif bad:
            for op in switches:
                problems.setdefault(op, _REFUSED + "its diamond cannot be lowered (" +
                                    f"'{bad[0].name}' op {problems[bad[0]]})".replace(_REFUSED, ""))
        else:
            groups.append(SwitchGroup(pred, switches, branches, [m for m, _ in joined], [s for _, s in joined]))
    return groups, problems


def emit_switch_group(lw: "_GraphLowering", group: SwitchGroup, s: int) -> None:
    """The group's tasks: stream switches on ``s``, each branch on a stream
    of its own, the merges on a third, and ``s`` waiting for the merges."""
    op = group.merges[-1]
    loc = lw.loc(group.switches[0])
    src = lw.refs.get(group.pred)
    assert src is not None
    # GE casts the predicate to i32 for its stream switches: a buffer of their
    # own, which nothing the branches start can overwrite while the second
    # switch still reads it (the planned one may be reused after the switch ops)
    pred_t = TensorType(group.pred.type.shape, I32)  # type: ignore[union-attr]
    pred = lw.fresh(pred_t)
    lw.add_task(s, Kernel("ge.cast", lw.engine_of("ge.cast"), [src], [pred], {"to": TypeAttr(I32)}, loc=loc,
                          name=f"{loc}:cast"), group.switches[0].location)
    for sw in group.switches:  # bypassed: a branch reads the switch's data
        lw.refs[sw.results[0]] = lw.refs[sw.results[1]] = lw.refs.get(sw.operands[0])
    true_s, false_s, merge_s = (lw.new_stream() for _ in range(3))
    lw.activated.update((true_s, false_s, merge_s))
    slots = [lw.fresh(m.results[0].type) for m in group.merges]  # type: ignore[arg-type]
    lw.add_task(s, StreamSwitch(pred, true_s, "ne", 0, loc), group.switches[0].location)
    lw.add_task(s, StreamSwitch(pred, false_s, "eq", 0, loc), group.switches[0].location)
    base = lw.arena_end
    ends = []
    for branch, stream in ((1, true_s), (0, false_s)):
        lw.arena_end = base
        ops = group.branches[branch]
        inputs = [m.operands[sides[branch]] for m, sides in zip(group.merges, group.sides)]
        for v in (r for o in ops for r in o.results):
            lw.refs.pop(v, None)  # planned for block order; the branch runs at the group's place
        for v, slot in zip(inputs, slots):
            # in place: the op that computes the branch's value writes the merge's slot
            if getattr(v, "op", None) in ops and inputs.count(v) == 1 and len(v.uses) == 1:
                lw.refs[v] = slot
        for inner in ops:
            lw.emit_plain(inner, stream)
        for m, v, slot, sides in zip(group.merges, inputs, slots, group.sides):
            src = lw.refs.get(v)
            if src is None:
                lw.error(m, "merges an absent (ge.none) value")
                continue
            if src != slot:
                lw.add_task(stream, Memcpy(src, slot, lw.loc(m)), m.location)
            index = lw.constant(np.array(sides[branch], np.int32), I32)
            dst = lw.refs.get(m.results[1])
            assert dst is not None
            lw.add_task(stream, Memcpy(index, dst, lw.loc(m)), m.location)
        lw.add_task(stream, StreamActive(merge_s, loc), op.location)
        ends.append(lw.arena_end)
    lw.arena_end = max(ends)
    event = lw.new_event()
    for m, slot in zip(group.merges, slots):
        dst = lw.refs.get(m.results[0])
        assert dst is not None
        lw.add_task(merge_s, Memcpy(slot, dst, lw.loc(m)), m.location)  # GE's StreamMerge
        lw.producer_stream[m.results[0]] = lw.producer_stream[m.results[1]] = s
    lw.add_task(merge_s, Record(event, loc), op.location)
    lw.add_task(s, Wait(event, loc), op.location)

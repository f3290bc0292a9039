"""Control tasks on the emulated device: labels, stream activation and switches,
as GE's runtime v1 task sink runs ``If`` / ``While`` / ``Case`` without the host.

* A **label set** marks a place in its stream; a **label goto** goes on there; a
  **label switch** reads one integer from the arena and goes on at
  ``labels[index]`` (an index past the end, or negative, takes the last label,
  as ``rtLabelSwitchByIndex`` clamps to ``branch_max``).
* A **stream active** starts a stream from its first task; a **stream switch**
  reads one value and starts its true stream when ``value <condition> operand``
  holds. A stream some task starts is not started with the model (GE binds it
  as a non-head stream) and is idle again once it has run its last task, so a
  loop may start it once per iteration; starting a stream that is still running
  does nothing, as on the device (counted as a lost activation).
* Each control task spends its time on its stream, not on an engine: the
  profile's ``label_switch_us`` / ``label_goto_us`` / ``label_set_us`` /
  ``stream_switch_us`` / ``stream_active_us`` (assumed figures: no public
  latency exists; they are device parameters to sweep).

Without numerics (timing only) the values a switch reads are unknown: the
first execution of each switch takes its last label (``If``: then, ``While``:
the body, ``Case``: the last branch; a stream switch reads 1, so of a switch/merge diamond's two
stream switches on one predicate the true branch's holds) and every later one
its first (``While``: exit; a stream switch reads 0), so a loop runs one iteration. The report marks
such runs as assumed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from geir.backends.task_list import LabelGoto, LabelSet, LabelSwitch, StreamActive, StreamSwitch, Task
from geir.diagnostics import Diagnostic, DiagnosticError

if TYPE_CHECKING:
    from geir.backends.device_profile import DeviceProfile
    from geir.backends.emulator.arena import NumericExecutor
    from geir.backends.emulator.program import Program

__all__ = ["control_duration", "ControlState", "MAX_JUMPS"]

#: the profile parameter that times each control task kind
_DURATION_PARAM = {"label_set": "label_set_us", "label_goto": "label_goto_us", "label_switch": "label_switch_us",
                   "stream_active": "stream_active_us", "stream_switch": "stream_switch_us"}
#: backward jumps one run may take before the emulator calls the loop endless
MAX_JUMPS = 1_000_000

_COMPARE = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
            "le": np.less_equal}


def control_duration(task: Task, profile: "DeviceProfile") -> float:
    """The time ``task`` (a control task) holds its stream on ``profile``'s device."""
    return float(profile[_DURATION_PARAM[task.kind]])


@attrs.define(eq=False)
class ControlState:
    """What the simulator needs to run one program's control tasks: where each
    label is, which streams wait to be started, and what happened."""

    program: "Program"
    numerics: "NumericExecutor | None"
    #: label -> global index of its label set
    label_at: dict[int, int]
    #: stream id -> stream index
    stream_index: dict[int, int]
    #: stream indices a task starts (not started with the model)
    activated: set[int]
    switches: int = 0
    activations: int = 0
    lost_activations: int = 0
    jumps_back: int = 0
    #: switch task -> how often each of its labels (or: true/false) was taken
    taken: dict[int, dict[int, int]] = attrs.Factory(dict)
    assumed: bool = False

    @classmethod
    def build(cls, program: "Program", numerics: "NumericExecutor | None") -> "ControlState | None":
        """None when the program has no control task (the simulator's fast path)."""
        label_at: dict[int, int] = {}
        activated: set[int] = set()
        stream_index = {sid: i for i, sid in enumerate(program.stream_ids)}
        found = False
        for g, t in enumerate(program.tasks):
            if isinstance(t, LabelSet):
                label_at[t.label] = g
                found = True
            elif isinstance(t, (StreamActive, StreamSwitch)):
                target = t.stream if isinstance(t, StreamActive) else t.true_stream
                if target not in stream_index:
                    raise DiagnosticError(Diagnostic("error", f"{program.label(g)} starts stream {target}, which the "
                                                              "task list does not have"))
                activated.add(stream_index[target])
                found = True
            elif isinstance(t, (LabelGoto, LabelSwitch)):
                found = True
        if not found:
            return None
        for g, t in enumerate(program.tasks):
            labels = [t.label] if isinstance(t, LabelGoto) else (t.labels if isinstance(t, LabelSwitch) else [])
            for label in labels:
                target = label_at.get(label)
                if target is None or program.stream_of[target] != program.stream_of[g]:
                    raise DiagnosticError(Diagnostic("error", f"{program.label(g)} jumps to label {label}, which is "
                                                              "not set on its stream"))
        return cls(program, numerics, label_at, stream_index, activated)

    def _read(self, g: int, ref: Any) -> int | None:
        if self.numerics is None:
            return None
        return int(np.asarray(self.numerics.memory.view(ref)).reshape(-1)[0])

    def fire(self, g: int) -> tuple[int, int | None]:
        """Task ``g`` finished: (the next task of its stream, the stream index it
        starts or None)."""
        t = self.program.tasks[g]
        nxt = g + 1
        if isinstance(t, LabelGoto):
            nxt = self.label_at[t.label]
        elif isinstance(t, LabelSwitch):
            value = self._read(g, t.index)
            counts = self.taken.setdefault(g, {})
            if value is None:
                self.assumed = True
                value = len(t.labels) - 1 if not counts else 0
            i = value if 0 <= value < len(t.labels) else len(t.labels) - 1
            counts[i] = counts.get(i, 0) + 1
            self.switches += 1
            nxt = self.label_at[t.labels[i]]
        elif isinstance(t, StreamActive):
            return nxt, self.stream_index[t.stream]
        elif isinstance(t, StreamSwitch):
            value = self._read(g, t.cond)
            counts = self.taken.setdefault(g, {})
            if value is None:
                # the value assumed, not the outcome: two switches on one predicate
                # (a switch/merge diamond's ne 0 and eq 0) then start one branch
                self.assumed = True
                value = 1 if not counts else 0
            holds = bool(_COMPARE[t.condition](value, t.value))
            counts[int(holds)] = counts.get(int(holds), 0) + 1
            self.switches += 1
            if holds:
                return nxt, self.stream_index[t.true_stream]
        if nxt <= g:
            self.jumps_back += 1
            if self.jumps_back > MAX_JUMPS:
                raise DiagnosticError(Diagnostic("error", f"{self.program.label(g)} jumped back more than "
                                                          f"{MAX_JUMPS} times: the loop does not end"))
        return nxt, None

    def summary(self) -> dict[str, Any]:
        """The report's ``control`` section."""
        program = self.program
        return {"switches": self.switches, "activations": self.activations,
                "lost_activations": self.lost_activations, "jumps_back": self.jumps_back,
                "branches_assumed": self.assumed,
                "taken": [{"task": program.describe(g), "counts": {str(k): v for k, v in sorted(c.items())}}
                          for g, c in sorted(self.taken.items())]}

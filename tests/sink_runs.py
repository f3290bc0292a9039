"""Which kernels of a task list an emulated run started: the task-sink tests ask
it of every branch, since a branch that is not taken never starts."""

from __future__ import annotations

from typing import Any

from geir.backends.task_list import Kernel, TaskList


def started_kernels(task_list: TaskList, result: Any) -> set[str]:
    """The names of the kernels of ``task_list`` the emulated ``result`` started."""
    schedule = result.schedule
    first = dict(zip(schedule.program.stream_ids, schedule.program.first))
    return {t.name for s in task_list.streams for i, t in enumerate(s.tasks)
            if isinstance(t, Kernel) and schedule.start[first[s.id] + i] != float("inf")}

"""Machinery shared by the scheduling passes (assign-engines, partition-streams,
insert-events, reuse-memory, schedule-stats): the task DAG of a graph, op costs
from the emulator's cost model, stream plans, happens-before, and the stream
assignment strategies."""

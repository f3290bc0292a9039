"""Memory planning for ``reuse-memory``: one concept per module.

* :mod:`.happens_before` — compile-time happens-before over a scheduled
  ``ge.graph`` (stream order and record/wait edges, as vector clocks);
* :mod:`.lifetimes` — the buffers to place (tensors, in-place groups, zero-copy
  I/O) and which pairs may not share bytes;
* :mod:`.concat_slices` — a no-task concat's inputs, laid out inside its result;
* :mod:`.greedy_by_size` — TFLite's offset calculation (best fit by size);
* :mod:`.ge_blocks` — GE's size-class block reuse (the baseline);
* :mod:`.arena_plan` — a plan: the algorithms' variants, the smallest kept,
  zero-copy I/O laid out after the arena;
* :mod:`.memory_bound` — the lower bound of a schedule: the heaviest set of
  buffers that some execution keeps live at once;
* :mod:`.region_plan` — the regions of ``ge.if`` / ``ge.case`` / ``ge.loop`` /
  ``ge.scan``, planned innermost first into one region buffer per control op;
* :mod:`.memory_priority` — ordering events that trade parallelism for memory;
* :mod:`.memory_plan_table` — the plan as a table.
"""

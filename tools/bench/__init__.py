"""The sweep engine behind ``ge-bench``, one concept per module:

* :mod:`.workloads` — the generated multi-branch graphs, by name;
* :mod:`.models` — model names and paths to ge IR text;
* :mod:`.sweep_config` — the configuration space, from a config file and the
  command line, checked;
* :mod:`.measure` — one (model, configuration) run: passes, lowering, emulator;
* :mod:`.executors` — where runs execute (this process, a process pool, Dask);
* :mod:`.results` — the result table's file (CSV or JSON lines), resumable;
* :mod:`.sweep` — running a sweep from its results file to its finished table;
* :mod:`.table`, :mod:`.plots` — the table as text or Markdown, and the figures.
"""

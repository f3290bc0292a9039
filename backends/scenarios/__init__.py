"""Workload scenarios on the emulator, one concept per module:

* :mod:`.iterations` — ``unroll``: N frames of a task list back to back on the
  same streams (double-buffered arena regions, events between frames);
* :mod:`.video_pipeline` — scenario 1: frames/s and utilisation of a DVPP ->
  AI core -> AICPU pipeline, single- vs multi-stream;
* :mod:`.co_run` — scenario 2: several models on one device, a priority each;
  latency under load vs alone, and throughput;
* :mod:`.data_parallel` — scenario 3: a data-parallel training step on 1-8
  devices with and without communication overlap; training beside inference;
* :mod:`.build` — a ``ge`` module compiled to a task list for a scenario;
* :mod:`.runs` — each scenario over a model, as ``ge-run`` asks for it.

``geir.tools.ge_run_scenarios`` puts them on ``ge-run``'s command line;
``bench/scenarios.py`` prints their figures.
"""

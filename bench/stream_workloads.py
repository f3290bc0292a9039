"""The generated workloads of the stream benchmarks. They live in
``geir.tools.bench.workloads`` (``ge-bench`` runs them by name, so they ship in
the package); this module keeps the name the benchmarks import."""

from geir.tools.bench.workloads import WORKLOADS, attention, fpn_head, inception, random_dag, training_step  # noqa: F401

__all__ = ["inception", "attention", "fpn_head", "training_step", "random_dag", "WORKLOADS"]

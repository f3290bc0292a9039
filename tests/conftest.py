"""Suite-wide pytest hooks."""

from __future__ import annotations

import os

# The suite runs a process per core (and lit a tool per RUN line): BLAS threads inside
# each would only contend for the same cores, and every tool would pay their start-up.
# Set before numpy is imported, so the workers and the tools they start inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

#: the longest files, collected first: with one file per core (``--dist loadfile``)
#: they then start at once instead of running alone at the end
LONGEST_FIRST = ("test_lit.py", "test_more_310p3_data.py", "test_onnx_conformance.py", "test_deep_graphs.py",
                 "test_main_job_models.py", "test_roundtrip.py")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable: files stay whole

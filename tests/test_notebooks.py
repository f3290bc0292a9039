"""The example notebooks run top to bottom (nbclient, a fresh kernel), so they
cannot rot as the API changes; and they show what a notebook user should see."""

from __future__ import annotations

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

nbformat = pytest.importorskip("nbformat", reason="the notebook extra (nbformat) is not installed")
nbclient = pytest.importorskip("nbclient", reason="the notebook extra (nbclient) is not installed")
pytest.importorskip("ipykernel", reason="the notebook extra (ipykernel) is not installed")
pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")


def _execute(path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> object:
    nb = nbformat.read(path, as_version=4)
    # The kernel inherits the environment: its temporary files go to tmp_path.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def _outputs(nb: object) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]  # type: ignore[attr-defined]


def test_strategies_notebook_runs_and_plots_both_timelines(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: pathlib.Path) -> None:
    nb = _execute(EXAMPLES / "strategies.ipynb", monkeypatch, tmp_path)
    outputs = _outputs(nb)
    assert not [o for o in outputs if o["output_type"] == "error"]
    # the module and the report display themselves as HTML (coloured IR, tables)
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<pre class='geir-ir'>" in h and "geir-op" in h for h in html)
    assert any("<div class='geir-report'>" in h and "<table>" in h for h in html)
    # two timelines, drawn as images
    pngs = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 2
    text = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert "single stream" in text and "cost-based streams" in text and "speed-up" in text
    # the trace went where the kernel's TMPDIR says
    traces = list(tmp_path.rglob("cost_streams.trace.json"))
    assert len(traces) == 1 and traces[0].stat().st_size > 0


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_stored_without_outputs(path: pathlib.Path) -> None:
    """Outputs would go stale in the repository; the test run makes them."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} has stored outputs"

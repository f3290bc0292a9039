"""Output files are written whole or not at all, and a failure names the
file the user asked for."""

from __future__ import annotations

import os

import pytest

from geir.diagnostics import DiagnosticError
from geir.output_file import save_figure, write_atomically


def _message(error: pytest.ExceptionInfo[DiagnosticError]) -> str:
    return error.value.diagnostics[0].message


def test_the_bytes_written_become_the_file(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    write_atomically(str(path), lambda stream: stream.write(b"new"))
    assert path.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_a_new_file_gets_the_umask_permissions_and_a_replaced_one_keeps_its_own(tmp_path):
    umask = os.umask(0o022)
    try:
        write_atomically(str(tmp_path / "new.bin"), lambda stream: stream.write(b"x"))
        assert (tmp_path / "new.bin").stat().st_mode & 0o777 == 0o644
        (tmp_path / "old.bin").write_bytes(b"old")
        (tmp_path / "old.bin").chmod(0o640)
        write_atomically(str(tmp_path / "old.bin"), lambda stream: stream.write(b"new"))
        assert (tmp_path / "old.bin").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)


def test_a_writer_that_fails_leaves_the_old_file_and_nothing_else(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")

    def fail(stream):
        stream.write(b"half")
        raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        write_atomically(str(path), fail)
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_a_missing_directory_is_named(tmp_path):
    path = tmp_path / "missing" / "out.bin"
    with pytest.raises(DiagnosticError) as e:
        write_atomically(str(path), lambda stream: stream.write(b"x"))
    assert _message(e) == f"cannot write '{path}': no such directory '{tmp_path / 'missing'}'"


def test_a_directory_is_not_overwritten(tmp_path):
    with pytest.raises(DiagnosticError) as e:
        write_atomically(str(tmp_path), lambda stream: stream.write(b"x"))
    assert _message(e) == f"cannot write '{tmp_path}': it is a directory"
    assert os.listdir(tmp_path) == []


def test_a_figure_takes_its_format_from_the_extension(tmp_path):
    figure = pytest.importorskip("matplotlib.figure").Figure()
    figure.subplots().plot([0, 1], [1, 0])
    save_figure(figure, str(tmp_path / "plot.svg"))
    save_figure(figure, str(tmp_path / "plot"))
    assert (tmp_path / "plot.svg").read_bytes().startswith(b"<?xml")
    assert (tmp_path / "plot").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(DiagnosticError) as e:
        save_figure(figure, str(tmp_path / "plot.xyz"))
    assert _message(e) == f"cannot write '{tmp_path / 'plot.xyz'}': no image format 'xyz'"
    assert "png" in e.value.diagnostics[0].notes[0].message
    assert sorted(os.listdir(tmp_path)) == ["plot", "plot.svg"]

"""Output files are written whole or not at all, and a failure names the
file the user asked for."""

from __future__ import annotations

import os
import stat
import threading

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


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_written_into_and_stays_a_device():
    # a temporary file renamed over it would put a regular file in its place
    # (and a user who may not create files in /dev could not write at all)
    before = os.stat("/dev/null")
    write_atomically("/dev/null", lambda stream: stream.write(b"discarded"))
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_device_that_refuses_the_bytes_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as e:
        write_atomically("/dev/full", lambda stream: stream.write(b"x" * 65536))
    assert _message(e).startswith("cannot write '/dev/full': ")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_is_written_into(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomically(str(fifo), lambda stream: stream.write(b"through"))
    reader.join(timeout=10)
    assert received == [b"through"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe"]


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout")
def test_dev_stdout_is_the_process_own_output(capfd):
    write_atomically("/dev/stdout", lambda stream: stream.write(b"to stdout\n"))
    assert capfd.readouterr().out == "to stdout\n"


def test_a_dash_is_standard_output_not_a_file_named_dash(tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_atomically("-", lambda stream: stream.write(b"dash\n"))
    assert capfd.readouterr().out == "dash\n"
    assert os.listdir(tmp_path) == []


def test_a_symbolic_link_keeps_naming_the_file_it_named(tmp_path):
    (tmp_path / "real.bin").write_bytes(b"old")
    (tmp_path / "link.bin").symlink_to(tmp_path / "real.bin")
    write_atomically(str(tmp_path / "link.bin"), lambda stream: stream.write(b"new"))
    assert (tmp_path / "link.bin").is_symlink()
    assert (tmp_path / "real.bin").read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["link.bin", "real.bin"]


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

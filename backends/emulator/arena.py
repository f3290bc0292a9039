"""Device memory for the numeric mode: the arena and the weight space as real
bytes, and the executor that runs kernels on them.

The arena is one ``uint8`` buffer of ``arena_size`` bytes. It starts as zeros,
which costs nothing until a page is touched (an unplanned arena can be hundreds
of MB); reads of bytes nobody wrote are the race checker's to report. With
``poison=True`` it is filled with ``0xFF`` instead, so such reads see NaN
(floats) or -1 (integers) in the numbers too. Graph inputs are copied into their
bindings before the first task; a kernel reads its inputs from the arena when it
starts and writes its outputs when it finishes; outputs are read from their
bindings after the last task. A schedule or memory plan that lets one tensor
overwrite another before its last reader therefore gives wrong numbers.

A UB-fused chain's intermediates (the ``ub`` space) get a buffer of their
own, ``ub_size`` bytes: on the device they never leave the core, here they
pass from one of the chain's ops to the next.

The weight space is read-only: a kernel reads a whole weight as a read-only
view of the task list's own array (a splat stays one value), so a run copies
no weight; a read of part of a weight goes to the weight space as one byte
image, built on first such read.
"""

from __future__ import annotations

import mmap
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from geir.attributes import is_splat_view
from geir.backends.emulator.program import Program
from geir.backends.task_list import ARENA, UB, Kernel, Memcpy, TaskList, TensorRef
from geir.diagnostics import Diagnostic, DiagnosticError, location_from_text

__all__ = ["DeviceMemory", "NumericExecutor", "RunOp", "dtype_of", "release_arena", "host_memory_bytes"]

#: ``run_op(op_name, attributes, inputs, num_results) -> outputs`` (geir.backends.kernel_dispatch.run_op)
RunOp = Callable[[str, Mapping[str, Any], Sequence["np.ndarray | None"], int], list[np.ndarray]]

_DTYPES: dict[str, np.dtype] = {}


def dtype_of(element: str) -> np.dtype:
    """The numpy dtype whose bytes a tensor of element type ``element`` has in device memory."""
    dt = _DTYPES.get(element)
    if dt is None:
        from geir.backends.kernel_dispatch import KernelError, storage_dtype
        try:
            dt = storage_dtype(element)
        except KernelError as e:
            raise DiagnosticError(Diagnostic("error", f"no device storage for element type '{element}': {e}")) from None
        _DTYPES[element] = dt
    return dt


#: arenas at least this large are mapped with transparent huge pages where the OS offers them
HUGE_ARENA = 32 << 20
#: the largest arena kept for the next run
SPARE_LIMIT = 1 << 30
#: the buffer of the last run, kept for the next one (see :func:`release_arena`)
_spare: list[np.ndarray] = []


def _allocate(size: int) -> np.ndarray:
    """A zeroed byte buffer of ``size`` bytes.

    Fresh memory is expensive here: the arena is written once, page by page, and
    on an unplanned resnet50 arena (240 MiB) first-touch faults on 4 KiB pages
    took a third of the run. So the last run's buffer is reused (zeroing it is
    a memset), and a new large one is its own mapping advised to use 2 MiB pages.
    """
    try:
        spare: np.ndarray | None = _spare.pop()
    except IndexError:  # pop, not a test first: another thread may be emulating too
        spare = None
    if spare is not None and spare.size >= size:
        buffer = spare[:size]
        buffer.fill(0)
        return buffer
    del spare  # too small: let it go before mapping a new one
    if size >= HUGE_ARENA and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            region = mmap.mmap(-1, size)
            region.madvise(mmap.MADV_HUGEPAGE)
            return np.frombuffer(region, dtype=np.uint8)
        except (OSError, ValueError):
            pass
    return np.zeros(size, dtype=np.uint8)


def release_arena(memory: "DeviceMemory") -> None:
    """Hand ``memory``'s arena to the next run (the caller no longer uses it)."""
    arena = memory.arena
    base = arena.base if isinstance(arena.base, np.ndarray) else arena  # a reused buffer is a slice of its base
    if base.size <= SPARE_LIMIT:
        _spare[:] = [base]
    memory.arena = np.zeros(0, dtype=np.uint8)


def host_memory_bytes() -> int | None:
    """This machine's memory, where the numeric mode keeps a run's values (None: unknown)."""
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


class DeviceMemory:
    """The arena, the unified buffer and the weight space of one run."""

    def __init__(self, task_list: TaskList, poison: bool = False) -> None:
        host = host_memory_bytes()
        need = task_list.arena_size + task_list.ub_size
        if host is not None and need > host:  # said, not a MemoryError: the timing needs no bytes
            raise DiagnosticError(Diagnostic(
                "error", f"the numbers need the arena and unified buffer ({need:.3g} bytes) in this machine's "
                         f"memory ({host:.3g} bytes); --timing-only emulates the time alone"))
        try:
            self.arena = _allocate(task_list.arena_size)
            self.unified_buffer = np.zeros(task_list.ub_size, dtype=np.uint8)
        except MemoryError:  # within the machine's memory, but not what this process may take
            raise DiagnosticError(Diagnostic(
                "error", f"the numbers need the arena and unified buffer ({need:.3g} bytes), more than this "
                         f"process can allocate; --timing-only emulates the time alone")) from None
        if poison:
            self.arena.fill(0xFF)
            self.unified_buffer.fill(0xFF)
        #: each weight by its offset, as lowering gave it: a kernel reads it where it lies, read-only,
        #: so a run copies no weight (the weight space as one image is built only for a ref that is
        #: not one whole weight)
        self._weights: dict[int, np.ndarray] = {}
        for blob in task_list.weights:
            value = self._weights[blob.offset] = np.asarray(blob.data)
            if blob.offset < 0 or blob.offset + value.nbytes > task_list.weight_size:
                raise DiagnosticError(Diagnostic(
                    "error", f"weight '{blob.name}' ({value.nbytes} bytes at offset {blob.offset}) does not fit the "
                             f"weight space of {task_list.weight_size} bytes"))
        self._weight_image: np.ndarray | None = None
        self.task_list = task_list

    @property
    def weights(self) -> np.ndarray:
        """The weight space as bytes (built on first use)."""
        if self._weight_image is None:
            image = np.zeros(self.task_list.weight_size, dtype=np.uint8)
            for offset, value in self._weights.items():
                dst = image[offset:offset + value.nbytes]
                if is_splat_view(value):
                    dst.view(value.dtype)[...] = value.reshape(-1)[0]  # filled, never expanded first
                else:
                    dst[...] = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
            image.flags.writeable = False
            self._weight_image = image
        return self._weight_image

    def view(self, ref: TensorRef) -> np.ndarray:
        """The tensor ``ref`` names, as a view of device memory (no copy; a weight read-only)."""
        dtype = dtype_of(ref.dtype)
        if ref.space == ARENA:
            return self.arena[ref.offset:ref.end].view(dtype).reshape(ref.shape)
        if ref.space == UB:
            return self.unified_buffer[ref.offset:ref.end].view(dtype).reshape(ref.shape)
        value = self._weights.get(ref.offset)
        if value is not None and value.dtype == dtype and value.nbytes == ref.nbytes:
            whole = value.reshape(ref.shape)
            if whole.flags.writeable:
                whole = whole.view()
                whole.flags.writeable = False
            return whole
        return self.weights[ref.offset:ref.end].view(dtype).reshape(ref.shape)

    def write(self, ref: TensorRef, value: np.ndarray, what: str) -> None:
        """Store ``value`` where ``ref`` points, cast to its element type."""
        value = np.asarray(value)
        space = self.unified_buffer if ref.space == UB else self.arena
        dst = space[ref.offset:ref.end].view(dtype_of(ref.dtype))
        if value.size != dst.size:
            raise DiagnosticError(Diagnostic(
                "error", f"{what} produced {value.size} elements of shape {list(value.shape)}, but its output "
                         f"slot holds {list(ref.shape)} ({dst.size} elements)"))
        dst[...] = value.reshape(-1)  # numpy buffers the copy when source and destination overlap

    def load_inputs(self, inputs: Mapping[str, np.ndarray]) -> None:
        """Copy the graph inputs into their bindings (DiagnosticError for a missing or misshapen one)."""
        errors: list[Diagnostic] = []
        names = {b.name for b in self.task_list.inputs}
        for name in inputs:
            if name not in names:
                errors.append(Diagnostic("error", f"'{name}' is not an input of the task list (inputs: "
                                                  f"{', '.join(sorted(names)) or 'none'})"))
        for b in self.task_list.inputs:
            if b.name not in inputs:
                errors.append(Diagnostic("error", f"input '{b.name}' ({list(b.ref.shape)} {b.ref.dtype}) is missing"))
                continue
            value = np.asarray(inputs[b.name])
            if tuple(value.shape) != tuple(b.ref.shape):
                errors.append(Diagnostic("error", f"input '{b.name}' has shape {list(value.shape)}, but its "
                                                  f"binding holds {list(b.ref.shape)}"))
                continue
            self.write(b.ref, value.astype(dtype_of(b.ref.dtype), copy=False), f"input '{b.name}'")
        if errors:
            raise DiagnosticError(errors)

    def read_outputs(self) -> dict[str, np.ndarray]:
        """The graph outputs, copied out of their bindings."""
        return {b.name: self.view(b.ref).copy() for b in self.task_list.outputs}


class NumericExecutor:
    """Runs each kernel's numerics at the simulated moments: inputs read at the
    start, outputs written at the end."""

    def __init__(self, program: Program, memory: DeviceMemory, run_op: RunOp | None = None) -> None:
        self.program = program
        self.memory = memory
        self.pending: dict[int, list[np.ndarray]] = {}
        if run_op is None:
            from geir.backends.kernel_dispatch import run_op as dispatch

            def run_op(op: str, attributes: Mapping[str, Any], inputs: Sequence[np.ndarray | None], n: int,
                       _types: Sequence[str] = ()) -> list[np.ndarray]:
                return dispatch(op, attributes, inputs, n, result_types=list(_types) or None)
            self._typed = True
        else:
            self._typed = False
        self.run_op = run_op

    def start(self, g: int) -> None:
        """Task ``g`` starts: read its inputs and compute its outputs (kept until it ends)."""
        task = self.program.tasks[g]
        memory = self.memory
        if isinstance(task, Memcpy):
            self.pending[g] = [memory.view(task.src)]
            return
        assert isinstance(task, Kernel)
        inputs = [memory.view(r) if r is not None else None for r in task.inputs]
        try:
            if self._typed:
                outputs = self.run_op(task.op, task.attributes, inputs, len(task.outputs),  # type: ignore[call-arg]
                                      [r.dtype for r in task.outputs])
            else:
                outputs = self.run_op(task.op, task.attributes, inputs, len(task.outputs))
        except DiagnosticError:
            raise
        except Exception as e:  # a kernel failing on these inputs is the user's finding, not a traceback
            from geir.backends.kernel_dispatch import KernelError, KernelFailed
            if isinstance(e, KernelError):  # no kernel computes this op: its own words say why
                raise DiagnosticError(Diagnostic("error", f"{self.program.label(g)}: {e}",
                                                 location_from_text(task.loc))) from None
            error = DiagnosticError if isinstance(e, NotImplementedError) else KernelFailed
            raise error(Diagnostic(
                "error", f"{self.program.label(g)}: the kernel failed: {type(e).__name__}: {e}",
                location_from_text(task.loc))) from None
        if len(outputs) < len(task.outputs):
            raise DiagnosticError(Diagnostic(
                "error", f"{self.program.label(g)}: the kernel gave {len(outputs)} results for "
                         f"{len(task.outputs)} outputs"))
        self.pending[g] = list(outputs)

    def finish(self, g: int) -> None:
        """Task ``g`` ends: write its outputs into the arena."""
        values = self.pending.pop(g)
        task = self.program.tasks[g]
        refs = [task.dst] if isinstance(task, Memcpy) else task.outputs  # type: ignore[union-attr]
        for ref, value in zip(refs, values):
            self.memory.write(ref, value, self.program.label(g))

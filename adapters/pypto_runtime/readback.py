"""Reading a kernel's tensors back from the pass-verify interpreter's dumps.

After a call, `<dump dir>/verify_<stamp>/tensor_graph/` holds one raw file per
kernel parameter that was given a golden: `tensor_graph~<param index>~<stamp>.data`
(what the interpreter computed: the parameter's value at the end of the tensor
graph) next to `tensor_graph~<param index>~golden~<stamp>.data` (the golden, unused
here).  The files are the raw little-endian bytes, row-major.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


class ReadbackError(RuntimeError):
    """The interpreter left no usable dump: pypto ran the kernel but computed no value for it."""


def call_dir(dump_dir: Path) -> Path:
    """The one verify folder of the last call (the workspace empties dump_dir before each call)."""
    found = sorted(Path(dump_dir).glob("verify_*"))
    if not found:
        raise ReadbackError("pypto's interpreter wrote no dump for this call")
    return found[-1]


def read_params(dump_dir: Path, wanted: dict) -> dict:
    """wanted: {param index: an array of the parameter's shape and dtype} -> {param index: the array
    the interpreter computed}."""
    graph = call_dir(dump_dir) / "tensor_graph"
    files = {}
    for f in graph.glob("tensor_graph~*.data"):
        parts = f.name.split("~")
        if len(parts) >= 3 and parts[2] != "golden" and parts[1].isdigit():
            files[int(parts[1])] = f
    out = {}
    for idx, like in wanted.items():
        shape, dtype = like.shape, like.dtype
        if idx not in files and like.size == 0:
            # the interpreter dumps nothing for a tensor with no elements; an array of that shape has
            # exactly one value, so the call's success is the whole answer
            out[idx] = like.copy()
            continue
        if idx not in files:
            raise ReadbackError(f"pypto's interpreter dumped no value for kernel parameter {idx}"
                                f"{diagnostics(dump_dir)}")
        raw = files[idx].read_bytes()
        dt = np.dtype(dtype).newbyteorder("<")
        need = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        if len(raw) != need:
            raise ReadbackError(f"dump of kernel parameter {idx} has {len(raw)} bytes; "
                                f"{np.dtype(dtype)}{list(shape)} needs {need}")
        out[idx] = np.frombuffer(raw, dtype=dt).astype(np.dtype(dtype)).reshape(shape).copy()
    return out


def diagnostics(dump_dir: Path) -> str:
    """The interpreter's own account (verify_exception.log), for an error message."""
    try:
        log = call_dir(dump_dir) / "verify_exception.log"
        text = log.read_text(errors="replace").strip() if log.is_file() else ""
    except ReadbackError:
        return ""
    return f"; interpreter log: {text[:1000]}" if text else ""

"""mindspore Tensor.set_ (seed mindspore.Tensor.set_.txt) over the storage model of CLAUSES.md.

A tensor is (storage, offset, size, stride); element t[i] is storage[offset + sum(i_j * stride_j)].
The oracle's result is a NumPy view into the very storage array, so aliasing (ST-ALIAS) is real.

Readings the document leaves to the oracle:
- the legal signatures are the five the page lists, so `set_(src, storage_offset=3)` without a size
  matches none: ST-E-TYPE (TypeError, "argument count"); size=None / stride=None are the prototype's
  defaults and count as not passed; an explicit storage_offset=0 without size is open
  (ST-GAP-DEFAULT-ARG: the signature list excludes it, the prototype's default admits it);
- storage_offset is absolute in the storage (the source tensor's own offset does not add to it);
- an empty view addresses no storage, so it is never out of bounds;
- `set_()` leaves self empty of shape (0,); with no source, `source_after_fill` is an empty array.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .errors import Open, SpecError
from contract.dtypes import cast
from contract.expectation import EXACT, ExpectedArray

MAX_DIMS = 8        # ST-E-MAXDIM


@dataclass(frozen=True)
class Storage:
    """A typed 1-D storage (`set_(source: Storage)`): `data` is the memory itself, not a copy."""
    data: np.ndarray


@dataclass(frozen=True)
class View:
    offset: int
    size: tuple
    stride: tuple


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def contiguous_strides(size):
    """ST-STRIDE-DEFAULT: row-major strides for size."""
    out, acc = [], 1
    for n in reversed(size):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def is_contiguous(view: View) -> bool:
    if 0 in view.size:
        return True
    expect = 1
    for n, s in zip(reversed(view.size), reversed(view.stride)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def needed(view: View) -> int:
    """Storage elements the view addresses (0 for an empty view: it reads nothing)."""
    if 0 in view.size:
        return 0
    return view.offset + sum((n - 1) * s for n, s in zip(view.size, view.stride)) + 1


def materialise(storage: np.ndarray, view: View) -> np.ndarray:
    """The view as a writeable NumPy array sharing memory with `storage`."""
    item = storage.itemsize
    if needed(view) == 0:
        return np.empty(view.size, storage.dtype)
    return as_strided(storage[view.offset:], shape=view.size, strides=[s * item for s in view.stride],
                      writeable=True)


def storage_of(a: np.ndarray):
    """(1-D storage array, View) of a NumPy array: the root buffer it views, and where it sits in it."""
    root, cur = a, a
    while getattr(cur, "base", None) is not None:      # as_strided puts a non-array wrapper in the chain
        cur = cur.base
        if isinstance(cur, np.ndarray):
            root = cur
    item = a.itemsize
    if root is not a and root.flags.c_contiguous and root.dtype == a.dtype:
        flat = root.reshape(-1)
        offset = (a.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // item
        return flat, View(int(offset), tuple(a.shape), tuple(s // item for s in a.strides))
    if a.flags.c_contiguous:
        return a.reshape(-1), View(0, tuple(a.shape), contiguous_strides(a.shape))
    raise ValueError("cannot locate the storage of this array: pass a view of a contiguous buffer or a Storage")


def apply(target, kind, storage, src_view, args, other_device=False):
    """Run set_ on the model. `args` holds the keyword arguments actually passed; `other_device`: the
    source lives on another device than self.

    Returns (self as a view into `storage`, the source as the user sees it, clauses); raises SpecError /
    Unspecified."""
    clauses = ["ST-ALIAS"]
    # size=None / stride=None are the prototype's defaults: passing them is not passing them
    args = {k: v for k, v in args.items() if not (k in ("size", "stride") and v is None)}
    _check_types(kind, args, clauses)
    if other_device and kind != "none":     # ST-E-DEVICE
        raise SpecError("ST-E-DEVICE", "RuntimeError", "self and the source are on different devices", clauses)
    if kind == "none":
        return np.empty((0,), target.dtype), np.empty((0,), target.dtype), ("ST-EMPTY",)
    source_seen = storage if kind == "storage" else materialise(storage, src_view)
    if "size" not in args:
        clauses.append("ST-STORAGE" if kind == "storage" else "ST-TENSOR")
        view = View(0, (storage.size,), (1,)) if kind == "storage" else src_view
        if storage.dtype != target.dtype:   # ST-E-DTYPE
            raise SpecError("ST-E-DTYPE", "RuntimeError", f"self is {target.dtype}, the source {storage.dtype}",
                            clauses)
        return materialise(storage, view), source_seen, tuple(clauses)
    clauses.append("ST-STORAGE-VIEW" if kind == "storage" else "ST-TENSOR-VIEW")
    offset = args.get("storage_offset", 0)
    size = tuple(int(n) for n in args["size"])
    stride = args.get("stride")
    if stride is None:
        clauses.append("ST-STRIDE-DEFAULT")
        stride = contiguous_strides(size)
    stride = tuple(int(s) for s in stride)
    _check_view(target, kind, storage, src_view, offset, size, stride, clauses)
    view = View(int(offset), size, stride)
    op = Open()
    if storage.dtype != target.dtype:
        if kind == "storage":   # ST-E-DTYPE: a Storage of another dtype
            raise SpecError("ST-E-DTYPE", "RuntimeError", f"self is {target.dtype}, the Storage {storage.dtype}",
                            clauses)
        op.note("ST-GAP-DTYPE-VIEW", f"set_(tensor, offset, size, stride) with self {target.dtype}, source "
                                     f"{storage.dtype}")
    if needed(view) > storage.size:
        if size == target.shape:    # ST-E-BOUNDS
            raise SpecError("ST-E-BOUNDS", "RuntimeError", f"the view needs {needed(view)} elements, the storage "
                            f"has {storage.size}", clauses)
        op.note("ST-GAP-BOUNDS", f"the view needs {needed(view)} elements, the storage has {storage.size}, "
                                 f"and size {list(size)} differs from self's {list(target.shape)}")
    op.raise_if_any({}, clauses)
    return materialise(storage, view), source_seen, tuple(clauses)


def _check_types(kind, args, clauses):
    def bad(msg):
        raise SpecError("ST-E-TYPE", "TypeError", msg, clauses)
    op = Open()
    if kind == "none" and args:
        bad(f"set_() with {', '.join(sorted(args))} but no source")
    if "size" not in args and (args.get("storage_offset", 0) != 0 or args.get("stride") is not None):
        bad("storage_offset/stride without size: no documented signature takes them")
    if "size" not in args and "storage_offset" in args:
        # The page's list of legal signatures has no set_(source, storage_offset) (ST-E-TYPE would reject
        # it), yet its prototype gives storage_offset the default 0, so passing 0 may mean "not passed".
        op.note("ST-GAP-DEFAULT-ARG", "storage_offset=0 passed without size: the signature list excludes "
                                      "it, the prototype's default admits it")
    off = args.get("storage_offset", 0)
    if isinstance(off, (bool, np.bool_)):
        op.note("ST-GAP-BOOLINT", f"storage_offset={off!r}")
    elif not _is_int(off):
        bad(f"storage_offset={off!r} is not an int")
    for name in ("size", "stride"):
        v = args.get(name)
        if v is None:
            continue
        if not isinstance(v, (list, tuple)):
            bad(f"{name}={v!r} is not a tuple or list")
        for e in v:
            if isinstance(e, (bool, np.bool_)):
                op.note("ST-GAP-BOOLINT", f"{name} holds {e!r}")
            elif not _is_int(e):
                bad(f"{name}={v!r} holds {e!r}, not an int")
    op.raise_if_any({}, clauses)


def _check_view(target, kind, storage, src_view, offset, size, stride, clauses):
    def err(clause, msg):
        raise SpecError(clause, "RuntimeError", msg, clauses)
    if offset < 0:
        err("ST-E-OFFSET", f"storage_offset={offset} < 0")
    if any(n < 0 for n in size):
        err("ST-E-NEGSIZE", f"size {list(size)} has a negative entry")
    if any(s < 0 for s in stride):
        err("ST-E-NEGSTRIDE", f"stride {list(stride)} has a negative entry")
    if len(size) != len(stride):
        err("ST-E-RANK", f"size has {len(size)} entries, stride {len(stride)}")
    if len(size) > MAX_DIMS:
        err("ST-E-MAXDIM", f"{len(size)} dims, more than {MAX_DIMS}")
    if kind == "tensor" and not is_contiguous(src_view):
        err("ST-E-NONCONTIG", f"the source tensor (size {list(src_view.size)}, stride {list(src_view.stride)}) "
                              "is not contiguous")


def solve(target, kind, storage, src_view, args, probe=None, other_device=False):
    """({"self", "source_after_fill"}: ExpectedArray, clauses) for a case (works on a copy of `storage`)."""
    storage = None if storage is None else np.array(storage, copy=True)
    self_, source_seen, clauses = apply(np.asarray(target), kind, storage, src_view, args, other_device)
    before = np.array(self_, copy=True)
    if probe is not None and self_.size:
        with np.errstate(all="ignore"):
            # ST-ALIAS: the fill shows through the source.  From an array, not a Python scalar: NumPy 2
            # refuses an out-of-range Python int even under casting="unsafe"; an array wraps on both majors.
            np.copyto(self_, cast(np.asarray(probe), self_.dtype))
    return ({"self": ExpectedArray(before, EXACT), "source_after_fill": ExpectedArray(np.array(source_seen))},
            clauses)


def set_(target, source=None, storage_offset=0, size=None, stride=None, *, source_device="same"):
    """mindspore `target.set_(source, storage_offset, size, stride)`.

    `source`: a NumPy array (a Tensor: its storage is the root buffer it views) or a Storage. Returns a
    NumPy view sharing memory with the source's storage (ST-ALIAS). Raises SpecError / Unspecified.
    Arguments equal to the prototype's defaults count as not passed. `source_device="other"`: the source
    lives on another device than self (ST-E-DEVICE)."""
    other = source_device != "same"
    target = np.asarray(target)
    args = {k: v for k, v in (("size", size), ("stride", stride)) if v is not None}
    if not (isinstance(storage_offset, int) and not isinstance(storage_offset, bool) and storage_offset == 0):
        args["storage_offset"] = storage_offset
    if source is None:
        return apply(target, "none", None, None, args)[0]
    if isinstance(source, Storage):
        return apply(target, "storage", source.data.reshape(-1), None, args, other)[0]
    storage, view = storage_of(np.asarray(source))
    return apply(target, "tensor", storage, view, args, other)[0]

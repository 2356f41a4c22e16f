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

from typing import Optional

from contract.dtypes import cast, is_float, is_number, to_dtype
from .errors import Either, Open, SpecError, accepting
from .readings.set_ import READING
from contract.expectation import CHOICES, EXACT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, malformed, need_input

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


def apply(target, kind, storage, src_view, args, other_device=False, accept=None):
    """Run set_ on the model. `args` holds the keyword arguments actually passed; `other_device`: the
    source lives on another device than self; `accept`: an Open that collects the inputs whose acceptance
    the documents leave open (the value stays the documents'); None takes the reading that accepts them.

    Returns (self as a view into `storage`, the source as the user sees it, clauses); raises SpecError /
    Unspecified."""
    clauses = ["ST-ALIAS"]
    # size=None / stride=None are the prototype's defaults: passing them is not passing them
    args = {k: v for k, v in args.items() if not (k in ("size", "stride") and v is None)}
    # every documented error whose condition holds is collected, then composed with the open acceptances
    # (errors.Open): none masks another, whatever order they are checked in
    op = Open()
    acceptance = accept if accept is not None else Open()

    def settle():
        if op.errors:
            op.items.extend(it for it in acceptance.items if it[2] is not None)
            op.raise_if_any(clauses=clauses)
    defaults_open = _check_types(kind, args, op, acceptance)
    if other_device and kind != "none":     # ST-E-DEVICE
        op.error("ST-E-DEVICE", "RuntimeError", "self and the source are on different devices")
    if kind != "none" and storage.dtype != target.dtype and kind == "storage":     # ST-E-DTYPE
        op.error("ST-E-DTYPE", "RuntimeError", f"self is {target.dtype}, the Storage {storage.dtype}")
    typed = not any(c == "ST-E-TYPE" for c, _, _ in op.errors)
    if kind != "none" and "size" not in args:
        clauses.append("ST-STORAGE" if kind == "storage" else "ST-TENSOR")
    if typed and "size" in args and kind != "none":
        clauses.append("ST-STORAGE-VIEW" if kind == "storage" else "ST-TENSOR-VIEW")
        if "stride" not in args:
            clauses.append("ST-STRIDE-DEFAULT")
        _check_view(kind, src_view, *_view_args(args), op)
    settle()
    if defaults_open:
        if accept is None:
            raise SpecError("ST-E-TYPE", "TypeError", "storage_offset/stride without size: no documented "
                            "signature takes them", clauses)
        # set_.conflict.4: the closed signature list refuses it (TypeError); the prototype admits it
        # (size defaults to None) but states no view, so the value of that reading is open
        raise Either("ST-E-TYPE", "storage_offset/stride without size: no listed signature (TypeError), or the "
                     "prototype's defaults, whose view is not stated", {}, "TypeError",
                     (*clauses, "ST-GAP-DEFAULT-ARG"))
    if kind == "none":
        return np.empty((0,), target.dtype), np.empty((0,), target.dtype), ("ST-EMPTY",)
    source_seen = storage if kind == "storage" else materialise(storage, src_view)
    if "size" not in args:
        view = View(0, (storage.size,), (1,)) if kind == "storage" else src_view
        if storage.dtype != target.dtype and accept is not None:
            # ST-GAP-EXAMPLE: the Raises list (ST-E-DTYPE) says RuntimeError, the only example (ST-EX-1) shows
            # a target of another dtype taking the source's storage and values: both readings conform
            accept.note_accept("ST-GAP-EXAMPLE", f"set_(tensor) with self {target.dtype}, the source "
                                                 f"{storage.dtype}: RuntimeError (ST-E-DTYPE), or self shares the "
                                                 "source's storage and shows its values (ST-EX-1)", "RuntimeError")
            clauses += ["ST-E-DTYPE", "ST-EX-1"]
        return materialise(storage, view), source_seen, tuple(clauses)
    offset, size, stride = _view_args(args)
    view = View(int(offset), size, stride)
    if storage.dtype != target.dtype:
        op.note("ST-GAP-DTYPE-VIEW", f"set_(tensor, offset, size, stride) with self {target.dtype}, source "
                                     f"{storage.dtype}")
    if needed(view) > storage.size:
        if size == target.shape:    # ST-E-BOUNDS
            op.error("ST-E-BOUNDS", "RuntimeError", f"the view needs {needed(view)} elements, the storage "
                                                    f"has {storage.size}")
        else:
            op.note("ST-GAP-BOUNDS", f"the view needs {needed(view)} elements, the storage has {storage.size}, "
                                     f"and size {list(size)} differs from self's {list(target.shape)}")
    settle()
    op.raise_if_any({}, clauses)
    return materialise(storage, view), source_seen, tuple(clauses)


def _view_args(args):
    """(storage_offset, size, stride) as ints, stride contiguous where not passed."""
    size = tuple(int(n) for n in args["size"])
    stride = args.get("stride")
    stride = contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
    return int(args.get("storage_offset", 0)), size, stride


def _check_types(kind, args, op, accept):
    """ST-E-TYPE's TypeErrors (recorded on `op`); the argument forms whose acceptance the page leaves open
    are noted on `accept` ("raises TypeError, or returns what the accepting reading gives").  Returns whether
    storage_offset/stride came without size (set_.conflict.4, answered by the caller)."""
    def bad(msg):
        op.error("ST-E-TYPE", "TypeError", msg)
    note = accept.note_accept
    if kind == "none" and args:
        bad(f"set_() with {', '.join(sorted(args))} but no source")
    defaults_open = "size" not in args and (args.get("storage_offset", 0) != 0 or args.get("stride") is not None)
    if defaults_open:
        note("ST-E-TYPE", "storage_offset/stride without size: no listed signature", "TypeError")
    elif "size" not in args and "storage_offset" in args:
        # set_.conflict.2: the page's list of legal signatures has no set_(source, storage_offset) (ST-E-TYPE),
        # yet its prototype gives storage_offset the default 0, so passing 0 may be passing the default
        note("ST-GAP-DEFAULT-ARG", "storage_offset=0 passed without size: the signature list excludes it "
                                   "(TypeError), the prototype's default admits it", "TypeError")
    if "size" in args and ("storage_offset" not in args or "stride" not in args):
        # set_.conflict.3: the view signatures list storage_offset, size and stride together; the prototype
        # defaults storage_offset to 0 and the Args make stride optional (contiguous)
        note("ST-GAP-DEFAULT-ARG", f"size without {' and '.join(k for k in ('storage_offset', 'stride') if k not in args)}"
                                   ": no listed signature (TypeError), or the prototype's defaults", "TypeError")
    off = args.get("storage_offset", 0)
    if isinstance(off, (bool, np.bool_)):
        # a Python bool is an int: refused as the wrong type, or taken as 0/1
        note("ST-GAP-BOOLINT", f"storage_offset={off!r}", "TypeError")
    elif not _is_int(off):
        bad(f"storage_offset={off!r} is not an int")
    for name in ("size", "stride"):
        v = args.get(name)
        if v is None:
            continue
        if not isinstance(v, (list, tuple)):
            bad(f"{name}={v!r} is not a tuple or list")
            continue
        for e in v:
            if isinstance(e, (bool, np.bool_)):
                note("ST-GAP-BOOLINT", f"{name} holds {e!r}", "TypeError")
            elif not _is_int(e):
                bad(f"{name}={v!r} holds {e!r}, not an int")
    return defaults_open


def _check_view(kind, src_view, offset, size, stride, op):
    def err(clause, msg):
        op.error(clause, "RuntimeError", msg)
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


def fill_value(dtype, probe):
    """The probe as self's dtype holds it: into a float dtype it rounds to nearest, ties to even, once
    (NumPy's own bfloat16 cast goes through float32 and can round twice); otherwise NumPy's cast of it as an
    array (an int out of the dtype's range wraps on NumPy 1 and 2 alike; NumPy 2 refuses the Python int)."""
    return to_dtype(dtype, probe) if is_float(dtype) and is_number(probe) else cast(np.asarray(probe), dtype)


def solve(target, kind, storage, src_view, args, probe=None, other_device=False):
    """({"self", "source_after_fill"}: ExpectedArray, clauses) for a case (works on a copy of `storage`)."""
    storage = None if storage is None else np.array(storage, copy=True)
    accept = Open()
    try:
        self_, source_seen, clauses = apply(np.asarray(target), kind, storage, src_view, args, other_device,
                                            accept)
    except SpecError as e:
        # a documented error after an argument form one reading refuses: refusing it raises that reading's
        # class (TypeError) instead, so both classes conform
        if e.classes and accept:
            more = accept.accepted_classes
            e.classes = tuple(dict.fromkeys((*e.classes, *more))) if more else ()
            e.clauses = tuple(dict.fromkeys((*e.clauses, *accept.clauses)))
        raise
    before = np.array(self_, copy=True)
    strided = probe is not None and self_.size > 1 and not self_.flags.c_contiguous
    unfilled = np.array(source_seen, copy=True) if strided else None
    if probe is not None and self_.size:
        with np.errstate(all="ignore"):
            np.copyto(self_, fill_value(self_.dtype, probe), casting="unsafe")  # ST-ALIAS: shows through the source
    # a Storage source is seen whole: it is this call's own copy already, so it needs no second one
    after = source_seen if source_seen is storage else np.array(source_seen)
    seen = ExpectedArray(after)
    if strided and not np.array_equal(after, unfilled, equal_nan=True):
        # set_.conflict.5 (ST-GAP-CPU-WRITE): on CPU, writes through a non-contiguous view may not take effect
        seen = ExpectedArray(after, CHOICES, choices=np.stack([after, unfilled]))
        clauses = (*clauses, "ST-GAP-CPU-WRITE")
    outputs = {"self": ExpectedArray(before, EXACT), "source_after_fill": seen}
    accept.raise_if_any(outputs, clauses)
    return outputs, clauses


# ---- the documented domain (oracle/boundary.py; docs/CASES.md, "Domain coverage") -----------------
# (imported here so the domain stays one block of this module)
from contract.dtypes import FLOATS, INTS  # noqa: E402

from . import boundary as bd  # noqa: E402


def _d_kind(case):
    return case.params.get("source_kind")


def _d_size(case):
    s = case.params.get("size")
    return list(s) if isinstance(s, (list, tuple)) and all(bd.is_int(n) for n in s) else None


def _d_stride(case):
    """The stride as passed (a list of ints), or None."""
    s = case.params.get("stride")
    return list(s) if isinstance(s, (list, tuple)) and all(bd.is_int(n) for n in s) else None


def _d_src_view(case):
    v = case.params.get("source_view")
    return View(v["offset"], tuple(v["size"]), tuple(v["stride"])) if isinstance(v, dict) else None


def _d_view(case):
    """The View the call asks for (size given, ints everywhere, offset >= 0), or None."""
    size, off = _d_size(case), case.params.get("storage_offset", 0)
    stride = _d_stride(case) if case.params.get("stride") is not None else (
        None if size is None else list(contiguous_strides(size)))
    if size is None or stride is None or len(size) != len(stride) or not bd.is_int(off) or off < 0:
        return None
    if any(n < 0 for n in size) or any(s < 0 for s in stride):
        return None
    return View(off, tuple(size), tuple(stride))


def _d_fit(case, extra):
    """A non-empty view that needs exactly the source's storage size + extra elements."""
    v, src = _d_view(case), case.inputs.get("source")
    return v is not None and src is not None and needed(v) > 0 and needed(v) == np.size(src) + extra


def _d_size_is(test):
    return lambda c: _d_size(c) is not None and test(_d_size(c))


def _d_probe_into(case):
    """(self's dtype, probe): the fill through self after the call, when self is not empty."""
    p = case.params.get("probe")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or _d_kind(case) == "none":
        return ()
    v = _d_view(case)
    src = case.inputs.get("source")
    empty = (v is not None and 0 in v.size) or (v is None and (src is None or np.size(src) == 0))
    return () if empty else ((bd.dtype(case, "target"), p),)


_B = bd.Boundary
DOMAIN = [
    _B("source", "omitted", "form", "set_(): no source (ST-EMPTY)", lambda c: _d_kind(c) == "none"),
    _B("source", "Storage", "form", "a Storage source", lambda c: _d_kind(c) == "storage"),
    _B("source", "Tensor, whole storage", "form", "a contiguous Tensor over all of its storage",
       lambda c: _d_kind(c) == "tensor" and "source_view" not in c.params),
    _B("source", "Tensor view, offset > 0", "form", "a Tensor that is a view at a non-zero offset of its storage",
       lambda c: _d_kind(c) == "tensor" and _d_src_view(c) is not None and _d_src_view(c).offset > 0
       and is_contiguous(_d_src_view(c))),
    _B("source", "Tensor view, non-contiguous", "form", "a Tensor that is a non-contiguous view "
       "(with size: ST-E-NONCONTIG)", lambda c: _d_kind(c) == "tensor" and _d_src_view(c) is not None
       and not is_contiguous(_d_src_view(c))),
    _B("source", "Tensor view, non-contiguous, no size", "form", "set_(t) with t a non-contiguous view: self "
       "takes its strides", lambda c: _d_kind(c) == "tensor" and _d_src_view(c) is not None
       and not is_contiguous(_d_src_view(c)) and "size" not in c.params),
    _B("source", "another device", "form", "a source on another device (ST-E-DEVICE)",
       lambda c: c.params.get("source_device") == "other"),
    _B("source", "another dtype", "form", "a source whose dtype is not self's (ST-E-DTYPE)",
       lambda c: "source" in c.inputs and bd.dtype(c, "source") != bd.dtype(c, "target")),
    _B("source", "storage of 0", "range", "an empty storage", lambda c: bd.shape(c, "source") == (0,)),
    _B("source", "storage of 1", "range", "a storage of one element", lambda c: bd.shape(c, "source") == (1,)),
    _B("source", "storage of 2", "range", "a storage of two elements", lambda c: bd.shape(c, "source") == (2,)),
    _B("storage_offset", "omitted", "form", "size given, storage_offset not passed",
       lambda c: "size" in c.params and "storage_offset" not in c.params),
    _B("storage_offset", "0", "default", "storage_offset=0 written out with a size (the default)",
       lambda c: "size" in c.params and c.params.get("storage_offset", None) == 0
       and bd.is_int(c.params["storage_offset"])),
    _B("storage_offset", "0 without size", "default", "set_(source, storage_offset=0): the default, no size "
       "(ST-GAP-DEFAULT-ARG)", lambda c: "size" not in c.params and c.params.get("storage_offset", None) == 0),
    _B("storage_offset", "1", "range", "storage_offset 1", lambda c: c.params.get("storage_offset") == 1
       and bd.is_int(c.params["storage_offset"])),
    _B("storage_offset", "last legal", "range", "the view ends on the storage's last element (an exact fit)",
       lambda c: _d_fit(c, 0)),
    _B("storage_offset", "one past", "range", "the view needs one element more than the storage "
       "(ST-E-BOUNDS or ST-GAP-BOUNDS)", lambda c: _d_fit(c, 1)),
    _B("storage_offset", "-1", "range", "storage_offset -1 (ST-E-OFFSET)",
       lambda c: c.params.get("storage_offset") == -1),
    _B("size", "rank 0", "range", "size [] (a 0-d view)", _d_size_is(lambda s: len(s) == 0)),
    _B("size", "rank 1", "range", "a 1-entry size", _d_size_is(lambda s: len(s) == 1)),
    _B("size", "rank 8", "range", "8 entries (the documented maximum)", _d_size_is(lambda s: len(s) == 8)),
    _B("size", "rank 9", "range", "9 entries (one past: ST-E-MAXDIM)", _d_size_is(lambda s: len(s) == 9)),
    _B("size", "side 0", "range", "a size entry 0 (an empty view)", _d_size_is(lambda s: 0 in s)),
    _B("size", "side 1", "range", "a size entry 1", _d_size_is(lambda s: 1 in s)),
    _B("size", "side 2", "range", "a size entry 2", _d_size_is(lambda s: 2 in s)),
    _B("size", "side -1", "range", "a size entry -1 (ST-E-NEGSIZE)", _d_size_is(lambda s: -1 in s)),
    _B("size", "self's size", "range", "size equal to self's shape (the condition of ST-E-BOUNDS)",
       lambda c: _d_size(c) is not None and tuple(_d_size(c)) == bd.shape(c, "target")),
    _B("size", "not a list", "form", "size of another type (ST-E-TYPE)", lambda c: "size" in c.params
       and c.params["size"] is not None and not isinstance(c.params["size"], (list, tuple))),
    _B("stride", "omitted", "form", "size given, stride not passed: row-major (ST-STRIDE-DEFAULT)",
       lambda c: "size" in c.params and "stride" not in c.params),
    _B("stride", "None", "default", "stride=None written out (the default)",
       lambda c: "size" in c.params and "stride" in c.params and c.params["stride"] is None),
    _B("stride", "contiguous written out", "default", "the row-major strides of size passed explicitly "
       "(must act as the omitted stride)", lambda c: _d_size(c) is not None and _d_stride(c) is not None
       and len(_d_size(c)) > 1 and tuple(_d_stride(c)) == contiguous_strides(_d_size(c))),
    _B("stride", "zero", "range", "a stride entry 0 (a broadcast view)", lambda c: 0 in (_d_stride(c) or ())),
    _B("stride", "non-contiguous", "form", "strides other than row-major (gaps or a transposition)",
       lambda c: _d_view(c) is not None and "stride" in c.params and not is_contiguous(_d_view(c))),
    _B("stride", "side -1", "range", "a stride entry -1 (ST-E-NEGSTRIDE)", lambda c: -1 in (_d_stride(c) or ())),
    _B("stride", "length differs", "range", "len(stride) != len(size) (ST-E-RANK)",
       lambda c: _d_size(c) is not None and _d_stride(c) is not None and len(_d_size(c)) != len(_d_stride(c))),
    *bd.rounding_rows("probe (fill_)", ("float16", "bfloat16", "float32"), _d_probe_into,
                      "the fill value written through self after set_"),
    *bd.edge_rows("source", ("source",), FLOATS + INTS, " (seen through self bit for bit)"),
]


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


# ---- the op's declaration: document, clauses, case contract, decoder (docs/SPEC.md) --------------

SOURCE_KINDS = ("none", "storage", "tensor")
VIEW_ARGS = ("storage_offset", "size", "stride")


@dataclass(frozen=True)
class SetCall:
    """`target.set_(source, storage_offset, size, stride)` with the suite's probe of the aliasing."""
    target: object
    kind: str                   # none (set_()) | storage (a Storage over `source`) | tensor
    source: object              # inputs.source, the 1-D storage; None for kind none
    view: Optional[View]        # kind tensor: the source tensor over that storage; None: all of it, 1-D
    kwargs: dict                # the view arguments passed, exactly as given (ST-E-TYPE cases hold wrong types)
    probe: object = None        # written through self after the call (ST-ALIAS); None: no probe
    device: Optional[str] = None    # params.source_device as given: "other" puts the source on another
    #                                 device than self (ST-E-DEVICE); None or "same": self's

    @property
    def other_device(self) -> bool:
        return self.device == "other"


def decode(case, inputs=None) -> SetCall:
    target = need_input(case, "target", inputs)
    kind = case.params.get("source_kind", "none")
    if kind not in SOURCE_KINDS:
        raise malformed(case, f"source_kind {kind!r}")
    source = None if kind == "none" else need_input(case, "source", inputs)
    view = _source_view(case) if kind == "tensor" else None
    probe = case.params.get("probe")
    if probe is not None and not isinstance(probe, (int, float)):
        raise malformed(case, f"probe {probe!r} is not a number")
    device = case.params.get("source_device")
    if "source_device" in case.params and device not in ("same", "other"):
        raise malformed(case, f"source_device {device!r} (same or other)")
    kwargs = {k: case.params[k] for k in VIEW_ARGS if k in case.params}
    return SetCall(target, kind, source, view, kwargs, probe, device)


def _source_view(case) -> Optional[View]:
    sv = case.params.get("source_view")
    if not sv:
        return None
    try:
        view = View(int(sv["offset"]), tuple(int(n) for n in sv["size"]), tuple(int(s) for s in sv["stride"]))
    except (KeyError, TypeError, ValueError) as e:
        raise malformed(case, f"source_view {sv!r}") from e
    storage = need_input(case, "source").size
    if (view.offset < 0 or len(view.size) != len(view.stride) or min(view.size + view.stride, default=0) < 0
            or needed(view) > storage):
        raise malformed(case, f"source_view {sv!r} is not a tensor over a storage of {storage}")
    return view


def solve_case(case):
    a = decode(case)
    storage = None if a.kind == "none" else np.asarray(a.source).reshape(-1)
    view = a.view or (View(0, (storage.size,), (1,)) if a.kind == "tensor" else None)
    return solve(a.target, a.kind, storage, view, a.kwargs, a.probe, other_device=a.other_device)


@accepting()        # the oracle as a candidate returns the accepting reading of an either answer
def call(case) -> dict:
    a = decode(case)
    storage = None if a.source is None else np.array(a.source, copy=True)
    source = None
    if a.kind == "storage":
        source = Storage(storage)
    elif a.kind == "tensor":
        source = storage if a.view is None else as_strided(      # a view of the storage, even when empty
            storage[a.view.offset:], shape=a.view.size, strides=[n * storage.itemsize for n in a.view.stride],
            writeable=True)
    kw = dict(a.kwargs, **({} if a.device is None else {"source_device": a.device}))
    result = set_(np.array(a.target, copy=True), source, **kw)
    outs = {"self": np.array(result, copy=True)}
    if a.probe is not None and source is not None and result.size:
        np.copyto(result, fill_value(result.dtype, a.probe), casting="unsafe")     # write through self (ST-ALIAS)
    if source is not None:
        seen = storage if a.kind == "storage" else source  # a Storage is seen as its whole 1-D memory
        outs["source_after_fill"] = np.array(seen, copy=True)
    return outs


def repro(case, literal) -> tuple:
    a = decode(case)
    call, src = [], ""
    if a.kind == "storage":
        call.append("src = oracle.Storage(source)")
        src = "src"
    elif a.kind == "tensor":
        src = "source"
        if a.view is not None:
            v = a.view
            call.append(f"view = np.lib.stride_tricks.as_strided(source[{v.offset}:], shape={v.size!r}, "
                        f"strides=tuple(s * source.itemsize for s in {v.stride!r}), writeable=True)")
            src = "view"
    kw = [f"{k}={literal(v)}" for k, v in a.kwargs.items()]
    kw += [] if a.device is None else [f"source_device={literal(a.device)}"]
    call.append(f"result = oracle.set_(target, {', '.join([src] * bool(src) + kw)})")
    after = ["self_ = np.array(result, copy=True)"]
    outputs = {"self": "self_"}
    if src:
        if a.probe is not None:
            after.append(f"np.copyto(result, {literal(a.probe)}, casting='unsafe') if result.size else None"
                         "   # a write through self (ST-ALIAS)")
        seen = "source" if a.kind == "storage" else src      # a Storage is seen as its whole 1-D memory
        after.append(f"source_after_fill = np.array({seen}, copy=True)")
        outputs["source_after_fill"] = "source_after_fill"
    return call, after, outputs

def generic_call(case, api, literal, array) -> list:
    """`self_ = api(target, source, keywords...)`: the source absent for set_() (adapters/repro.generic_repro)."""
    a = decode(case)
    kw = "".join(f", {k}={literal(v)}" for k, v in a.kwargs.items())
    arg = ("source" + kw) if a.kind != "none" else kw[2:]
    return [f"self_ = {api}({', '.join(x for x in ('target', arg) if x)})"]


_SIGS = "Legal call signatures"
_RAISES = "Raises"
SPEC = OpSpec(
    reading=READING,
    name="set_", source="mindspore.Tensor.set_.txt", title="mindspore Tensor.set_",
    clause_rows=(
        ("ST-EMPTY", "sem", f"{_SIGS}: set_()", "set_() makes self an empty tensor"),
        ("ST-STORAGE", "sem", f"{_SIGS}: set_(source: Storage)", "set_(storage) makes self use that storage"),
        ("ST-STORAGE-VIEW", "sem", f"{_SIGS}: set_(source: Storage, storage_offset, size, stride)",
         "set_(storage, offset, size, stride) also sets offset, size and stride"),
        ("ST-TENSOR", "sem", f"Description; {_SIGS}: set_(source: Tensor)",
         "set_(tensor) shares the tensor's storage with its offset, size and stride"),
        ("ST-TENSOR-VIEW", "sem", f"{_SIGS}: set_(source: Tensor, storage_offset, size, stride)",
         "set_(tensor, offset, size, stride) shares storage with the given view"),
        ("ST-STRIDE-DEFAULT", "sem", "Args: stride", "stride None means row-major contiguous strides for size"),
        ("ST-ALIAS", "sem", "Description", "after set_, a write through either tensor is visible through the other"),
        ("ST-E-TYPE", "err", _RAISES, "wrong argument types or count: TypeError"),
        ("ST-E-BOUNDS", "err", _RAISES, "size equal to self's current size and the view needs storage beyond the "
                                        "source's: RuntimeError"),
        ("ST-GAP-BOUNDS", "gap", _RAISES, "a view beyond the source's storage with a size different from self's is "
                                          "not covered"),
        ("ST-E-OFFSET", "err", _RAISES, "storage_offset < 0: RuntimeError"),
        ("ST-E-NEGSIZE", "err", _RAISES, "a negative size entry: RuntimeError"),
        ("ST-E-NEGSTRIDE", "err", _RAISES, "a negative stride entry: RuntimeError"),
        ("ST-E-RANK", "err", _RAISES, "len(size) != len(stride): RuntimeError"),
        ("ST-E-MAXDIM", "err", _RAISES, "more than 8 dims: RuntimeError"),
        ("ST-E-NONCONTIG", "err", _RAISES, "a non-contiguous source tensor together with size/stride: RuntimeError"),
        ("ST-E-DTYPE", "err", _RAISES, "set_(tensor) alone with a different dtype, or a Storage of another dtype: "
                                       "RuntimeError"),
        ("ST-E-DEVICE", "err", _RAISES, "source on another device: RuntimeError"),
        ("ST-EX-1", "ex", "Examples", "the float64-target / float32-source example printing [10, 20, 30]"),
        ("ST-GAP-EXAMPLE", "gap", f"Examples against {_RAISES}", "ST-EX-1 contradicts ST-E-DTYPE (the example's "
                                                                 "dtypes differ): raising RuntimeError and "
                                                                 "sharing the source's storage both conform"),
        ("ST-GAP-DTYPE-VIEW", "gap", _RAISES, "set_(tensor, offset, size, stride) with a dtype other than self's is "
                                              "not covered", ADDED),
        ("ST-GAP-BOOLINT", "gap", "Args: storage_offset, size, stride", "a bool where an int is required (Python's "
                                                                        "bool is an int): not stated", ADDED),
        ("ST-GAP-DEFAULT-ARG", "gap", f"Prototype against {_SIGS}", "set_(source, storage_offset=0) without size, "
                                                                    "or size without storage_offset or stride: "
                                                                    "excluded by the list of legal signatures "
                                                                    "(TypeError), admitted by the prototype's "
                                                                    "defaults: both conform", ADDED),
        ("ST-GAP-CPU-WRITE", "gap", "Description against Notes", "after a set_ whose view is not contiguous, a "
                                                                 "write through self shows in the source (ST-ALIAS) "
                                                                 "or, on CPU, takes no effect (the note): each "
                                                                 "element of the source holds the probe or its old "
                                                                 "value", ADDED),
    ),
    inputs=(Field("target", "self before the call (its shape and dtype matter: ST-E-BOUNDS, ST-E-DTYPE)",
                  reported_as="self"),
            Field("source", "the source's storage as a 1-D array (absent for set_()). The storage model: a "
                            "tensor is (storage, offset, size, stride) and its element t[i] is "
                            "storage[offset + sum(i_j * stride_j)]", required=False,
                  storage=True)),     # a Storage source is the whole storage (ST-STORAGE): no layout of its own
    params=(Field("source_kind", 'none (set_()), storage (a Storage over inputs.source), or tensor'),
            Field("source_view", 'kind tensor only: {"offset", "size", "stride"} of the source tensor over that '
                                 'storage (it must fit); absent: contiguous 1-D over all of it', required=False),
            Field("storage_offset", "passed as a keyword argument iff present, exactly as given (wrong types on "
                                    "purpose: ST-E-TYPE)", required=False),
            Field("size", "as storage_offset", required=False),
            Field("stride", "as storage_offset", required=False),
            Field("probe", "a number the adapter writes through self after the call (self.fill_(probe)) to check "
                           "aliasing", required=False),
            Field("source_device", '"other": the source lives on another device than self (ST-E-DEVICE); absent: '
                                   "the same device. An adapter puts it on a second device of its framework "
                                   "(torch: meta), or reports not-applicable when the framework has none here",
                  required=False)),
    outputs=(Field("self", "self's values after set_"),
             Field("source_after_fill", "after self.fill_(probe): the source tensor's values as the user sees them, "
                                        "or the whole storage as 1-D for kind storage")),
    decode=decode, solve=solve_case, reference=set_, call=call, repro=repro, generic_call=generic_call,
    generic_outputs={"self": "self_"}, exports={"Storage": Storage},
)

"""What every framework's conversion shares: how inputs are built, bf16, read-back limits, call arguments.

Each framework's own NumPy <-> tensor converters live in its adapter module, exact for every dtype the suite
knows: bf16 goes through its raw 16 bits (an int16 view on both sides), since a detour through float32 would be
exact for ordinary values but is allowed to quiet or rewrite NaN payloads, and the suite compares bit for bit.
Every conversion copies: case arrays are read-only and a framework may write into a buffer it shares with
NumPy.  By default a tensor is built the way the framework's documentation shows users building one (see
`building`).
"""
from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from contract.dtypes import BFLOAT16



# How inputs are built (docs/CLI.md, --construction-check).  The first of an adapter's `constructions` is
# the way the framework's own documentation shows users building a tensor, and the default; the others
# are other user-plausible ways, which the construction check compares it with.
TENSOR, FROM_NUMPY = "tensor", "from_numpy"
_BUILD = contextvars.ContextVar("construction", default=TENSOR)


@contextlib.contextmanager
def building(how: str):
    """Inputs made inside this block are built `how` (TENSOR: a framework-allocated copy; FROM_NUMPY:
    a tensor borrowing a fresh NumPy array's memory)."""
    token = _BUILD.set(how)
    try:
        yield
    finally:
        _BUILD.reset(token)


def way() -> str:
    """How inputs made now are built (TENSOR or FROM_NUMPY): each framework's converter asks."""
    return _BUILD.get()


def is_bf16(a) -> bool:
    return np.asarray(a).dtype == BFLOAT16


# ---- reading back what a call left behind -------------------------------------------------

READBACK_LIMIT = 1 << 26      # elements; the results codec refuses more anyway (contract.codec.MAX_ELEMENTS)


def unreadable(shape) -> str:
    """Why a tensor of this shape cannot become a NumPy array ('' when it can).

    A framework may accept a size the document forbids (a negative entry) or one
    that no memory could hold; the call still returned, so that is what is reported.
    """
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        return f"shape {list(shape)} has a negative entry"
    n = 1
    for s in shape:
        n *= s
    if n > READBACK_LIMIT:
        return f"shape {list(shape)} has {n} elements, over the read-back limit of {READBACK_LIMIT}"
    return ""


# ---- case -> call arguments, shared by the framework adapters ----------------------------

def call_args(case, tensors=None):
    """The call's arguments as the op's one decoder reads them (OpSpec.decode), the case's inputs
    replaced by `tensors` (the framework's own, by input name) where given."""
    from oracle.registry import spec
    return spec(case.op).decode(case, tensors)


def bound(call, which, make_element):
    """clip's `min`/`max` of a decoded call as the framework's user passes it: None, the bound tensor, an
    Element made by `make_element(value, dtype_name)` (a 0-d tensor of that dtype), or the Python scalar."""
    b = getattr(call, which)
    return None if b is None else b.pass_as(element=make_element)


def set_source(call, make_storage, make_view, source=None):
    """(the source object passed to set_, the tensor whose values are read back after the probe), for a
    decoded set_ call; `source` replaces call.source (torch moves it to another device first).

    kind `storage`: a Storage over the source, re-read as the whole 1-D storage;
    kind `tensor`: the source, or the view call.view describes over it.
    """
    if call.kind == "none":
        return None, None
    base = call.source if source is None else source
    if call.kind == "storage":
        return make_storage(base), base
    if call.view is None:
        return base, base
    src = make_view(base, call.view.offset, call.view.size, call.view.stride)
    return src, src

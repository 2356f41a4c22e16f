"""paddle (paddlepaddle, CPU) as a candidate, plus its second natural scatter call reported separately.

| op             | PaddleAdapter ("paddle")                                               | PaddleVariantAdapter ("paddle-variants") |
|----------------|------------------------------------------------------------------------|------------------------------------------|
| setitem        | `Tensor.__setitem__`                                                   | n/a                                      |
| clip           | `paddle.clip(x, min, max)`                                             | n/a                                      |
| scatter        | `paddle.put_along_axis(arr, indices, values, axis)` / `Tensor.put_along_axis_` (its default broadcast=True) | the same with `broadcast=False` (paddle's torch-style mode) |
| scatter_nd_add | `paddle.scatter_nd_add(x, index, updates)`                             | n/a                                      |
| set_           | `Tensor.set_(source, shape, stride, offset)`                           | n/a                                      |

scatter: paddle's torch-style scatter is put_along_axis (paddle.scatter / Tensor.scatter_ overwrite whole rows of
axis 0 at a 1-D index: another op).  Its default `broadcast=True` first broadcasts indices and values to arr's
shape; `broadcast=False` reads them at index's positions only, as torch does: both are reported.  The value
form passes the Python scalar as `values`.

scatter_nd_add: out of place, as documented by paddle: "x after the call" is the tensor passed, read back
(unchanged); the documented in-place update (SNA-RETURN) is a listed divergence.  It has no use_locking
argument (a bool is left out of the call; a case about its type is not applicable).

set_: paddle's offset is in BYTES (measured on 3.3.1: on a float32 source, offset=4 starts at element 1 and
offset=1 reads a misaligned float), where the documents' storage_offset counts elements; the adapter passes
`offset = storage_offset * source.element_size()` (an offset that is no int is passed as given).  The case's
`size`/`stride` go to paddle's `shape`/`stride`.  paddle has no Storage object: a storage source is the 1-D
source tensor itself (it is its whole storage); a tensor source's view is `paddle.as_strided(base, size,
stride, offset_in_bytes)`.  The probe is written with `Tensor.fill_`.  There is one device (the CPU): a source
on another device is not applicable.

Reading back never calls `Tensor.contiguous()`: on a non-contiguous tensor (a set_ view) paddle 3.3.1 re-points
that tensor itself at a fresh copy (measured), so a later write through self would miss the storage.

paddle is imported in setup() only (~5 s); bf16 goes through its raw 16 bits (an int16 tensor viewed as
bfloat16; `Tensor.numpy()` hands a bfloat16 tensor back as its uint16 bits).
"""
from __future__ import annotations

import numpy as np

from contract.dtypes import BFLOAT16

from . import convert, frameworks, repro as R, set_readback
from .base import Outcome
from .mapping import FrameworkAdapter, OpMap

PIN = frameworks.pin("paddle")     # adapters/paddle_framework.toml


class PaddleAdapter(FrameworkAdapter):
    name = "paddle"
    execution = "paddlepaddle CPU, dynamic graph"
    constructions = (convert.TENSOR,)
    excludes = (
        "scatter_nd_add/not-applicable/* ~ paddle.scatter_nd_add has no use_locking argument :: "
        "scatter_nd_add takes no locking argument: a case about use_locking's type has no call to make",
        "set_/not-applicable/* ~ paddle has no second device on this CPU-only machine :: "
        "a source on another device needs a second device, and this machine has only the CPU",
    )
    package = "paddle"
    distribution = "paddlepaddle"
    pin = PIN
    # Measured over the shipped corpus (two runs, 2 cores): the slowest call that returned took 0.03 s, the
    # median 0.2 ms; the calls that hang (set_ views that corrupt the heap) never return.  5 s is over 150x
    # the slowest answer, where the harness's default (60 s) made 7-15 hangs cost 7-15 minutes a run.
    case_timeout = 5.0
    where = f"bash scripts/setup.sh builds .venv-paddle with paddlepaddle {PIN}"
    REPRO_IMPORTS = ("import paddle", 'paddle.set_device("cpu")')
    BROADCAST = None        # put_along_axis's broadcast argument: None leaves paddle's default (True)

    def __init__(self):
        self._paddle = None

    def setup(self) -> None:
        import warnings
        with warnings.catch_warnings():         # "No ccache found", at import
            warnings.simplefilter("ignore", UserWarning)
            import paddle
        paddle.set_device("cpu")
        self._paddle = paddle

    def framework(self):
        if self._paddle is None:
            self.setup()
        return self._paddle

    def tensor(self, array):
        return to_paddle(array)

    def tensor_maker(self, construction):
        return _tensor_maker


class PaddleVariantAdapter(PaddleAdapter):
    """put_along_axis with broadcast=False: paddle's torch-style mode, reported on its own."""
    name = "paddle-variants"
    excludes = ()
    BROADCAST = False


# ---- NumPy <-> paddle, exact for every dtype (bf16 through its 16 bits) ----------------------------

def to_paddle(a):
    import paddle
    a = np.asarray(a)
    if convert.is_bf16(a):      # paddle.to_tensor refuses ml_dtypes' bfloat16: hand it the raw bits
        return paddle.to_tensor(a.view(np.int16).copy()).view(paddle.bfloat16)
    return paddle.to_tensor(a.copy())       # to_tensor(ndarray) copies, as paddle's docs show


def from_paddle(t) -> np.ndarray:
    """t's values, t untouched: not through Tensor.contiguous(), which on a non-contiguous tensor (a set_ view)
    re-points that tensor itself at a fresh copy (measured on 3.3.1), so a later write through it would miss the
    storage.  Tensor.numpy() reads any strides; a bfloat16 tensor comes back as its raw 16 bits (uint16)."""
    import paddle
    a = np.array(t.numpy(), copy=True)
    if t.dtype == paddle.bfloat16:
        return a.view(np.uint16).view(BFLOAT16)
    return a


# ---- one row per op: the call on paddle's own tensors, read back from the original objects --------------

def _setitem(paddle, a):
    a.target[a.key] = a.value
    return Outcome.returned(target=from_paddle(a.target))


def _clip(paddle, a):
    def element(v, dt):
        return paddle.to_tensor(v, dtype=dt)
    out = paddle.clip(a.x, convert.bound(a, "min", element), convert.bound(a, "max", element))
    return Outcome.returned(out=from_paddle(out), x=from_paddle(a.x))


def _scatter_with(broadcast):
    kw = {} if broadcast is None else {"broadcast": broadcast}

    def run(paddle, a):
        if a.inplace:
            out = a.input.put_along_axis_(a.index, a.src_or_value, a.dim, **kw)
        else:
            out = paddle.put_along_axis(a.input, a.index, a.src_or_value, a.dim, **kw)
        return Outcome.returned(out=from_paddle(out), input=from_paddle(a.input))
    return run


def _scatter_nd_add(paddle, a):
    if a.lock_given and not isinstance(a.use_locking, bool):
        return Outcome.not_applicable("paddle.scatter_nd_add has no use_locking argument")
    out = paddle.scatter_nd_add(a.x, a.indices, a.updates)
    return Outcome.returned(out=from_paddle(out), x=from_paddle(a.x))


def byte_offset(storage_offset, element_size):
    """paddle's offset (bytes) for the documents' storage_offset (elements); a non-int is passed as given."""
    if isinstance(storage_offset, int) and not isinstance(storage_offset, bool):
        return storage_offset * element_size
    return storage_offset


def set_kwargs(call, element_size) -> dict:
    """The documents' storage_offset/size/stride as paddle's offset (bytes)/shape/stride, each iff given."""
    names = {"storage_offset": "offset", "size": "shape", "stride": "stride"}
    kw = {names[k]: v for k, v in call.kwargs.items()}
    if "offset" in kw:
        kw["offset"] = byte_offset(kw["offset"], element_size)
    return kw


def _set_(paddle, a):
    if a.other_device and a.kind != "none":
        return Outcome.not_applicable("paddle has no second device on this CPU-only machine")
    target = a.target
    source, reread = convert.set_source(
        a, lambda base: base,
        lambda base, offset, size, stride: paddle.as_strided(base, list(size), list(stride),
                                                             offset * base.element_size()))
    size = source.element_size() if source is not None else target.element_size()
    return set_readback.set_and_read_back(a, target, source, reread, from_paddle, set_kwargs(a, size))


# ---- repro snippets in paddle's own syntax ------------------------------------------------

TO_NUMPY = ["def to_numpy(t):   # exact: bf16 through its 16 bits (numpy() gives them as uint16); no contiguous(),",
            "    a = t.numpy()      # which would re-point a non-contiguous t itself at a copy",
            "    if t.dtype == paddle.bfloat16:",
            "        import ml_dtypes",
            "        return a.view(np.uint16).view(ml_dtypes.bfloat16)",
            "    return a"]


def _tensor_maker(expr, a):
    if convert.is_bf16(a):
        return f"paddle.to_tensor({expr}.view(np.int16)).view(paddle.bfloat16)"
    return f"paddle.to_tensor({expr})"


def _element(v, dt):
    return f"paddle.to_tensor({R.scalar_text(v)}, dtype={dt!r})"


def _setitem_repro(case, a):
    return [R.setitem_statement(case)], [], ["print(target)"], {"target": "to_numpy(target)"}


def _clip_repro(case, a):
    lo, hi = R.clip_bound_texts(case, _element)
    return ([f"out = paddle.clip(x, {lo}, {hi})"], [], ["print(out, x)"],
            {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _scatter_repro_with(broadcast):
    extra = "" if broadcast is None else f", broadcast={broadcast!r}"

    def parts(case, a):
        dim, index, src = R.scatter_arg_texts(case)
        call = (f"input.put_along_axis_({index}, {src}, {dim}{extra})" if a.inplace
                else f"paddle.put_along_axis(input, {index}, {src}, {dim}{extra})")
        return [f"out = {call}"], [], ["print(out, input)"], {"out": "to_numpy(out)", "input": "to_numpy(input)"}
    return parts


def _scatter_nd_add_repro(case, a):
    return (["out = paddle.scatter_nd_add(x, indices, updates)   # out of place: x keeps its values"], [],
            ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _set_repro(case, a):
    call, src = [], "source"
    if a.kind == "storage":
        call.append("# paddle has no Storage object: the 1-D source tensor is its whole storage")
    elif a.view is not None:
        v = a.view
        call.append(f"source = paddle.as_strided(source, {list(v.size)!r}, {list(v.stride)!r}, "
                    f"{v.offset!r} * source.element_size())   # paddle's offset is in bytes")
    size_of = "source" if a.kind != "none" else "target"
    kw = set_kwargs(a, 1)       # the names; the byte offset is spelled out below
    parts = [] if a.kind == "none" else [src]
    for k, v in kw.items():
        if k == "offset" and isinstance(v, int) and not isinstance(v, bool):
            parts.append(f"offset={v!r} * {size_of}.element_size()")   # storage_offset in elements -> bytes
        else:
            parts.append(f"{k}={R.scalar_text(v)}")
    call.append(f"target.set_({', '.join(parts)})")
    after, outputs = R.set_readback(a)     # self, then the probe through self (ST-ALIAS)
    return call, after, ["print(self_)"], outputs


# The tables: each op an adapter maps, with its call, its native API and its repro (adapters/mapping.py).
PaddleAdapter.TABLE = {
    "setitem": OpMap("paddle.Tensor.__setitem__", _setitem, _setitem_repro),
    "clip": OpMap("paddle.clip", _clip, _clip_repro),
    "scatter": OpMap("paddle.put_along_axis", _scatter_with(None), _scatter_repro_with(None),
                     lambda a: "paddle.Tensor.put_along_axis_" if a.inplace else "paddle.put_along_axis"),
    "scatter_nd_add": OpMap("paddle.scatter_nd_add", _scatter_nd_add, _scatter_nd_add_repro),
    "set_": OpMap("paddle.Tensor.set_ (offset in bytes; probe written with Tensor.fill_)", _set_, _set_repro),
}
PaddleVariantAdapter.TABLE = {
    "scatter": OpMap("paddle.put_along_axis(broadcast=False)", _scatter_with(False), _scatter_repro_with(False),
                     lambda a: ("paddle.Tensor.put_along_axis_(broadcast=False)" if a.inplace
                                else "paddle.put_along_axis(broadcast=False)")),
}
PaddleAdapter.REPRO_SETUP = PaddleVariantAdapter.REPRO_SETUP = tuple(TO_NUMPY)

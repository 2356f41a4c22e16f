"""Cases for mindspore `Tensor.set_(source, storage_offset, size, stride)` (clauses ST-*): the document's
example, its documented errors, and generated forms.

ST-E-DEVICE: `params.source_device = "other"` puts the source on another
device than self (docs/SPEC.md, set_); an adapter maps it to a second device of its
framework (torch: `meta`) or reports that it has none.

Declared sizes and offsets may be huge (2**40, 2**62) but only where the view
is out of bounds or empty: the storage itself is always a few elements, so no
case ever needs a huge array.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import FLOATS, INTS, dtype_from_name, dtype_name

from oracle.boundary import NARROW, tie_values
from ..doc_examples import doc_example
from ..error_cases import error_case
from .boundary import ROUNDED, boundary_case as _c, edge_array, float_edges, int_edges, label as _label, rounded_value
from .common import odd_arrays, odd_scalars
from .common import array_of, coin, ints, make_case, pick, shape_of, shape_text, weighted_dtypes

OP = "set_"

DTYPES = weighted_dtypes(("float32", "float64"),
                         ("float16", "bfloat16", "int32", "int64", "int16", "int8", "uint8", "bool"))
HUGE = (2**31, 2**32, 2**40, 2**62, 2**63 - 1)


def contiguous(size) -> list:
    out, acc = [], 1
    for s in reversed(size):
        out.append(acc)
        acc *= s
    return out[::-1]


def needed(offset, size, stride) -> int:
    """Storage elements a view touches (offset included); an empty view touches none."""
    if any(s == 0 for s in size):
        return 0
    return offset + sum((s - 1) * t for s, t in zip(size, stride)) + 1


def _probe(dt):
    return True if dt == "bool" else (7 if dt.startswith(("int", "uint")) else 7.5)


def _case(target, params, note, source=None):
    inputs = {"target": target}
    if source is not None:
        inputs["source"] = source
    kind = params["source_kind"]
    args = "".join(f", {k}={params[k]!r}" for k in ("storage_offset", "size", "stride") if k in params)
    src = "" if source is None else f" {dtype_name(source.dtype)}[{source.size}]"
    label = (f"set_({kind}{src}{args}) on {dtype_name(target.dtype)} "
             f"{shape_text(target.shape)}{': ' + note if note else ''}")
    return make_case(OP, inputs, params, label)


def _view(draw, max_rank=3, zero_stride=True):
    """(size, stride) of a small view; strides may be zero or overlapping."""
    size = list(shape_of(draw, 0, max_rank, min_side=0, max_side=4))
    if coin(draw):
        return size, contiguous(size)
    return size, [ints(draw, 0 if zero_stride else 1, 6) for _ in size]


def _target(draw, dt=None):
    dt = dt or pick(draw, DTYPES)
    return array_of(draw, dt, shape_of(draw, 0, 3, min_side=0, max_side=4))


@st.composite
def empty(draw):
    return _case(_target(draw), {"source_kind": "none"}, "becomes empty")


@st.composite
def storage(draw):
    target = _target(draw)
    dt = dtype_name(target.dtype)
    source = array_of(draw, dt, (ints(draw, 0, 12),))
    return _case(target, {"source_kind": "storage", "probe": _probe(dt)}, "", source)


def _with_view_args(draw, kind, source_view=None):
    """Valid offset/size/stride args; the storage is sized so the view fits."""
    target = _target(draw)
    dt = dtype_name(target.dtype)
    size, stride = _view(draw)
    offset = ints(draw, 0, 4)
    length = max(needed(offset, size, stride), offset) + ints(draw, 0, 3)
    params = {"source_kind": kind, "storage_offset": offset, "size": size, "probe": _probe(dt)}
    form = pick(draw, ("given", "absent", "none"))
    if form == "given" or stride != contiguous(size):
        params["stride"] = stride
    elif form == "none":
        params["stride"] = None
    if source_view is not None:
        params["source_view"] = source_view(length)
    notes = [n for n, on in (("zero stride", 0 in (params.get("stride") or [])),
                             ("empty view", 0 in size)) if on]
    return _case(target, params, ", ".join(notes), array_of(draw, dt, (length,)))


@st.composite
def storage_view(draw):
    return _with_view_args(draw, "storage")


@st.composite
def tensor_view(draw):
    # the source is contiguous (ST-E-NONCONTIG otherwise): all of the storage, or a 1-D view of it
    full = coin(draw)
    return _with_view_args(draw, "tensor", None if full else (lambda n: {"offset": 0, "size": [n], "stride": [1]}))


@st.composite
def tensor_view_offset(draw):
    """The source tensor is itself a view at a non-zero offset of its storage, with the view arguments and
    without: storage_offset is absolute in the storage (oracle/set_.py), so an implementation that adds it to
    the source's own offset shows."""
    target = _target(draw)
    dt = dtype_name(target.dtype)
    own = ints(draw, 1, 3)
    params = {"source_kind": "tensor", "probe": _probe(dt)}
    reach = 0
    if coin(draw):
        size, stride = _view(draw)
        offset = ints(draw, 0, 4)
        reach = max(needed(offset, size, stride), offset)
        params.update({"storage_offset": offset, "size": size, "stride": stride})
        note = f"source at offset {own}, storage_offset {offset}"
    else:
        note = f"source at offset {own}, no view arguments"
    length = max(reach, own + 1) + ints(draw, 0, 3)
    params["source_view"] = {"offset": own, "size": [length - own], "stride": [1]}
    return _case(target, params, note, array_of(draw, dt, (length,)))


@st.composite
def tensor(draw):
    target = _target(draw)
    dt = dtype_name(target.dtype)
    params = {"source_kind": "tensor", "probe": _probe(dt)}
    if coin(draw):
        length = ints(draw, 0, 12)
        note = "contiguous source"
    else:
        size, stride = _view(draw)
        offset = ints(draw, 0, 3)
        length = max(needed(offset, size, stride), offset) + ints(draw, 0, 2)
        params["source_view"] = {"offset": offset, "size": size, "stride": stride}
        note = "source view" + ("" if stride == contiguous(size) else " (non-contiguous)")
    return _case(target, params, note, array_of(draw, dt, (length,)))


@st.composite
def zero_stride_large(draw):
    """Many elements declared over one storage element: a broadcast view (ST-STORAGE-VIEW)."""
    target = _target(draw)
    dt = dtype_name(target.dtype)
    # NumPy cannot hold a shape whose non-zero sides overflow its byte count, so 2**40, not 2**62
    size = pick(draw, ([64, 64], [4096], [16, 16, 16], [2**40, 0], [0, 2**40]))
    stride = [0] * len(size) if 0 not in size else [1] * len(size)
    kind = pick(draw, ("storage", "tensor"))
    params = {"source_kind": kind, "storage_offset": 0, "size": size, "stride": stride, "probe": _probe(dt)}
    note = "empty view, huge declared side" if 0 in size else "zero strides, many elements"
    return _case(target, params, note, array_of(draw, dt, (ints(draw, 1, 4),)))


# ---- documented errors --------------------------------------------------------------


def _err_base(draw, kind=None, dt=None):
    target = _target(draw, dt)
    dt = dtype_name(target.dtype)
    kind = kind or pick(draw, ("storage", "tensor"))
    size, stride = _view(draw, max_rank=2)
    offset = ints(draw, 0, 2)
    length = max(needed(offset, size, stride), offset) + ints(draw, 0, 2)
    params = {"source_kind": kind, "storage_offset": offset, "size": size, "stride": stride, "probe": _probe(dt)}
    return target, params, array_of(draw, dt, (length,))


@st.composite
def wrong_types(draw):
    target, params, source = _err_base(draw)
    how = pick(draw, ("offset str", "offset float", "size int", "size str", "size floats",
                                "stride str", "offset without size", "offset bool", "size bools"))
    if how == "offset str":
        params["storage_offset"] = str(params["storage_offset"])
    elif how == "offset float":
        params["storage_offset"] = params["storage_offset"] + 0.5
    elif how == "size int":
        params["size"] = len(params["size"])
    elif how == "size str":
        params["size"] = str(params["size"])
    elif how == "size floats":
        params["size"] = [float(s) + 0.5 for s in params["size"]] or [1.5]
        params["stride"] = params["stride"] or [1]
    elif how == "stride str":
        params["stride"] = "1"
    elif how == "offset without size":
        del params["size"], params["stride"]
    elif how == "offset bool":              # Python's bool is an int (ST-GAP-BOOLINT)
        params["storage_offset"] = bool(params["storage_offset"] % 2)
    else:
        params["size"] = [True] * len(params["size"]) or [True]
        params["stride"] = list(params["stride"]) or [1]
    return _case(target, params, how, source)


@st.composite
def out_of_bounds(draw):
    """ST-E-BOUNDS: size equal to self's size, and the view reaches past the source's storage."""
    dt = pick(draw, DTYPES)
    target = array_of(draw, dt, shape_of(draw, 1, 3, min_side=1, max_side=4))
    dt = dtype_name(target.dtype)
    size = list(target.shape)
    stride = contiguous(size)
    length = ints(draw, 0, needed(0, size, stride) + 2)
    reach = needed(0, size, stride)
    offset = pick(draw, (max(0, length - reach + 1),) + HUGE)
    params = {"source_kind": pick(draw, ("storage", "tensor")), "storage_offset": offset,
              "size": size, "stride": stride, "probe": _probe(dt)}
    return _case(target, params, f"offset {offset}, storage of {length}", array_of(draw, dt, (length,)))


@st.composite
def out_of_bounds_other_size(draw):
    """ST-GAP-BOUNDS: a view past the storage with a size unlike self's; huge sizes overflow naive checks."""
    target = _target(draw)
    dt = dtype_name(target.dtype)
    length = ints(draw, 1, 6)
    size, stride = pick(draw, (
        ([2**40], [1]), ([2**62], [4]), ([2**63 - 1], [1]), ([2**31, 2**31], [2**31, 1]),
        ([2**32 + 1], [2**32]), ([3, 2**61], [2**62, 2]), ([length + 1], [1]), ([2, length], [length, 1])))
    if list(target.shape) == size:
        size = size + [1]
        stride = stride + [1]
    params = {"source_kind": pick(draw, ("storage", "tensor")), "storage_offset": 0,
              "size": size, "stride": stride, "probe": _probe(dt)}
    return _case(target, params, f"size {size} past a storage of {length}", array_of(draw, dt, (length,)))


@st.composite
def negative_offset(draw):
    target, params, source = _err_base(draw)
    params["storage_offset"] = pick(draw, (-1, -2, -2**31, -2**63))
    return _case(target, params, f"storage_offset {params['storage_offset']}", source)


@st.composite
def negative_size(draw):
    target, params, source = _err_base(draw)
    size = list(params["size"]) or [1]
    params["stride"] = list(params["stride"]) or [1]
    size[ints(draw, 0, len(size) - 1)] = pick(draw, (-1, -2, -2**40))
    params["size"] = size
    return _case(target, params, f"size {size}", source)


@st.composite
def negative_stride(draw):
    target, params, source = _err_base(draw)
    stride = list(params["stride"]) or [1]
    params["size"] = list(params["size"]) or [1]
    stride[ints(draw, 0, len(stride) - 1)] = pick(draw, (-1, -3, -2**40))
    params["stride"] = stride
    return _case(target, params, f"stride {stride}", source)


@st.composite
def rank_mismatch(draw):
    target, params, source = _err_base(draw)
    if coin(draw):
        params["stride"] = list(params["stride"]) + [1]
    else:
        params["size"] = list(params["size"]) + [1]
    return _case(target, params, f"len(size) {len(params['size'])} != len(stride) {len(params['stride'])}",
                 source)


@st.composite
def too_many_dims(draw):
    target, params, source = _err_base(draw)
    rank = ints(draw, 9, 10)
    params["size"], params["stride"] = [1] * rank, [1] * rank
    params["storage_offset"] = 0
    if source.size == 0:        # keep the view in bounds so only the rank is wrong
        source = array_of(draw, dtype_name(target.dtype), (1,))
    return _case(target, params, f"{rank} dims", source)


@st.composite
def noncontiguous_source(draw):
    target = _target(draw)
    dt = dtype_name(target.dtype)
    rows, cols = ints(draw, 2, 3), ints(draw, 2, 3)
    view = pick(draw, ({"offset": 0, "size": [rows, cols], "stride": [1, rows]},
                                 {"offset": 0, "size": [rows, cols], "stride": [cols + 1, 1]},
                                 {"offset": 1, "size": [rows * cols], "stride": [2]}))
    length = needed(view["offset"], view["size"], view["stride"]) + 1
    params = {"source_kind": "tensor", "source_view": view, "storage_offset": 0, "size": [2], "stride": [1],
              "probe": _probe(dt)}
    return _case(target, params, "non-contiguous source with size/stride", array_of(draw, dt, (length,)))


@st.composite
def other_device(draw):
    # ST-E-DEVICE: otherwise valid calls whose source lives on another device than self
    target, params, source = _err_base(draw, dt=pick(draw, ("float32", "int64")))
    if coin(draw):
        params = {"source_kind": params["source_kind"], "probe": params["probe"]}
        source = array_of(draw, dtype_name(target.dtype), (ints(draw, 1, 6),))
    params["source_device"] = "other"
    return _case(target, params, "source on another device", source)


@st.composite
def dtype_differs(draw):
    target = _target(draw)
    tdt = dtype_name(target.dtype)
    sdt = pick(draw, tuple(d for d in DTYPES if d != tdt))
    kind = pick(draw, ("tensor", "storage", "tensor view"))
    params = {"source_kind": kind.split()[0], "probe": _probe(tdt)}
    length = ints(draw, 1, 6)
    if kind == "tensor view":           # not covered by ST-E-DTYPE (ST-GAP-DTYPE-VIEW)
        params.update(storage_offset=0, size=[length], stride=[1])
    return _case(target, params, f"{sdt} source into {tdt} self", array_of(draw, sdt, (length,)))


# ---- boundary: values a dtype must round, dtype edges (oracle/*.DOMAIN) ------------------------


@st.composite
def set_boundary(draw):
    if coin(draw):
        dt = pick(draw, ROUNDED)
        v = rounded_value(draw, dt, double=dt not in NARROW)     # the probe is fill_'s conversion, not set_'s
        n = ints(draw, 1, 4)
        inputs = {"target": np.zeros(n, dtype_from_name(dt)), "source": np.zeros(n, dtype_from_name(dt))}
        kind = pick(draw, ("storage", "tensor"))
        return make_case(OP, inputs, {"source_kind": kind, "probe": v},
                         _label(f"fill {v!r} rounds", inputs))
    dt = pick(draw, FLOATS + INTS)
    source = edge_array(draw, dt)
    inputs = {"target": np.zeros(source.size, source.dtype), "source": source}
    probe = 7 if dt in INTS else 2.0
    params = {"source_kind": pick(draw, ("storage", "tensor")), "probe": probe}
    if coin(draw):      # a view that ends on the storage's last element: offset 1, the rest of the storage
        params.update(storage_offset=1, size=[source.size - 1], stride=[1])
        inputs["target"] = np.zeros(source.size - 1, source.dtype)
    return make_case(OP, inputs, params, _label("edges", inputs))


def boundary_cases():
    """Targeted boundary cases (suites/strategies/boundary.py): one small case per class the draw may miss."""
    ar = lambda n, dt=F32: np.arange(n, dtype=dt)      # noqa: E731
    out = [
        # size of exactly 8 dims (the documented maximum) must be accepted
        _c(OP, "set_(storage arange(3), size=[1]*8, stride=[1]*8): 8 dims", {
            "target": np.zeros((1,) * 8, F32), "source": ar(3)},
           {"source_kind": "storage", "storage_offset": 0, "size": [1] * 8, "stride": [1] * 8, "probe": 7.0}),
        _c(OP, "set_(tensor arange(4), size=[2,1,1,1,1,1,1,2]): 8 dims, default stride", {
            "target": np.zeros((2, 1, 1, 1, 1, 1, 1, 2), F32), "source": ar(4)},
           {"source_kind": "tensor", "size": [2, 1, 1, 1, 1, 1, 1, 2], "probe": 7.0}),
        _c(OP, "set_(storage arange(4), storage_offset=1, size=[1]*7+[2], stride=[1]*8): 8 dims, fits exactly",
           {"target": np.zeros(2, F32), "source": ar(4)},
           {"source_kind": "storage", "storage_offset": 1, "size": [1] * 7 + [2], "stride": [1] * 8, "probe": 7.0}),
        # with a size and no stride the strides are row-major
        _c(OP, "set_(tensor arange(6), size=[2, 3]): row-major default stride", {
            "target": np.zeros((2, 3), F32), "source": ar(6)}, {"source_kind": "tensor", "size": [2, 3], "probe": 7.0}),
        _c(OP, "set_(storage arange(6), size=[3, 2]): row-major default stride", {
            "target": np.zeros((3, 2), F32), "source": ar(6)}, {"source_kind": "storage", "size": [3, 2], "probe": 7.0}),
        _c(OP, "set_(tensor arange(6), storage_offset=0, size=[2, 3]): row-major default stride", {
            "target": np.zeros((2, 3), F32), "source": ar(6)},
           {"source_kind": "tensor", "storage_offset": 0, "size": [2, 3], "probe": 7.0}),
        _c(OP, "set_(storage arange(6), storage_offset=0, size=[3, 2]): row-major default stride", {
            "target": np.zeros((3, 2), F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 0, "size": [3, 2], "probe": 7.0}),
        _c(OP, "set_(storage arange(6), 0, [2, 3], [3, 1]): the row-major stride written out", {
            "target": np.zeros((2, 3), F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 0, "size": [2, 3], "stride": [3, 1], "probe": 7.0}),
        _c(OP, "set_(storage arange(6), 1, [2, 2], [3, 1]): offset 1, the view ends on the last element", {
            "target": np.zeros(4, F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 1, "size": [2, 2], "stride": [3, 1], "probe": 7.0}),
    ]
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            if key == "double":     # the probe is the harness's fill_, not set_'s own conversion
                continue
            out.append(_c(OP, f"set_({dt} storage), then fill_({v!r}) ({key})", {
                "target": np.zeros(3, dtype_from_name(dt)), "source": np.zeros(3, dtype_from_name(dt))},
                {"source_kind": "storage", "probe": v}))
    for dt in FLOATS:
        e = float_edges(dt)
        out.append(_c(OP, f"set_(tensor of {dt} edges): self sees every bit", {
            "target": np.zeros(e.size, e.dtype), "source": e}, {"source_kind": "tensor", "probe": 2.0}))
    for dt in ("int16", "int8"):
        e = int_edges(dt)
        out.append(_c(OP, f"set_(storage of {dt} min/max)", {"target": np.zeros(4, e.dtype), "source": e},
                      {"source_kind": "storage", "probe": 7}))
    return out


FAMILIES = {
    "empty": empty(), "storage": storage(), "storage_view": storage_view(), "tensor": tensor(),
    "tensor_view": tensor_view(), "zero_stride_large": zero_stride_large(), "type": wrong_types(),
    "bounds": out_of_bounds(), "gap_bounds": out_of_bounds_other_size(), "offset": negative_offset(),
    "negsize": negative_size(), "negstride": negative_stride(), "rank": rank_mismatch(),
    "maxdim": too_many_dims(), "noncontig": noncontiguous_source(), "dtype": dtype_differs(),
    "device": other_device(),
    "boundary": set_boundary(), "tensor_view_offset": tensor_view_offset(),
}
CORPUS_DRAWS = {"storage_view": 60, "tensor": 50, "tensor_view": 50}      # the wide families


# ---- the document's example and documented errors ---------------------------------------------

F32 = np.float32


def doc_examples():
    # The page's own example: a float64 target (np.zeros) set_ to a float32 tensor, printed as [10., 20., 30.];
    # ST-E-DTYPE on the same page says this raises RuntimeError (ST-GAP-EXAMPLE): both readings conform.
    return [
        doc_example(OP, "ST-EX-1 float64 target.set_(float32 data) printed [10., 20., 30.]",
                    ["ST-EX-1", "ST-GAP-EXAMPLE"],
                    {"target": np.zeros(3, np.float64), "source": np.array([10, 20, 30], F32)},
                    {"source_kind": "tensor"}, {"self": np.array([10, 20, 30], F32)}),
    ]


def error_cases():
    target = np.zeros(3, F32)
    data = np.array([10, 20, 30], F32)
    view = {"storage_offset": 0, "size": [3], "stride": [1], "probe": 7.5}

    def err(label, clause, exc, params, source=data, tgt=target):
        return error_case(OP, clause, exc, label, {"target": tgt, "source": source}, params)

    return [
        err("storage_offset='0'", "ST-E-TYPE", "TypeError", {"source_kind": "storage", **view, "storage_offset": "0"}),
        err("size=3 (an int)", "ST-E-TYPE", "TypeError", {"source_kind": "tensor", **view, "size": 3}),
        err("offset 1 with self's size [3] over 3 elements", "ST-E-BOUNDS", "RuntimeError",
            {"source_kind": "storage", **view, "storage_offset": 1}),
        err("offset 2**62 with self's size", "ST-E-BOUNDS", "RuntimeError",
            {"source_kind": "tensor", **view, "storage_offset": 2**62}),
        err("storage_offset -1", "ST-E-OFFSET", "RuntimeError", {"source_kind": "storage", **view,
                                                                 "storage_offset": -1}),
        err("size [-1]", "ST-E-NEGSIZE", "RuntimeError", {"source_kind": "storage", **view, "size": [-1]}),
        err("stride [-1]", "ST-E-NEGSTRIDE", "RuntimeError", {"source_kind": "storage", **view, "stride": [-1]}),
        err("size [3], stride [1, 1]", "ST-E-RANK", "RuntimeError", {"source_kind": "storage", **view,
                                                                     "stride": [1, 1]}),
        err("9 dims", "ST-E-MAXDIM", "RuntimeError", {"source_kind": "storage", **view, "size": [1] * 9,
                                                      "stride": [1] * 9}),
        err("transposed 2x2 source with size/stride", "ST-E-NONCONTIG", "RuntimeError",
            {"source_kind": "tensor", "source_view": {"offset": 0, "size": [2, 2], "stride": [1, 2]},
             **view, "size": [2], "stride": [1]}, source=np.array([1, 2, 3, 4], F32)),
        err("set_(storage) float64 storage into float32 self", "ST-E-DTYPE", "RuntimeError",
            {"source_kind": "storage", "probe": 7.5}, source=data.astype(np.float64)),
        err("set_(tensor) with the source on another device", "ST-E-DEVICE", "RuntimeError",
            {"source_kind": "tensor", "source_device": "other", "probe": 7.5}),
    ]


# ---- odd but well-formed cases: the oracle answers each without crashing (tests/test_oracle_expect.py) ----
@st.composite
def _odd(draw):
    kind = draw(st.sampled_from(["none", "storage", "tensor"]))
    params = {"source_kind": kind}
    for k in ("storage_offset", "size", "stride"):
        if draw(st.booleans()):
            params[k] = draw(odd_scalars)
    if draw(st.booleans()):
        params["probe"] = draw(st.one_of(st.integers(-300, 300), st.floats()))
    inputs = {"target": draw(odd_arrays())} | ({} if kind == "none" else {"source": draw(odd_arrays(max_dims=1))})
    return Case(op=OP, inputs=inputs, params=params)


ODD_CASES = _odd()


def well_formed(case) -> str:
    """What a generated set_ case promises beyond the decoder: a source exactly when one is passed, 1-D."""
    if ("source" in case.inputs) != (case.params["source_kind"] != "none"):
        return "inputs.source must be given exactly when source_kind is not none"
    if "source" in case.inputs and case.inputs["source"].ndim != 1:
        return "the source is a 1-D storage"
    return ""

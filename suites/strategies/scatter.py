"""Cases for torch `scatter` / `scatter_(dim, index, src|value)` (clauses SC-*)."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle.dtypes import dtype_name

from .common import arrays, make_case, shape_text, shapes, unique_along, weighted_dtypes

DTYPES = weighted_dtypes(("float32", "int64"),
                         ("float16", "bfloat16", "float64", "int32", "int16", "int8", "uint8", "bool"))
BAD_INDEX = (2**31, 2**32, 2**31 + 1, 2**32 + 1, 2**63 - 1, -2**63, -2**31 - 1)


def _case(self_, index, dim, inplace, clauses, note, src=None, value=None):
    inputs = {"input": self_, "index": index}
    params = {"dim": dim, "inplace": inplace}
    if src is not None:
        inputs["src"] = src
    else:
        params["value"] = value
    api = "scatter_" if inplace else "scatter"
    tail = "" if src is not None else f" value={value!r}"
    label = (f"{api} dim={dim} {dtype_name(self_.dtype)} {shape_text(self_.shape)} "
             f"index {shape_text(index.shape)}{tail}{': ' + note if note else ''}")
    return make_case("scatter", inputs, params, ("SC-RULE", "SC-INPLACE") + tuple(clauses), label)


def _value(draw, dt):
    if dt in ("float32", "float16", "bfloat16", "float64"):
        return draw(st.sampled_from((1.23, -0.5, 0.0, -0.0, math.nan, math.inf, -math.inf, 2.0)))
    return draw(st.sampled_from((1.23, 7.0, -2.0))) if dt != "bool" else 1.0


def _geometry(draw, min_rank=1, max_rank=4):
    """(self shape, dim as passed, axis, index shape with index.size(d) <= self.size(d) everywhere)."""
    shape = draw(shapes(min_rank, max_rank, max_side=4))
    r = len(shape)
    dim = draw(st.integers(0, r - 1)) if draw(st.integers(0, 3)) else draw(st.integers(-r, -1))
    axis = dim % r
    ishape = tuple(draw(st.integers(1, s)) for s in shape)
    return shape, dim, axis, ishape


def _src_shape(draw, ishape):
    return tuple(i + draw(st.integers(0, 2)) for i in ishape)


@st.composite
def rule(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    note = "index smaller than src" if src.shape != ishape else ""
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), (), note, src=src)


@st.composite
def value_form(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-VALUE",), "",
                 value=_value(draw, dt))


@st.composite
def zero_d(draw):
    dt = draw(DTYPES)
    self_, index = draw(arrays(dt, ())), np.zeros((), dtype=np.int64)
    dim, inplace = draw(st.sampled_from((0, -1))), draw(st.booleans())
    if draw(st.booleans()):
        return _case(self_, index, dim, inplace, ("SC-VALUE",), "0-d", value=_value(draw, dt))
    return _case(self_, index, dim, inplace, (), "0-d", src=draw(arrays(dt, ())))


@st.composite
def empty(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    ishape = tuple(0 if j == draw(st.integers(0, len(ishape) - 1)) else s for j, s in enumerate(ishape))
    if 0 not in ishape:
        ishape = (0,) + ishape[1:]
    index = np.zeros(ishape, dtype=np.int64)
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), (), "empty index", src=src)


@st.composite
def duplicates(draw):
    """SC-DUP: repeated targets along dim; any colliding src value is admissible."""
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    ishape = tuple(s + 1 if j == axis else s for j, s in enumerate(ishape))
    flat = draw(arrays("int64", ishape, specials=False).map(lambda a: np.abs(a) % shape[axis]))
    index = np.array(flat)
    first = tuple(0 for _ in ishape)
    second = tuple(1 if j == axis else 0 for j in range(len(ishape)))
    index[second] = index[first]          # at least one collision along dim
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-DUP", "SC-GAP-DUP-ERR"),
                 "duplicates", src=src)


@st.composite
def out_of_range(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = np.array(unique_along(draw, ishape, axis, shape[axis]))
    n = shape[axis]
    bad = draw(st.sampled_from((n, n + 1, -1, -n - 1) + BAD_INDEX))
    index.flat[draw(st.integers(0, index.size - 1))] = bad
    note = f"index {bad} out of range [0, {n - 1}]"
    if draw(st.booleans()):
        return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-RANGE",), note,
                     value=_value(draw, dt))
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-RANGE",), note, src=src)


@st.composite
def ndim_mismatch(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw, min_rank=2, max_rank=3)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    which = draw(st.sampled_from(("index+1", "index-1", "src+1", "src-1")))
    if which == "index+1":
        index = index[None]
    elif which == "index-1":
        index = np.take(index, 0, axis=(axis + 1) % len(shape))
    elif which == "src+1":
        src = src[None]
    else:
        src = src[..., 0]
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-NDIM",),
                 f"{which.split('+')[0].split('-')[0]} ndim != self ndim", src=src)


@st.composite
def index_larger_than_src(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    ax = draw(st.integers(0, len(ishape) - 1))
    sshape = tuple(s - 1 if j == ax else s + draw(st.integers(0, 1)) for j, s in enumerate(ishape))
    src = draw(arrays(dt, sshape))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-SIZE-SRC",),
                 f"index.size({ax}) > src.size({ax})", src=src)


@st.composite
def index_larger_than_self(draw):
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw, min_rank=2)
    ax = draw(st.sampled_from([j for j in range(len(shape)) if j != axis]))
    ishape = tuple(shape[j] + draw(st.integers(1, 2)) if j == ax else s for j, s in enumerate(ishape))
    index = unique_along(draw, ishape, axis, shape[axis])
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), ("SC-SIZE-SELF",),
                 f"index.size({ax}) > self.size({ax})", src=src)


@st.composite
def int32_index(draw):
    """The source names no index dtype; int64 is torch's, int32 is what other frameworks take."""
    dt = draw(DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis], "int32")
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), (), "int32 index", src=src)


@st.composite
def bad_dim(draw):
    """A dim outside [-ndim, ndim): not stated by the source (torch raises IndexError)."""
    dt = draw(DTYPES)
    shape, _, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    dim = draw(st.sampled_from((len(shape), len(shape) + 1, -len(shape) - 1)))
    src = draw(arrays(dt, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), (), "dim out of range", src=src)


@st.composite
def src_dtype(draw):
    """src of another dtype than self's: the source does not say (torch requires equal dtypes)."""
    dt = draw(DTYPES)
    other = draw(DTYPES.filter(lambda d: d != dt))
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = draw(arrays(other, _src_shape(draw, ishape)))
    return _case(draw(arrays(dt, shape)), index, dim, draw(st.booleans()), (), f"{other} src", src=src)


FAMILIES = {
    "rule": rule(), "value": value_form(), "zero_d": zero_d(), "empty": empty(), "duplicates": duplicates(),
    "out_of_range": out_of_range(), "ndim": ndim_mismatch(), "size_src": index_larger_than_src(),
    "size_self": index_larger_than_self(), "int32_index": int32_index(), "bad_dim": bad_dim(),
    "src_dtype": src_dtype(),
}

"""Cases for torch `scatter` / `scatter_(dim, index, src|value)` (clauses SC-*): the transcript's examples,
the documented errors, and generated forms."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import FLOATS, INTS, dtype_from_name, dtype_name

from oracle.boundary import tie_values
from ..doc_examples import doc_example
from ..error_cases import error_case
from .boundary import ROUNDED, boundary_case as _c, edge_array, float_edges, label as _label, rounded_value
from .common import odd_arrays
from . import aliasing as aliasing_
from .common import (array_of, arrays, coin, ints, make_case, pick, shape_of, shape_text, unique_along,
                     weighted_dtypes)

OP = "scatter"

DTYPES = weighted_dtypes(("float32", "int64"),
                         ("float16", "bfloat16", "float64", "int32", "int16", "int8", "uint8", "bool"))
BAD_INDEX = (2**31, 2**32, 2**31 + 1, 2**32 + 1, 2**63 - 1, -2**63, -2**31 - 1)


def _case(self_, index, dim, inplace, note, src=None, value=None):
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
    return make_case(OP, inputs, params, label)


def _value(draw, dt):
    if dt in ("float32", "float16", "bfloat16", "float64"):
        return pick(draw, (1.23, -0.5, 0.0, -0.0, math.nan, math.inf, -math.inf, 2.0))
    return pick(draw, (1.23, 7.0, -2.0)) if dt != "bool" else 1.0


def _geometry(draw, min_rank=1, max_rank=4):
    """(self shape, dim as passed, axis, index shape with index.size(d) <= self.size(d) everywhere)."""
    shape = shape_of(draw, min_rank, max_rank, max_side=4)
    r = len(shape)
    dim = ints(draw, 0, r - 1) if ints(draw, 0, 3) else ints(draw, -r, -1)
    axis = dim % r
    ishape = tuple(ints(draw, 1, s) for s in shape)
    return shape, dim, axis, ishape


def _src_shape(draw, ishape):
    return tuple(i + ints(draw, 0, 2) for i in ishape)


@st.composite
def rule(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = array_of(draw, dt, _src_shape(draw, ishape))
    note = "index smaller than src" if src.shape != ishape else ""
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), note, src=src)


@st.composite
def value_form(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), "", value=_value(draw, dt))


@st.composite
def zero_d(draw):
    dt = pick(draw, DTYPES)
    self_, index = array_of(draw, dt, ()), np.zeros((), dtype=np.int64)
    dim, inplace = pick(draw, (0, -1)), coin(draw)
    if coin(draw):
        return _case(self_, index, dim, inplace, "0-d", value=_value(draw, dt))
    return _case(self_, index, dim, inplace, "0-d", src=array_of(draw, dt, ()))


@st.composite
def empty(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    ishape = tuple(0 if j == ints(draw, 0, len(ishape) - 1) else s for j, s in enumerate(ishape))
    if 0 not in ishape:
        ishape = (0,) + ishape[1:]
    index = np.zeros(ishape, dtype=np.int64)
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), "empty index", src=src)


@st.composite
def duplicates(draw):
    """SC-DUP: repeated targets along dim; any colliding src value is admissible."""
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    ishape = tuple(s + 1 if j == axis else s for j, s in enumerate(ishape))
    flat = draw(arrays("int64", ishape, specials=False).map(lambda a: np.abs(a) % shape[axis]))
    index = np.array(flat)
    first = tuple(0 for _ in ishape)
    second = tuple(1 if j == axis else 0 for j in range(len(ishape)))
    index[second] = index[first]          # at least one collision along dim
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), "duplicates", src=src)


@st.composite
def out_of_range(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = np.array(unique_along(draw, ishape, axis, shape[axis]))
    n = shape[axis]
    bad = pick(draw, (n, n + 1, -1, -n - 1) + BAD_INDEX)
    index.flat[ints(draw, 0, index.size - 1)] = bad
    note = f"index {bad} out of range [0, {n - 1}]"
    if coin(draw):
        return _case(array_of(draw, dt, shape), index, dim, coin(draw), note, value=_value(draw, dt))
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), note, src=src)


@st.composite
def ndim_mismatch(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw, min_rank=2, max_rank=3)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = array_of(draw, dt, _src_shape(draw, ishape))
    which = pick(draw, ("index+1", "index-1", "src+1", "src-1"))
    if which == "index+1":
        index = index[None]
    elif which == "index-1":
        index = np.take(index, 0, axis=(axis + 1) % len(shape))
    elif which == "src+1":
        src = src[None]
    else:
        src = src[..., 0]
    return _case(array_of(draw, dt, shape), index, dim, coin(draw),
                 f"{which.split('+')[0].split('-')[0]} ndim != self ndim", src=src)


@st.composite
def index_larger_than_src(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    ax = ints(draw, 0, len(ishape) - 1)
    sshape = tuple(s - 1 if j == ax else s + ints(draw, 0, 1) for j, s in enumerate(ishape))
    src = array_of(draw, dt, sshape)
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), f"index.size({ax}) > src.size({ax})",
                 src=src)


@st.composite
def index_larger_than_self(draw):
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw, min_rank=2)
    ax = pick(draw, [j for j in range(len(shape)) if j != axis])
    ishape = tuple(shape[j] + ints(draw, 1, 2) if j == ax else s for j, s in enumerate(ishape))
    index = unique_along(draw, ishape, axis, shape[axis])
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), f"index.size({ax}) > self.size({ax})",
                 src=src)


@st.composite
def int32_index(draw):
    """The source names no index dtype; int64 is torch's, int32 is what other frameworks take."""
    dt = pick(draw, DTYPES)
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis], "int32")
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), "int32 index", src=src)


@st.composite
def bad_dim(draw):
    """A dim outside [-ndim, ndim): not stated by the source (torch raises IndexError)."""
    dt = pick(draw, DTYPES)
    shape, _, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    dim = pick(draw, (len(shape), len(shape) + 1, -len(shape) - 1))
    src = array_of(draw, dt, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), "dim out of range", src=src)


@st.composite
def src_dtype(draw):
    """src of another dtype than self's: the source does not say (torch requires equal dtypes)."""
    dt = pick(draw, DTYPES)
    other = pick(draw, tuple(d for d in DTYPES if d != dt))
    shape, dim, axis, ishape = _geometry(draw)
    index = unique_along(draw, ishape, axis, shape[axis])
    src = array_of(draw, other, _src_shape(draw, ishape))
    return _case(array_of(draw, dt, shape), index, dim, coin(draw), f"{other} src", src=src)


# ---- boundary: values a dtype must round, dtype edges (oracle/*.DOMAIN) ------------------------


@st.composite
def scatter_boundary(draw):
    if coin(draw):
        dt = pick(draw, ROUNDED)
        v = rounded_value(draw, dt)
        n = ints(draw, 1, 4)
        self_ = np.zeros((2, n), dtype_from_name(dt))
        index = np.array([[ints(draw, 0, n - 1)], [ints(draw, 0, n - 1)]], np.int64)
        inputs = {"input": self_, "index": index}
        return make_case(OP, inputs, {"dim": 1, "inplace": coin(draw), "value": v},
                         _label(f"value {v!r} rounds", inputs))
    dt = pick(draw, FLOATS + INTS)
    src = edge_array(draw, dt)
    index = np.random.RandomState(ints(draw, 0, 2**16)).permutation(src.size).astype(np.int64)
    inputs = {"input": np.ones(src.size, src.dtype), "index": index, "src": src}
    return make_case(OP, inputs, {"dim": 0, "inplace": coin(draw)}, _label("edges", inputs))


def boundary_cases():
    """Targeted boundary cases (suites/strategies/boundary.py): one small case per class the draw may miss."""
    out = [
        _c(OP, "self (0, 3), index (0, 2), dim 0: an empty axis", {
            "input": np.zeros((0, 3), F32), "index": np.zeros((0, 2), I64), "src": np.zeros((0, 2), F32)},
           {"dim": 0, "inplace": False}),
        _c(OP, "self (0, 3), index (0, 2), dim 1, in place", {
            "input": np.zeros((0, 3), F32), "index": np.zeros((0, 2), I64), "src": np.zeros((0, 2), F32)},
           {"dim": 1, "inplace": True}),
    ]
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            for inplace in (False, True):
                out.append(_c(OP, f"{dt} self, value {v!r} ({key})", {
                    "input": np.zeros((2, 3), dtype_from_name(dt)), "index": np.array([[1], [2]], I64)},
                    {"dim": 1, "inplace": inplace, "value": v}))
    for dt in FLOATS:       # the edges of each float dtype moved from src into self, every bit kept
        e = float_edges(dt)
        perm = np.arange(e.size, dtype=I64)[::-1].copy()
        out.append(_c(OP, f"{dt} src edges, reversed into self", {
            "input": np.ones(e.size, e.dtype), "index": perm, "src": e}, {"dim": 0, "inplace": False}))
    return out


ALIAS_DTYPES = ("float32", "int64", "float16", "bfloat16", "int32")


@st.composite
def aliasing(draw):
    """scatter/scatter_(dim, index, src) with src a view of self (SC-GAP-ALIAS): the positions written
    overlap the box src reads, or not (the label says which)."""
    dt = pick(draw, ALIAS_DTYPES)
    shape = shape_of(draw, 1, 3, min_side=2, max_side=5)
    overlapping = aliasing_.draw_overlap(draw)
    _write, read = aliasing_.boxes(draw, shape, overlapping)
    r = len(shape)
    dim = ints(draw, 0, r - 1)
    src_shape = tuple(b - a for a, b in read)
    ishape = tuple(ints(draw, 1, s) for s in src_shape)
    index = unique_along(draw, ishape, dim, shape[dim])
    self_ = aliasing_.distinct_array(draw, dt, shape)
    alias = aliasing_.alias_of("input", read)
    written = {tuple(int(index[p]) if i == dim else p[i] for i in range(r)) for p in np.ndindex(*ishape)}
    reads = {tuple(a + p[i] for i, (a, _b) in enumerate(read)) for p in np.ndindex(*ishape)}
    note = f"src = {alias.text()} ({aliasing_.overlap_word(bool(written & reads))} with the positions written)"
    return _case_aliased(self_, index, dim, coin(draw), note, aliasing_.view(self_, read), alias)


def _case_aliased(self_, index, dim, inplace, note, src, alias):
    case = _case(self_, index, dim, inplace, note, src=src)
    return make_case(OP, dict(case.inputs), dict(case.params), case.label, aliases={"src": alias})


FAMILIES = {
    "rule": rule(), "value": value_form(), "zero_d": zero_d(), "empty": empty(), "duplicates": duplicates(),
    "out_of_range": out_of_range(), "ndim": ndim_mismatch(), "size_src": index_larger_than_src(),
    "size_self": index_larger_than_self(), "int32_index": int32_index(), "bad_dim": bad_dim(),
    "src_dtype": src_dtype(),
    "boundary": scatter_boundary(),
    "aliasing": aliasing(),
}
CORPUS_DRAWS = {"rule": 150, "value": 70}      # the wide families


# ---- the transcript's examples and the documented errors ---------------------------------------

F32, I64 = np.float32, np.int64
# torch.rand(2, 5) under seed 20200910, as the transcript prints it (4 decimals: the typed-in src)
_X = np.array([[0.9817, 0.9880, 0.8879, 0.3911, 0.8532], [0.2367, 0.6074, 0.6374, 0.7830, 0.1322]], F32)


def doc_examples():
    dup_index = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]], I64)
    return [
        doc_example(OP, "SC-EX-1 zeros(3, 5).scatter_(0, index, x)", ["SC-EX-1"],
                    {"input": np.zeros((3, 5), F32), "index": dup_index, "src": _X}, {"dim": 0, "inplace": True},
                    {"out": np.array([[0.9817, 0.6074, 0.6374, 0.3911, 0.8532], [0.0, 0.9880, 0.0, 0.7830, 0.0],
                                      [0.2367, 0.0, 0.8879, 0.0, 0.1322]], F32)}),
        doc_example(OP, "SC-EX-2 zeros(2, 4).scatter_(1, [[2], [3]], 1.23)", ["SC-EX-2"],
                    {"input": np.zeros((2, 4), F32), "index": np.array([[2], [3]], I64)},
                    {"dim": 1, "value": 1.23, "inplace": True},
                    {"out": np.array([[0.0, 0.0, 1.23, 0.0], [0.0, 0.0, 0.0, 1.23]], F32)}),
        doc_example(OP, "SC-EX-3 zeros(3, 5).scatter_(1, [[0, 1, 2], [2, 0, 1]], x)", ["SC-EX-3"],
                    {"input": np.zeros((3, 5), F32), "index": np.array([[0, 1, 2], [2, 0, 1]], I64), "src": _X},
                    {"dim": 1, "inplace": True},
                    {"out": np.array([[0.9817, 0.9880, 0.8879, 0.0, 0.0], [0.6074, 0.6374, 0.2367, 0.0, 0.0],
                                      [0.0, 0.0, 0.0, 0.0, 0.0]], F32)}),
        # The transcript's failing call: repeats along dim 1; torch 1.2 raised "Invalid index in scatter".
        doc_example(OP, "SC-GAP-DUP-ERR zeros(3, 5).scatter_(1, index with repeats, x) raised in torch 1.2",
                    ["SC-GAP-DUP-ERR"],
                    {"input": np.zeros((3, 5), F32), "index": dup_index, "src": _X}, {"dim": 1, "inplace": True}, {}),
    ]


def error_cases():
    src = np.arange(1, 11, dtype=F32).reshape(2, 5)
    index = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]], I64)  # the doc's dim-0 example
    base = {"input": np.zeros((3, 5), F32), "index": index, "src": src}
    p = {"dim": 0, "inplace": True}
    # SC-RANGE names no class: the transcript's RuntimeError is the repeated-index call's, so any class conforms
    return [
        error_case(OP, "SC-RANGE", None, "index 3 on a dim of size 3",
                   {**base, "index": np.array([[0, 1, 2, 0, 3], [2, 0, 0, 1, 2]], I64)}, p),
        error_case(OP, "SC-RANGE", None, "index -1",
                   {**base, "index": np.array([[0, 1, 2, 0, -1], [2, 0, 0, 1, 2]], I64)}, p),
        error_case(OP, "SC-RANGE", None, "index 2**32 (wraps to 0 in 32 bits)",
                   {**base, "index": np.array([[0, 1, 2, 0, 2**32], [2, 0, 0, 1, 2]], I64)}, p),
        error_case(OP, "SC-SIZE-SRC", None, "index 2x5, src 2x4", {**base, "src": src[:, :4]}, p),
    ]


# ---- odd but well-formed cases: the oracle answers each without crashing (tests/test_oracle_expect.py) ----
@st.composite
def _odd(draw):
    params = {"dim": draw(st.one_of(st.integers(-4, 4), st.booleans())), "inplace": draw(st.booleans())}
    inputs = {"input": draw(odd_arrays()), "index": draw(odd_arrays())}
    if draw(st.booleans()):
        inputs["src"] = draw(odd_arrays())
    else:
        params["value"] = draw(st.one_of(st.floats(), st.integers(-300, 300), st.booleans()))
    return Case(op=OP, inputs=inputs, params=params)


ODD_CASES = _odd()


def well_formed(case) -> str:
    """What a generated scatter case promises beyond the decoder: dim an int, inplace always given."""
    p = case.params
    if not isinstance(p.get("dim"), int) or not isinstance(p.get("inplace"), bool):
        return f"dim {p.get('dim')!r} must be an int and inplace {p.get('inplace')!r} a bool"
    return ""

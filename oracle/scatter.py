"""torch scatter / scatter_ (seed torch.Tensor.scatter_.txt): self[p with p[dim] = index[p]] = src[p].

Readings the document leaves to the oracle: repeated targets are SC-DUP (scatter.conflict.1: the transcript
raises, the supplement states no consequence), answered "raises, or returns with each element hit more than
once holding one of the values aimed at it" (rule CHOICES); the index dtype is the seed's int64 (another
integer dtype: raises, or SC-RULE's value; SC-GAP-DTYPE); a src of another dtype: raises, or its values in
self's dtype where they convert exactly (open where not); a negative dim counts from the end (SC-GAP-DIM,
natural value); a value self's dtype cannot hold is SC-GAP-VALUE-CAST; SC-NDIM's "must" with no
consequence and no value is open.
"""
from __future__ import annotations

import numpy as np

from dataclasses import dataclass
from typing import Optional

from contract.dtypes import cast, converts_exactly, dtype_name, holds, is_float, is_int, is_number, to_dtype
from . import kernels
from .errors import Either, Open, Unspecified, accepting, run_checks, value_reading
from .readings.scatter import READING
from contract.expectation import CHOICES, EXACT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, alias_gap_row, own_array, malformed, need_input, need_param

_NO_VALUE = object()
MAX_CHOICES = 1 << 24       # elements in a CHOICES answer (k candidates x self.size)
DTYPES = {"index": ("int64",)}      # SC-GAP-DTYPE: the seed only shows torch.tensor([...]): int64
INDEX_DTYPES = DTYPES["index"]


def solve(self_, dim, index, src=None, value=_NO_VALUE, index_dtypes=INDEX_DTYPES, gap="SC-GAP-DTYPE"):
    """({"out": ExpectedArray}, clauses) for the out-of-place scatter; raises SpecError / Either / Unspecified.

    Every check of CHECKS decides on its own whether its clause applies; the answer is their composition
    (errors.Open); the value is computed only where no documented error holds and the inputs give one."""
    self_, index = np.asarray(self_), np.asarray(index)
    value_form = value is not _NO_VALUE
    if value_form == (src is not None):
        raise ValueError("scatter needs exactly one of src and value")
    clauses = ["SC-RULE"] + (["SC-VALUE"] if value_form else [])
    op = Open()
    call = _Call(self_, _dim_of(dim, self_.ndim), dim, index, None if value_form else np.asarray(src),
                 index_dtypes, gap)
    run_checks(CHECKS, call, op)
    if op.errors or not _computable(call):
        op.raise_if_any(clauses=clauses)
    vals = _values(self_, index, call.src, value, value_form, op)
    if vals is None:
        op.raise_if_any(clauses=clauses)
    outputs = _write(self_, call.dim, index, vals, op)
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(clauses)


@dataclass(frozen=True)
class _Call:
    self_: np.ndarray
    dim: Optional[int]          # dim counted from the start; None where it names no axis of self
    given_dim: object
    index: np.ndarray
    src: Optional[np.ndarray]   # None in the value form
    index_dtypes: tuple
    gap: str


def _computable(c) -> bool:
    """SC-RULE gives a value (the natural one where a gap is open): equal ndims, a dim of self, integer index."""
    ndims = {c.self_.ndim, c.index.ndim} | (set() if c.src is None else {c.src.ndim})
    return (len(ndims) == 1 and c.dim is not None and is_int(c.index.dtype)
            and all(i <= s for d, (i, s) in enumerate(zip(c.index.shape, c.self_.shape)) if d != c.dim))


def _dim_of(dim, ndim):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or ndim == 0 or not -ndim <= dim < ndim:
        return None
    return int(dim) % ndim


def _check_ndim(c, op):
    ndims = [c.self_.ndim, c.index.ndim] + ([] if c.src is None else [c.src.ndim])
    if len(set(ndims)) != 1:    # SC-NDIM: a "must" with no consequence, and SC-RULE gives no value then
        op.note("SC-NDIM", f"self, index{'' if c.src is None else ', src'} have ndims {ndims}")


def _check_dim(c, op):
    if c.dim is None:
        op.note("SC-GAP-DIM", f"dim={c.given_dim!r} for {c.self_.ndim}-d tensors")
    elif c.given_dim < 0:
        op.note("SC-GAP-DIM", f"negative dim={c.given_dim}: counting from the end is the natural reading")


def _check_size_src(c, op):
    # SC-SIZE-SRC: "index.size(d) <= src.size(d) for all dimensions d", over the dimensions both have
    if c.src is not None and any(i > s for i, s in zip(c.index.shape, c.src.shape)):
        op.error("SC-SIZE-SRC", None, f"index shape {list(c.index.shape)} exceeds src {list(c.src.shape)}")


def _check_size_self(c, op):
    # SC-SIZE-SELF: "除了在dim维度上,index.size(d) <= self.size(d)." (in every dim but dim, index.size(d) <=
    # self.size(d)) names no consequence, unlike the src sentence before it ("否则索引越界"): a precondition, and
    # SC-RULE gives no value for a position outside self -- open, not an error.  Decided where dim names an axis
    if c.dim is not None and any(i > s for d, (i, s) in enumerate(zip(c.index.shape, c.self_.shape))
                                 if d != c.dim):
        op.note("SC-SIZE-SELF", f"index shape {list(c.index.shape)} exceeds self {list(c.self_.shape)} "
                                f"off dim {c.dim}")


def _check_index_dtype(c, op):
    if not is_int(c.index.dtype):
        op.note(c.gap, f"index dtype {c.index.dtype} is not an integer type")
    elif dtype_name(c.index.dtype) not in c.index_dtypes:
        # another integer dtype: whether it is accepted is open; SC-RULE gives the value if it is
        op.note_accept(c.gap, f"index dtype {c.index.dtype}: the document shows {', '.join(c.index_dtypes)} only")


def _check_range(c, op):
    # SC-RANGE: the document calls such an index out of bounds and names no class: any exception conforms
    # (decided where dim names an axis of self and the index holds integers)
    if c.dim is None or not c.index.size or not is_int(c.index.dtype):
        return
    lo, hi = c.index.min(), c.index.max()
    if lo < 0 or hi >= c.self_.shape[c.dim]:
        op.error("SC-RANGE", None, f"index values span [{lo}, {hi}], outside [0, {c.self_.shape[c.dim] - 1}] "
                                   f"on dim {c.dim}")


CHECKS = (_check_ndim, _check_dim, _check_size_src, _check_size_self, _check_index_dtype, _check_range)


def _values(self_, index, src, value, value_form, op):
    """The value written at each index position, in self's dtype, shape index.shape."""
    if value_form:
        if not is_number(value):
            op.note("SC-VALUE", f"value={value!r} is not a number")
            op.raise_if_any()
        value = value.item() if isinstance(value, np.generic) else value
        if not holds(self_.dtype, value):
            op.note("SC-GAP-VALUE-CAST", f"value={value!r} is not representable in {self_.dtype}")
            if not is_float(self_.dtype):
                op.raise_if_any()
        return np.broadcast_to(to_dtype(self_.dtype, value), index.shape)
    used = src[tuple(slice(0, n) for n in index.shape)]
    with np.errstate(all="ignore"):     # the natural value of a mismatched src dtype is NumPy's cast
        vals = cast(used, self_.dtype)
    if src.dtype != self_.dtype:
        # accepted, src's values land in self's dtype: fixed where they convert exactly, open where not
        note = op.note_accept if converts_exactly(used, vals) else op.note
        note("SC-GAP-DTYPE", f"src dtype {src.dtype} differs from self {self_.dtype}")
    return vals


def _targets(shape, dim, index):
    """Flat (C-order) position in self written by each index position."""
    strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    # the offset of each fibre is small (1 along dim): build it first, then one pass over index
    off = np.zeros([1 if d == dim else n for d, n in enumerate(index.shape)], np.intp)
    for d, n in enumerate(index.shape):
        if d != dim and n > 1:
            off += np.arange(0, n * strides[d], strides[d], dtype=np.intp).reshape(
                [-1 if e == d else 1 for e in range(index.ndim)])
    scaled = index if strides[dim] == 1 else np.multiply(index, strides[dim], dtype=np.intp)
    return np.add(scaled, off, dtype=np.intp).ravel()


def _write(self_, dim, index, vals, op):
    out = np.array(self_, copy=True, order="C")
    if index.size == 0:
        return {"out": ExpectedArray(out, EXACT)}
    flat = out.reshape(-1)
    if index.size >= kernels.LARGE:
        t = None        # blocked: the targets of a block, its store and its marks stay in cache
        distinct = kernels.scatter_store(flat, self_.shape, dim, index, vals)
    else:
        t = _targets(self_.shape, dim, index)
        written = np.zeros(flat.size, bool)
        written[t] = True
        distinct = int(np.count_nonzero(written))
        if distinct == t.size:
            flat[t] = vals.ravel()
    if distinct == index.size:
        return {"out": ExpectedArray(out, EXACT)}      # SC-RULE: every position is written once
    # SC-DUP (scatter.conflict.1): the transcript raises for repeats (no class named), or the call returns
    # with each element hit more than once holding one of the values aimed at it
    op.note_accept("SC-DUP", f"{index.size - distinct} index positions collide along dim {dim}")
    t = _targets(self_.shape, dim, index) if t is None else t
    k = int(np.bincount(t).max())
    if k * flat.size > MAX_CHOICES:     # the set-valued answer is k full copies of self: keep memory sane
        op.note("SC-DUP", f"{k} colliding writes on {flat.size} elements: too many to enumerate the choices")
        return {}
    choices = _choices(flat, t, vals.ravel()).reshape(-1, *self_.shape)
    return {"out": ExpectedArray(choices[0].copy(), CHOICES, choices=choices)}


def _choices(base, t, v):
    """(K, base.size): row 0 is the last write in C order (a sequential loop's answer), rows 1.. the other
    colliding values; elements with fewer than K candidates repeat row 0."""
    order = np.argsort(t, kind="stable")
    ts, vs = t[order], v[order]
    start = np.r_[True, ts[1:] != ts[:-1]]
    first = np.flatnonzero(start)
    counts = np.diff(np.r_[first, ts.size])
    gid = np.cumsum(start) - 1
    rank_from_last = counts[gid] - 1 - (np.arange(ts.size) - first[gid])
    k = int(counts.max())
    choices = np.repeat(base[None], k, axis=0)
    choices[rank_from_last, ts] = vs
    n = np.zeros(base.size, np.intp)
    n[ts[first]] = counts
    pad = np.arange(k)[:, None] >= np.maximum(n, 1)[None]
    return np.where(pad, choices[0][None], choices)


# ---- the documented domain (oracle/boundary.py; docs/CASES.md, "Domain coverage") -----------------
# (imported here so the domain stays one block of this module)
import math  # noqa: E402

from contract.dtypes import FLOATS, INTS  # noqa: E402

from . import boundary as bd  # noqa: E402


def _d_dim(case):
    """The dim as an axis of self (negative counted from the end), or None when it names none."""
    d, r = case.params.get("dim"), bd.ndim(case, "input")
    return d % r if bd.is_int(d) and r > 0 and -r <= d < r else None


def _d_dim_is(test):
    return lambda c: bd.is_int(c.params.get("dim")) and test(c.params["dim"], bd.ndim(c, "input"))


def _d_index_at(test):
    def pred(case):
        d, idx = _d_dim(case), case.inputs.get("index")
        if d is None or idx is None or np.size(idx) == 0 or not is_int(idx.dtype):
            return False
        n = bd.shape(case, "input")[d]
        return any(test(int(i), n) for i in np.unique(idx))
    return pred


def _d_sides(case, other, test, off_dim=False):
    """index.size(k) against other.size(k) (every k, or every k but dim), when the ndims agree."""
    ish, osh, d = bd.shape(case, "index"), bd.shape(case, other), _d_dim(case)
    if other not in case.inputs or len(ish) != len(osh) or (off_dim and d is None):
        return False
    return any(test(i, o) for k, (i, o) in enumerate(zip(ish, osh)) if not (off_dim and k == d))


def _d_value_into(case):
    """(self's dtype, value) of the value form."""
    v = case.params.get("value")
    return ((bd.dtype(case, "input"), v),) if is_number(v) and "src" not in case.inputs else ()


def _d_value_is(test):
    return lambda c: "src" not in c.inputs and isinstance(c.params.get("value"), float) and test(c.params["value"])


def _d_collides(case):
    d, idx = _d_dim(case), case.inputs.get("index")
    if d is None or idx is None or np.size(idx) == 0:
        return False
    s = np.sort(np.moveaxis(np.asarray(idx), d, -1), axis=-1)
    return bool((s[..., 1:] == s[..., :-1]).any())


_B = bd.Boundary
# Boundary kinds the document gives this op nothing to (suites.completeness): kind -> why.
DOMAIN_WITHOUT = {'default': 'dim, index and src (or value) are all required; the page names no default'}

DOMAIN = [
    _B("self", "rank 0", "range", "0-d self, index and src (SC-GAP-DIM)", lambda c: bd.ndim(c, "input") == 0),
    _B("self", "rank 1", "range", "1-d tensors", lambda c: bd.ndim(c, "input") == 1),
    _B("self", "rank 4", "range", "4-d tensors (no documented maximum; the suite draws up to 4)",
       lambda c: bd.ndim(c, "input") == 4),
    _B("self", "side 0", "range", "self with an empty axis (and an empty index)", lambda c: 0 in bd.shape(c, "input")),
    _B("self", "size(dim) 1", "range", "self.size(dim) = 1: the only legal index is 0",
       lambda c: _d_dim(c) is not None and bd.shape(c, "input")[_d_dim(c)] == 1),
    _B("self", "size(dim) 2", "range", "self.size(dim) = 2",
       lambda c: _d_dim(c) is not None and bd.shape(c, "input")[_d_dim(c)] == 2),
    _B("dim", "0", "range", "dim 0", _d_dim_is(lambda d, r: d == 0 and r > 0)),
    _B("dim", "ndim-1", "range", "dim ndim-1 (the last legal)", _d_dim_is(lambda d, r: r > 1 and d == r - 1)),
    _B("dim", "-1", "range", "dim -1 (counted from the end: SC-GAP-DIM)", _d_dim_is(lambda d, r: d == -1)),
    _B("dim", "-ndim", "range", "dim -ndim (the first legal negative)", _d_dim_is(lambda d, r: r > 1 and d == -r)),
    _B("dim", "ndim", "range", "dim ndim (one past: SC-GAP-DIM)", _d_dim_is(lambda d, r: d == r)),
    _B("dim", "-ndim-1", "range", "dim -ndim-1 (one past, negative)", _d_dim_is(lambda d, r: d == -r - 1)),
    _B("index", "value 0", "range", "an index value 0", _d_index_at(lambda i, n: i == 0)),
    _B("index", "value size-1", "range", "an index value self.size(dim)-1 (the last legal)",
       _d_index_at(lambda i, n: n > 1 and i == n - 1)),
    _B("index", "value size", "range", "an index value self.size(dim) (one past: SC-RANGE)",
       _d_index_at(lambda i, n: i == n)),
    _B("index", "value -1", "range", "an index value -1 (SC-RANGE)", _d_index_at(lambda i, n: i == -1)),
    _B("index", "empty", "range", "an index with no element", lambda c: 0 in bd.shape(c, "index")),
    _B("index", "size = src size", "range", "index.size(d) == src.size(d) on some d (the edge of SC-SIZE-SRC)",
       lambda c: _d_sides(c, "src", lambda i, o: i == o)),
    _B("index", "size = src size + 1", "range", "index.size(d) == src.size(d) + 1 (one past: SC-SIZE-SRC)",
       lambda c: _d_sides(c, "src", lambda i, o: i == o + 1)),
    _B("index", "size = self size off dim", "range", "index.size(d) == self.size(d) for a d != dim "
       "(the edge of SC-SIZE-SELF)", lambda c: _d_sides(c, "input", lambda i, o: i == o, off_dim=True)),
    _B("index", "size = self size + 1 off dim", "range", "index.size(d) == self.size(d) + 1 for a d != dim "
       "(one past: SC-SIZE-SELF)", lambda c: _d_sides(c, "input", lambda i, o: i == o + 1, off_dim=True)),
    _B("index", "full along dim", "range", "index.size(dim) == self.size(dim): every position along dim written",
       lambda c: _d_dim(c) is not None and len(bd.shape(c, "index")) == bd.ndim(c, "input")
       and bd.shape(c, "index")[_d_dim(c)] == bd.shape(c, "input")[_d_dim(c)]),
    _B("index", "ndim differs", "range", "index of another ndim than self (SC-NDIM)",
       lambda c: bd.ndim(c, "index") != bd.ndim(c, "input")),
    _B("index", "repeats along dim", "form", "an index value repeated along dim (SC-DUP)", _d_collides),
    _B("index", "int64", "form", "an int64 index (the dtype the source shows)", lambda c: bd.dtype(c, "index") == "int64"),
    _B("index", "int32", "form", "an int32 index (SC-GAP-DTYPE)", lambda c: bd.dtype(c, "index") == "int32"),
    _B("src", "index's shape", "form", "src of index's shape", lambda c: "src" in c.inputs
       and bd.shape(c, "src") == bd.shape(c, "index")),
    _B("src", "larger than index", "form", "src larger than index (only index's part is read)",
       lambda c: "src" in c.inputs and bd.ndim(c, "src") == bd.ndim(c, "index")
       and bd.shape(c, "src") != bd.shape(c, "index") and _d_sides(c, "src", lambda i, o: i <= o)
       and not _d_sides(c, "src", lambda i, o: i > o)),
    _B("src", "another dtype", "form", "src of another dtype than self (SC-GAP-DTYPE)",
       lambda c: "src" in c.inputs and bd.dtype(c, "src") != bd.dtype(c, "input")),
    _B("value", "given", "form", "a scalar value instead of src (SC-VALUE)",
       lambda c: "src" not in c.inputs and "value" in c.params),
    _B("value", "NaN", "edge", "value NaN", _d_value_is(math.isnan)),
    _B("value", "inf", "edge", "value +inf or -inf", _d_value_is(math.isinf)),
    _B("value", "-0.0", "edge", "value -0.0", _d_value_is(lambda v: v == 0 and math.copysign(1, v) < 0)),
    _B("value", "into an int self", "range", "a value an int self cannot hold (1.23: SC-GAP-VALUE-CAST)",
       lambda c: any(d in INTS and not holds(d, v) for d, v in _d_value_into(c))),
    *bd.rounding_rows("value", ("float16", "bfloat16", "float32"), _d_value_into, "the value written into self",
                      classes=bd.TIES + ("double",)),
    _B("inplace", "scatter_", "form", "scatter_: self written in place", lambda c: c.params.get("inplace") is True),
    _B("inplace", "scatter", "form", "scatter: a new tensor", lambda c: c.params.get("inplace") is False),
    *bd.edge_rows("src", ("src",), FLOATS + INTS, " (moved bit for bit)"),
]


def scatter(input, dim, index, src=None, *, value=None):
    """torch `input.scatter(dim, index, src)` / `scatter(dim, index, value=v)`: a new array.

    Raises SpecError (documented error), Either (acceptance open: duplicates, another integer index dtype;
    .outputs holds the accepting reading's value) or Unspecified (.natural: the NumPy-semantics value)."""
    if value is None and src is None:
        raise ValueError("scatter needs src or value")
    outputs = value_reading(solve, input, dim, index, src, _NO_VALUE if value is None else value)
    return outputs["out"].value


# ---- the op's declaration: document, clauses, case contract, decoder (docs/SPEC.md) --------------

@dataclass(frozen=True)
class ScatterCall:
    """`input.scatter(dim, index, src)`, `scatter(dim, index, value=v)`, or scatter_ when `inplace`."""
    input: object
    dim: object
    index: object
    src: object             # None in the value form
    value: object           # _NO_VALUE in the src form
    inplace: bool

    @property
    def src_or_value(self):
        """The third argument as a user passes it: the src tensor or the scalar value."""
        return self.value if self.src is None else self.src


def decode(case, inputs=None) -> ScatterCall:
    self_ = need_input(case, "input", inputs)
    index = need_input(case, "index", inputs)
    dim = need_param(case, "dim")
    if ("src" in case.inputs) == ("value" in case.params):
        raise malformed(case, "give exactly one of inputs.src and params.value")
    src = need_input(case, "src", inputs) if "src" in case.inputs else None
    value = case.params["value"] if src is None else _NO_VALUE
    return ScatterCall(self_, dim, index, src, value, case.params.get("inplace", False))


def solve_case(case):
    a = decode(case)
    try:
        outputs, clauses = solve(a.input, a.dim, a.index, a.src, a.value)
    except Unspecified as e:
        e.natural = _with_input(e.natural, a.input, a.inplace)
        raise
    except Either as e:
        e.outputs = _with_input(e.outputs, a.input, a.inplace)
        raise
    # SC-INPLACE is cited where its condition holds: scatter_ (writes into self).  The out-of-place scatter
    # leaves self as it was, which every clause's value already says: citing SC-INPLACE there would charge it
    # with failures of the value (reports/model.py blame)
    return _with_input(outputs, a.input, a.inplace), (*clauses, *(("SC-INPLACE",) if a.inplace else ()))


def _with_input(outputs, self_, inplace):
    # SC-INPLACE: scatter_ leaves self equal to the result; scatter leaves it untouched
    if "out" not in outputs:
        return outputs
    return {"out": outputs["out"], "input": outputs["out"] if inplace else ExpectedArray(np.array(self_))}


@accepting()        # the oracle as a candidate returns the accepting reading of an either answer
def call(case, inputs=None) -> dict:
    a = decode(case, inputs)
    self_ = own_array(a.input, inputs)
    kw = {} if a.src is not None else {"value": a.value}
    out = scatter(self_, a.dim, a.index, a.src, **kw)
    if a.inplace:
        self_[...] = out        # scatter_ writes into self (SC-INPLACE)
    return {"out": out, "input": self_}


def repro(case, literal) -> tuple:
    a = decode(case)
    last = "src" if a.src is not None else f"value={literal(a.value)}"
    call = [f"out = oracle.scatter(input, {literal(a.dim)}, index, {last})"]
    after = ["input[...] = out   # scatter_ writes into self (SC-INPLACE)"] if a.inplace else []
    return call, after, {"out": "out", "input": "input"}

def generic_call(case, api, literal, array) -> list:
    """`out = api(input, dim, index, src or value)` (adapters/repro.generic_repro)."""
    last = "src" if "src" in case.inputs else literal(case.params["value"])
    return [f"out = {api}(input, {literal(case.params['dim'])}, index, {last})"]


def _native_api(case) -> str:
    return "oracle.scatter (as scatter_)" if case.params.get("inplace") else "oracle.scatter"


_SUPPLEMENT = "Supplement (the rules after the description)"
_SESSION = "Code experiment (the torch 1.2 session)"
SPEC = OpSpec(
    reading=READING,
    name="scatter", source="torch.Tensor.scatter_.txt",
    title="torch Tensor.scatter_ / scatter (a description with a torch 1.2 session transcript)",
    clause_rows=(
        ("SC-RULE", "sem", "Function description", "for every position p of index: self[p with p[dim] = index[p]] = src[p]"),
        ("SC-VALUE", "sem", _SUPPLEMENT, "a float value may replace src: every indexed position gets the value"),
        ("SC-NDIM", "uns", _SUPPLEMENT, "self, index and src have the same number of dims (no consequence named)"),
        ("SC-RANGE", "err", f"{_SUPPLEMENT}; {_SESSION}",
         "every index value is in [0, self.size(dim) - 1], else the call raises (no class is named: the "
         "transcript's RuntimeError is raised for repeated in-range indices)"),
        ("SC-SIZE-SRC", "err", _SUPPLEMENT, "index.size(d) <= src.size(d) for every d"),
        ("SC-SIZE-SELF", "uns", _SUPPLEMENT, "index.size(d) <= self.size(d) for every d != dim (no consequence "
                                             "named)"),
        ("SC-DUP", "uns", _SUPPLEMENT, "index values along dim must not repeat; the winner of a collision is not "
                                       "defined"),
        ("SC-INPLACE", "sem", "Reference links (the two signatures)", "scatter_ writes into self; scatter returns a new tensor"),
        ("SC-EX-1", "ex", f"{_SESSION}: the dim-0 call", "the dim-0 example"),
        ("SC-EX-2", "ex", f"{_SESSION}: the scalar 1.23 call", "the scalar 1.23 example"),
        ("SC-EX-3", "ex", f"{_SESSION}: the last dim-1 call", "the dim-1 [[0,1,2],[2,0,1]] example"),
        ("SC-GAP-DUP-ERR", "gap", f"{_SESSION}: the call that raised",
         "the source shows an old torch raising for a dim-1 case with repeats; current torch does not"),
        ("SC-GAP-DTYPE", "gap", _SESSION, "index dtype (the source shows int64 only), a src dtype other than "
                                          "self's, bool/float index: not stated", ADDED),
        ("SC-GAP-DIM", "gap", "Function description", "a negative or out-of-range dim, and 0-d tensors: not stated",
         ADDED),
        ("SC-GAP-VALUE-CAST", "gap", _SUPPLEMENT, "a value self's dtype cannot hold (1.23 into an int tensor): not "
                                                  "stated", ADDED),
        alias_gap_row("SC", "Parameters: src; scatter_", "for scatter_ (which writes into self), src is"),
    ),
    inputs=(Field("input", "self"), Field("index", "the index"),
            Field("src", "the src tensor (absent in the value form)", required=False)),
    params=(Field("dim", "the dim"),
            Field("inplace", "true: scatter_ (self is written); false or absent: scatter", required=False),
            Field("value", "the scalar of the value form (absent otherwise)", required=False)),
    outputs=(Field("out", "what the call returned"),
             Field("input", "self after the call: unchanged for scatter, equal to out for scatter_")),
    decode=decode, solve=solve_case, reference=scatter, call=call, repro=repro, generic_call=generic_call,
    generic_outputs={"out": "out", "input": "input"}, dtypes=DTYPES,
    native_api=_native_api,
    # scatter.ref.1: "scatter(dim, index, source) → Tensor" is the out-of-place form (SC-INPLACE): it writes
    # nothing, so a src that is a view of self is only read; the gap is scatter_'s, which writes into self
    writes_nothing=lambda case: None if case.params.get("inplace", False) else "SC-INPLACE",
)

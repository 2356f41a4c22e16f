"""torch scatter / scatter_ (seed torch.Tensor.scatter_.txt): self[p with p[dim] = index[p]] = src[p].

Readings the document leaves to the oracle: repeated targets are SC-DUP (`uns`: the page says index values
must not repeat), answered as unspecified with the set of colliding values per element (rule CHOICES); the
index dtype is the seed's int64 (others: SC-GAP-DTYPE with the natural value); a negative dim counts from
the end (SC-GAP-DIM, natural value); a value self's dtype cannot hold is SC-GAP-VALUE-CAST.
"""
from __future__ import annotations

import numpy as np

from contract.dtypes import DOCUMENTED, cast, dtype_name, holds, is_float, is_int, is_number, to_dtype
from .errors import Open, SpecError
from contract.expectation import CHOICES, EXACT, ExpectedArray

_NO_VALUE = object()
MAX_CHOICES = 1 << 24       # elements in a CHOICES answer (k candidates x self.size)
INDEX_DTYPES = DOCUMENTED["scatter"]["index"]      # SC-GAP-DTYPE: the seed only shows torch.tensor([...]): int64


def solve(self_, dim, index, src=None, value=_NO_VALUE, index_dtypes=INDEX_DTYPES, gap="SC-GAP-DTYPE"):
    """({"out": ExpectedArray}, clauses) for the out-of-place scatter; raises SpecError / Unspecified."""
    self_, index = np.asarray(self_), np.asarray(index)
    value_form = value is not _NO_VALUE
    if value_form == (src is not None):
        raise ValueError("scatter needs exactly one of src and value")
    clauses = ["SC-RULE"] + (["SC-VALUE"] if value_form else [])
    op = Open()
    ndims = [self_.ndim, index.ndim] + ([] if value_form else [np.ndim(src)])
    if len(set(ndims)) != 1:    # SC-NDIM
        raise SpecError("SC-NDIM", None, f"self, index{'' if value_form else ', src'} have ndims {ndims}", clauses)
    dim = _dim(dim, self_.ndim, op)
    if not value_form:
        src = np.asarray(src)
        if any(i > s for i, s in zip(index.shape, src.shape)):     # SC-SIZE-SRC
            raise SpecError("SC-SIZE-SRC", None, f"index shape {list(index.shape)} exceeds src {list(src.shape)}",
                            clauses)
    if any(i > s for d, (i, s) in enumerate(zip(index.shape, self_.shape)) if d != dim):    # SC-SIZE-SELF
        raise SpecError("SC-SIZE-SELF", None, f"index shape {list(index.shape)} exceeds self {list(self_.shape)} "
                        f"off dim {dim}", clauses)
    if not is_int(index.dtype):
        op.note(gap, f"index dtype {index.dtype} is not an integer type")
        op.raise_if_any()
    if dtype_name(index.dtype) not in index_dtypes:
        op.note(gap, f"index dtype {index.dtype}: the document shows {', '.join(index_dtypes)} only")
    if index.size and (index.min() < 0 or index.max() >= self_.shape[dim]):    # SC-RANGE
        raise SpecError("SC-RANGE", "RuntimeError", f"index values span [{index.min()}, {index.max()}], "
                        f"outside [0, {self_.shape[dim] - 1}] on dim {dim}", clauses)
    vals = _values(self_, index, src, value, value_form, op)
    outputs = _write(self_, dim, index, vals, op)
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(clauses)


def _dim(dim, ndim, op):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or ndim == 0 or not -ndim <= dim < ndim:
        op.note("SC-GAP-DIM", f"dim={dim!r} for {ndim}-d tensors")
        op.raise_if_any()
    if dim < 0:
        op.note("SC-GAP-DIM", f"negative dim={dim}: counting from the end is the natural reading")
    return int(dim) % ndim


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
    if src.dtype != self_.dtype:
        op.note("SC-GAP-DTYPE", f"src dtype {src.dtype} differs from self {self_.dtype}")
    with np.errstate(all="ignore"):     # the natural value of a mismatched src dtype is NumPy's cast
        return cast(src[tuple(slice(0, n) for n in index.shape)], self_.dtype)


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
    t = _targets(self_.shape, dim, index)
    written = np.zeros(flat.size, bool)
    written[t] = True
    if np.count_nonzero(written) == t.size:
        flat[t] = vals.ravel()          # SC-RULE: every position is written once
        return {"out": ExpectedArray(out, EXACT)}
    # SC-DUP: two index positions hit one element; any of the colliding src values may win
    op.note("SC-DUP", f"{t.size - np.count_nonzero(written)} index positions collide along dim {dim}")
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


def scatter(input, dim, index, src=None, *, value=None):
    """torch `input.scatter(dim, index, src)` / `scatter(dim, index, value=v)`: a new array.

    Raises SpecError (documented error) or Unspecified (duplicates, undocumented dtypes; .natural holds the
    admissible values)."""
    if value is None and src is None:
        raise ValueError("scatter needs src or value")
    outputs, _ = solve(input, dim, index, src, _NO_VALUE if value is None else value)
    return outputs["out"].value

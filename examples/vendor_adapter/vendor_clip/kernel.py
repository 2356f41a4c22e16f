"""The 'vendor implementation' of pypto clip, in NumPy.

Deliberate quirk, for the worked example to find: the lower bound is applied
last (`max(min(x, hi), lo)` instead of the documented `min(max(x, lo), hi)`),
so where lo > hi this returns lo; the document (CL-MIN-GT-MAX) says hi.
Everywhere lo <= hi the two orders agree, which is why such a bug survives
hand-written examples.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Element:
    """A scalar with a dtype, like pypto's Element."""
    value: float
    dtype: np.dtype


def clip(x, min=None, max=None):
    x = np.asarray(x)
    out = x.copy()
    if max is not None:
        out = np.minimum(out, _operand(max, x, "max"))
    if min is not None:
        out = np.maximum(out, _operand(min, x, "min"))     # the quirk: lo wins over hi
    return out.astype(x.dtype, copy=False)


def _operand(b, x, name):
    if isinstance(b, Element):
        if np.dtype(b.dtype) != x.dtype:
            raise TypeError(f"clip: {name} Element has dtype {np.dtype(b.dtype)}, input has {x.dtype}")
        return np.asarray(b.value, dtype=x.dtype)
    if isinstance(b, np.ndarray):
        if b.dtype != x.dtype:
            raise TypeError(f"clip: {name} tensor has dtype {b.dtype}, input has {x.dtype}")
        return b
    return np.asarray(b).astype(x.dtype)      # a Python scalar becomes an Element of the input dtype


def scatter(input, dim, index, src, inplace=False):
    """`input.scatter(dim, index, src)`: out[..., index[i][j], ...] = src[i][j] along `dim`; `src` a tensor
    or a scalar.  Written with NumPy's fancy indexing, so it inherits NumPy's rules where the document
    has its own (a negative index counts from the end; a src of another dtype is cast)."""
    input, index = np.asarray(input), np.asarray(index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"scatter: index must be an integer tensor, got {index.dtype}")
    if index.ndim != input.ndim:
        raise ValueError(f"scatter: index has {index.ndim} dimensions, input has {input.ndim}")
    out = input if inplace else input.copy()
    if np.ndim(src) == 0:
        values = np.full(index.shape, src, dtype=input.dtype)
    else:
        values = np.asarray(src)[tuple(slice(0, n) for n in index.shape)].astype(input.dtype)
    where = list(np.indices(index.shape, sparse=True))
    where[dim] = index
    out[tuple(where)] = values
    return out

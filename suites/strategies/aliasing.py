"""Regions of one array for aliasing cases (contract.case.Alias): an input that is a view of another input.

An op module's `aliasing` family draws a base array and two boxes of it: the one the call writes (or a
stand-in for it) and the one the view reads, either overlapping on every axis or apart on at least one,
so the corpus holds both `a[:, 1:] = a[:, :-1]` and `a[:2] = a[2:]`.  The oracle's answer to each is the
aliasing gap (<prefix>-GAP-ALIAS: raises, or the value as if the view had been copied first).
This module declares no OP: it is a helper of the op modules, not an op's strategies.
"""
from __future__ import annotations

import numpy as np

from contract.case import Alias

from .common import coin, ints, pick


# How the box read lies against the box written, for an overlapping view: shifted back along one axis (read
# behind: `a[:, 1:] = a[:, :-1]`, what an in-order write corrupts), shifted forward (read ahead: what a
# backward write corrupts), or the very box (`a[r] = a[r]`).  Read-behind first: the draws shrink to it.
OVERLAPS = ("behind", "ahead", "same")


def boxes(draw, shape, overlapping: bool) -> tuple:
    """(write box, read box), each a tuple of (start, stop) per axis of `shape` (every side >= 2), of one
    size: overlapping (one of OVERLAPS, shifted along one axis of at least 3) or apart on one axis at least."""
    if overlapping:
        how = pick(draw, OVERLAPS)
        long_axes = [a for a, n in enumerate(shape) if n >= 3]
        if how == "same" or not long_axes:
            box = []
            for length in shape:
                size = ints(draw, 1, length)
                p = ints(draw, 0, length - size)
                box.append((p, p + size))
            return tuple(box), tuple(box)
        axis = pick(draw, long_axes)
    else:
        axis = ints(draw, 0, len(shape) - 1)
    write, read = [], []
    for a, length in enumerate(shape):
        if a != axis:
            size = ints(draw, 1, length)
            p = ints(draw, 0, length - size)
            q = p if overlapping else ints(draw, 0, length - size)
        elif overlapping:       # a shift by d, 0 < d < size, the read box before (behind) or after the written one
            size = ints(draw, 2, length - 1)
            d = ints(draw, 1, min(size - 1, length - size))
            lo = ints(draw, 0, length - size - d)
            p, q = (lo + d, lo) if how == "behind" else (lo, lo + d)
        else:                   # apart: the two intervals do not meet
            size = ints(draw, 1, length // 2)
            p, q = pick(draw, [(p, q) for p in range(length - size + 1) for q in range(length - size + 1)
                               if abs(p - q) >= size])
        write.append((p, p + size))
        read.append((q, q + size))
    return tuple(write), tuple(read)


def alias_of(base_name: str, box) -> Alias:
    return Alias(base_name, tuple((start, stop, 1) for start, stop in box))


def view(base, box):
    """The data the aliased input holds: base's box (contract.case.view_of checks the case agrees)."""
    return base[tuple(slice(a, b) for a, b in box)].copy()


def overlap_word(overlapping: bool) -> str:
    return "overlapping" if overlapping else "disjoint"


def draw_overlap(draw) -> bool:
    return coin(draw)


def distinct_array(draw, dtype: str, shape):
    """A base array of distinct values (a shuffled run of small integers centred on 0, exact in every dtype
    drawn here: at most 125 elements): an element read after it was overwritten then always shows, where
    drawn values (which shrink towards all zeros) would often hide it."""
    from contract.dtypes import dtype_from_name
    n = int(np.prod(shape, dtype=np.int64))
    values = np.arange(n, dtype=np.int64) - n // 2
    values = np.random.RandomState(ints(draw, 0, 2**32 - 1)).permutation(values)
    return values.reshape(shape).astype(dtype_from_name(dtype))

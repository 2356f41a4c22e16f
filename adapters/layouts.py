"""Layouts: one case's inputs handed to a framework in another memory layout, the same logical values.

Every input reaches a framework as a fresh contiguous tensor by default (`CONTIGUOUS`).  Real kernels
break on other layouts: one reads a non-contiguous or offset input in storage order instead of logical
order, has a fast path only for contiguous inputs, or writes through a zero-stride view.  An adapter that
can build a layout natively (with the framework's own view ops: slicing, `view`, `expand`) declares it in
`Adapter.layouts`; `NAME@LAYOUT` runs every case with its inputs in that layout (adapters/registry.py), and
the main job compares it with the default layout's answer (suites/variants.py, docs/DESIGN.md "Layouts").

What this module decides, framework-free: which inputs a layout applies to and, for each, the `Plan`: the
contiguous base array the framework builds its tensor from (the case's values spread out, bit for bit:
raw bits for bf16, by the converters) and the view it then takes of that tensor.  `claim_problem` says
whether the tensor the framework built really has the layout (strides, offset, contiguity), so a layout
that silently became contiguous is an error, never a quiet pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from contract.vocabulary import CONTIGUOUS, EXPANDED, LAYOUTS, OFFSET, STRIDED  # noqa: F401  (the names, once)

OFFSET_ELEMENTS = 1         # one element: the storage start is misaligned for every element size over one


class LayoutError(AssertionError):
    """A tensor built for a layout is not in that layout (the framework made it contiguous, or a copy)."""


@dataclass(frozen=True)
class Plan:
    layout: str
    shape: tuple             # the case input's shape: the logical shape of the view
    base: np.ndarray         # what the framework's contiguous tensor is built from
    axis: Optional[int]      # STRIDED: the axis taken every other element; EXPANDED: the zero-stride axis

    def index(self) -> tuple:
        """STRIDED: the basic index taking every other element along `axis` of the base."""
        return tuple(slice(None, None, 2) if i == self.axis else slice(None) for i in range(len(self.shape)))


def reported_back(op: str) -> set:
    """The inputs the op's call reports back (written, or checked unchanged): never expanded, since a
    zero-stride view cannot be written element by element."""
    from oracle.registry import spec
    return {f.name for f in spec(op).outputs} | {f.name for f in spec(op).inputs if f.reported_as}


def plans(layout: str, case) -> dict:
    """{input name: Plan or None (that input stays contiguous)} for the case's array inputs."""
    if layout in ("", CONTIGUOUS):
        return {k: None for k in case.inputs}
    from oracle.registry import spec
    written = reported_back(case.op) if layout == EXPANDED else set()
    storage = {f.name for f in spec(case.op).inputs if f.storage}     # its storage is what the op reads
    return {k: None if k in storage else plan(layout, np.asarray(v), read_only=k not in written)
            for k, v in case.inputs.items()}


def plan(layout: str, a: np.ndarray, read_only: bool = True) -> Optional[Plan]:
    """How to build `a` in `layout`, or None where the layout cannot faithfully hold its values: an empty
    array, STRIDED with no axis of length >= 2 (a stride on a length-1 axis is invisible: such a tensor is
    contiguous), EXPANDED for an input the call writes or with no axis of length >= 2 along which the values
    are constant (bit for bit)."""
    if a.size == 0 or layout not in LAYOUTS:
        return None
    shape = tuple(a.shape)
    if layout == OFFSET:
        return Plan(OFFSET, shape, np.concatenate([np.zeros(OFFSET_ELEMENTS, a.dtype), a.reshape(-1)]), None)
    if layout == STRIDED:
        axis = next((i for i in reversed(range(a.ndim)) if shape[i] >= 2), None)
        if axis is None:
            return None
        # the values at even positions, a marker at odd ones: a kernel reading storage order reads markers
        base = np.stack([a, _marker(a)], axis=axis + 1).reshape(shape[:axis] + (2 * shape[axis],) + shape[axis + 1:])
        return Plan(STRIDED, shape, base, axis)
    if not read_only:
        return None
    raw = _bits(a)
    axis = next((i for i in range(a.ndim) if shape[i] >= 2 and np.array_equal(raw, np.broadcast_to(
        raw.take([0], axis=i), shape))), None)
    if axis is None:
        return None
    return Plan(EXPANDED, shape, np.ascontiguousarray(a.take([0], axis=axis)), axis)


def view_of(base, p: Plan):
    """The view `p` describes of `base`, the framework's contiguous tensor of p.base, taken with the
    framework's own ops (torch and mindspore spell them alike: basic slicing, `view`, `expand`); refused
    (LayoutError) unless the framework reports the layout claimed."""
    if p.layout == OFFSET:
        t = base[OFFSET_ELEMENTS:].view(p.shape)
    elif p.layout == STRIDED:
        t = base[p.index()]
    else:
        t = base.expand(p.shape)
    why = claim_problem(p, t.shape, t.stride(), t.storage_offset(), t.is_contiguous())
    if why:
        raise LayoutError(why)
    return t


def view_text(p: Plan) -> str:
    """view_of's view as source text after the base tensor's expression (a repro builds what the run did)."""
    if p.layout == OFFSET:
        return f"[{OFFSET_ELEMENTS}:].view({p.shape!r})"
    if p.layout == STRIDED:
        return "[" + ", ".join("::2" if i == p.axis else ":" for i in range(len(p.shape))) + "]"
    return f".expand({p.shape!r})"


def claim_problem(p: Plan, shape, strides, offset: int, contiguous: bool) -> str:
    """Why a tensor with these properties is not `p`'s layout ('' when it is); strides in elements."""
    shape, strides = tuple(int(s) for s in shape), tuple(int(s) for s in strides)
    if shape != p.shape:
        return f"{p.layout}: shape {list(shape)}, not {list(p.shape)}"
    dense = contiguous_strides(shape)
    if p.layout == OFFSET:
        ok = offset == OFFSET_ELEMENTS and contiguous and strides == dense
        want = f"storage offset {OFFSET_ELEMENTS}, contiguous strides {list(dense)}"
    elif p.layout == STRIDED:
        ok = not contiguous and offset == 0 and strides[p.axis] == 2 * dense[p.axis]
        want = f"non-contiguous, stride {2 * dense[p.axis]} on axis {p.axis}"
    else:
        ok = not contiguous and strides[p.axis] == 0
        want = f"non-contiguous, stride 0 on axis {p.axis}"
    if ok:
        return ""
    return (f"{p.layout}: the tensor built has strides {list(strides)}, storage offset {offset}, "
            f"{'contiguous' if contiguous else 'non-contiguous'}; the layout is {want}")


def contiguous_strides(shape) -> tuple:
    """Row-major strides, in elements, of a dense tensor of `shape`."""
    out, step = [], 1
    for s in reversed(tuple(shape)):
        out.append(step)
        step *= max(int(s), 1)
    return tuple(reversed(out))


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of each element, so equal means bit for bit (NaN payloads, -0.0)."""
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else a


def _marker(a: np.ndarray) -> np.ndarray:
    """Values a storage-order read would see between the real ones: each element's bits inverted, so none
    equals its neighbour (bool: its negation)."""
    if a.dtype == np.bool_:
        return ~a
    if a.dtype.itemsize not in (1, 2, 4, 8):
        return np.zeros_like(a)
    return (~_bits(a)).view(a.dtype)

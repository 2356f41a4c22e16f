"""pypto Tensor.__setitem__ (seed pypto.Tensor.setitem.txt): assemble-style slice assignment, scalars, scatter form.

Readings the document leaves to the oracle (each cited where it is applied):
- a key shorter than the target leaves the trailing axes open, and Ellipsis expands to open axes; both
  count as slices for SI-MIXED (so `a[2] = row` on a 2-d target is the mixed form `a[2, :]`);
- SI-MIXED-N applies when the key as written mixes ints with slices or Ellipsis; the count compared with
  the value's ndim is that of the slices the key holds (an Ellipsis counts the axes it spans; an axis the
  key leaves out is no slice in the key: setitem.cons.7 read as written);
- an open stop takes its extent from the value (SI-ASSEMBLE); an explicit stop that disagrees is
  SI-GAP-REGION ("raises, or the value assembled at the starts"); a region past the target, an int outside its axis or too many indices SI-GAP-RANGE;
- `c[:] = v` with v's shape different from c's is SI-GAP-MOVE (the "move" wording and the assemble rule
  disagree): refused, v moved in, or v assembled at the origin where it fits -- exactly those whole arrays
  (ExpectedArray.alternatives); a value dtype other than the target's SI-GAP-DTYPE (natural: NumPy's cast).
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping      # not typing.Mapping: isinstance on it costs ten times more
from dataclasses import dataclass

import numpy as np

from contract.codec import CodecError
from contract.dtypes import cast, dtype_name, holds, holds_exactly, is_float, is_number, to_dtype
from .errors import Either, Open, SpecError, Unspecified, accepting, run_checks, value_reading
from .readings.setitem import READING
from contract.expectation import EXACT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, alias_gap_row, malformed, need_input, need_param
from .scatter import solve as _scatter_solve

_INT = (int, np.integer)
DTYPES = {"scalar_target": ("int32",),          # SI-VAL-S: DT_INT32 only
          "scatter_indices": ("int32",)}        # SI-EX-7 uses DT_INT32 indices


def _is_int(v) -> bool:
    return isinstance(v, _INT) and not isinstance(v, (bool, np.bool_))


def solve(target, key, value):
    """({"target": ExpectedArray}, clauses) for `target[key] = value`; raises SpecError / Unspecified."""
    target = np.asarray(target)
    if isinstance(key, slice) and isinstance(key.stop, np.ndarray):
        return _scatter_form(target, key, value)
    clauses = ["SI-KEY"]        # SI-INPLACE is cited where the region leaves elements of the target (_outside)
    elems = key if isinstance(key, tuple) else (key,)
    op = Open()
    # Each stage's checks decide on their own (run_checks); a stage runs only where the ones before it
    # leave a key to read -- setitem documents no error, so a finding an earlier stage leaves open already
    # makes the answer open whatever the later stages would add (errors.Open, rule 2)
    run_checks([_check_ellipses, *(functools.partial(_check_element, e) for e in elems)], elems, op)
    if op:
        # NumPy gives steps and tensor indices a meaning; bools, floats and bad forms get none
        numpy_means_it = all(c in ("SI-STEP", "SI-TINDEX") for c in op.clauses)
        natural = _numpy_natural(target, key, value) if numpy_means_it else None
        op.raise_if_any({} if natural is None else {"target": ExpectedArray(natural)}, clauses)
    axes = _expand(elems, target.ndim, op)          # [(kind, a, b)]: ("int", i, None) | ("slice", start, stop|None)
    if op:
        op.raise_if_any()
    axes = _normalise(axes, target.shape, op, clauses)
    if op:
        op.raise_if_any({}, clauses)
    mixed = any(_is_int(e) for e in elems) and any(isinstance(e, slice) or e is Ellipsis for e in elems)
    if isinstance(value, np.ndarray):
        out = _tensor_value(target, elems, axes, value, mixed, op, clauses)
    else:
        out = _scalar_value(target, axes, value, op, clauses)
    outputs = {} if out is None else {"target": out if isinstance(out, ExpectedArray) else ExpectedArray(out, EXACT)}
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(dict.fromkeys(clauses))


def _scatter_form(target, key, value):
    # SI-SCATTER: a[d:indices] = values is scatter(a, d, indices, values); the doc's indices are DT_INT32
    # like every other form, it writes into a; SI-INPLACE ("elements outside the region keep their values")
    # is cited where the indices cannot reach every element
    clauses = ("SI-KEY", *(("SI-INPLACE",) if np.size(key.stop) < target.size else ()), "SI-SCATTER")
    if not _is_int(key.start) or key.step is not None or not isinstance(value, np.ndarray):
        raise Unspecified("SI-SCATTER", f"scatter form needs an int start, no step and a tensor value; got "
                          f"start={key.start!r}, step={key.step!r}, value {type(value).__name__}", clauses)
    try:
        outputs, more = _scatter_solve(target, key.start, key.stop, value,
                                       index_dtypes=DTYPES["scatter_indices"])
    except SpecError as e:
        e.clauses = tuple(dict.fromkeys((*clauses, *e.clauses)))
        raise
    except Unspecified as e:
        e.clauses = tuple(dict.fromkeys((*clauses, *e.clauses)))
        e.natural = {"target": e.natural["out"]} if "out" in e.natural else {}
        raise
    except Either as e:
        e.clauses = tuple(dict.fromkeys((*clauses, *e.clauses)))
        e.outputs = {"target": e.outputs["out"]} if "out" in e.outputs else {}
        raise
    return {"target": outputs["out"]}, (*clauses, *more)


def _check_ellipses(elems, op):
    if sum(e is Ellipsis for e in elems) > 1:
        op.note("SI-KEY", "more than one Ellipsis")


def _check_element(e, elems, op):
    if isinstance(e, (bool, np.bool_)):
        op.note("SI-BOOL", f"bool index {e!r}")          # SI-BOOL
    elif isinstance(e, np.ndarray):
        op.note("SI-TINDEX", f"tensor index of {e.dtype}{list(e.shape)}")      # SI-TINDEX
    elif isinstance(e, slice):
        bounds = (e.start, e.stop)
        if any(isinstance(b, np.ndarray) for b in (*bounds, e.step)):
            op.note("SI-SCATTER", "a tensor slice bound is the scatter form only as the whole key a[d:indices]")
        elif not all(b is None or _is_int(b) for b in (*bounds, e.step)):
            op.note("SI-KEY", f"slice bounds must be ints: {e!r}")
        elif e.step is not None and e.step != 1:
            op.note("SI-STEP", f"slice step {e.step}")      # SI-STEP
    elif e is not Ellipsis and not _is_int(e):
        op.note("SI-KEY", f"key element {e!r} is not an int, a slice or Ellipsis")


def _expand(elems, ndim, op):
    # SI-ELLIPSIS: Ellipsis stands for the unnamed axes; a short key leaves the trailing axes open
    named = [e for e in elems if e is not Ellipsis]
    if len(named) > ndim:
        op.note("SI-GAP-RANGE", f"{len(named)} indices for a {ndim}-d target")
        return []
    fill = [("slice", None, None)] * (ndim - len(named))
    axes = []
    for e in elems:
        if e is Ellipsis:
            axes += fill
            fill = []
        elif isinstance(e, slice):
            axes.append(("slice", e.start, e.stop))
        else:
            axes.append(("int", int(e), None))
    return axes + fill


def _normalise(axes, shape, op, clauses):
    out = [None] * len(shape)
    neg = []

    def axis(i, op):
        (kind, a, b), n = axes[i], shape[i]
        if (a is not None and a < 0) or (b is not None and b < 0):
            neg.append(i)                               # SI-NEG: negative ints and bounds count from the end
        if kind == "int":
            if not -n <= a < n:
                op.note("SI-GAP-RANGE", f"index {a} on an axis of {n}")
            out[i] = ("int", a % n if n else a, None)
            return
        start = 0 if a is None else (a + n if a < 0 else a)
        stop = None if b is None else (b + n if b < 0 else b)
        if not 0 <= start <= n or (stop is not None and not 0 <= stop <= n):
            op.note("SI-GAP-RANGE", f"slice {a}:{b} on an axis of {n}")
        out[i] = ("slice", start, stop)
    run_checks([functools.partial(axis, i) for i in range(min(len(axes), len(shape)))], op)
    if neg:
        clauses.append("SI-NEG")
    return out[:len(axes)]


def _tensor_value(target, elems, axes, value, mixed, op, clauses):
    clauses.append("SI-VAL-T")
    slices = [(s, e) for kind, s, e in axes if kind == "slice"]
    if not slices:
        # every axis an int: single-element assignment, whose value the doc makes a scalar (SI-VAL-S)
        op.note("SI-VAL-S", f"a {value.dtype}{list(value.shape)} tensor value for a single-element key")
        natural = _numpy_natural(target, _numpy_key(axes, None), value)
        op.raise_if_any({} if natural is None else {"target": ExpectedArray(natural)}, clauses)
    c = _Assign(target, elems, axes, value, mixed, slices)
    run_checks((_check_value_ndim,), c, op)
    if op.value_open:
        natural = _numpy_natural(target, _numpy_key(axes, None), value)
        op.raise_if_any({} if natural is None else {"target": ExpectedArray(natural)}, clauses)
    # the value's dims match the sliced axes: each rule on the region decides on its own
    run_checks(_REGION_CHECKS, c, op)
    if any(e is None for _, e in slices):
        clauses.append("SI-ASSEMBLE")
    if any(e is Ellipsis for e in elems):
        clauses.append("SI-ELLIPSIS")
    if mixed or any(kind == "int" for kind, _, _ in axes):
        clauses.append("SI-MIXED")      # SI-MIXED: int axes are dropped; the value is reshaped with 1s there
    if c.move:
        if value.shape != target.shape:
            return _moved(target, value)
        clauses.append("SI-EMPTY")      # SI-EMPTY: equal shapes, a full assemble
    if c.past_target:
        return None
    out = target.copy()
    region = tuple(slice(a, a + 1) if kind == "int" else slice(a, a + v)
                   for (kind, a, _), v in zip(axes, _per_axis(axes, value.shape)))
    shape = [1 if kind == "int" else v for (kind, _, _), v in zip(axes, _per_axis(axes, value.shape))]
    with np.errstate(all="ignore"):     # a mismatched dtype (SI-GAP-DTYPE) casts as NumPy does
        out[region] = cast(value.reshape(shape), target.dtype)
    _outside(target, value.size, clauses)
    return out


def _outside(target, written, clauses):
    """SI-INPLACE ("modifies the target in place; elements outside the region keep their values") is cited
    where its condition holds: the region leaves some element of the target outside it.  A write of the
    whole target exercises only the region's own rules, and citing SI-INPLACE there would charge it with
    their failures (reports/model.py blame)."""
    if written < target.size:
        clauses.append("SI-INPLACE")


@dataclass(frozen=True)
class _Assign:
    """`target[key] = value` with a tensor value, the key read into axes (for the checks below)."""
    target: np.ndarray
    elems: tuple
    axes: list
    value: np.ndarray
    mixed: bool
    slices: list                # [(start, stop|None)] of the sliced axes

    @property
    def move(self) -> bool:
        return len(self.elems) == 1 and self.elems[0] == slice(None)

    @property
    def past_target(self) -> bool:
        """The region the value takes (its extents at the slices' starts) runs past the target."""
        sizes = [n for (kind, _, _), n in zip(self.axes, self.target.shape) if kind == "slice"]
        return not self.move and any(s + e > n for (s, _), e, n in zip(self.slices, self.value.shape, sizes))


def _moved(target, value):
    """The readings of setitem.conflict.1 that return: v moved in, and v assembled at the origin where it
    fits (its ndim and every side within the target's): an ExpectedArray admitting each whole array."""
    if value.dtype != target.dtype:
        return None                     # SI-GAP-DTYPE leaves the value open already
    fits = value.ndim == target.ndim and all(v <= n for v, n in zip(value.shape, target.shape))
    assembled = ()
    if fits:
        a = target.copy()
        a[tuple(slice(0, v) for v in value.shape)] = value
        assembled = (a,)
    return ExpectedArray(value.copy(), EXACT, alternatives=assembled)


def _check_value_ndim(c, op):
    if c.move and c.value.shape != c.target.shape:
        return                          # the whole target is the region: setitem.conflict.1 (_check_move)
    # setitem.cons.7: "混合索引（int/SymbolicScalar与slice组合）赋值时，key中slice的个数必须与value的维度数一致" (for a
    # mixed key, the number of slices *in the key* must equal the value's ndim): the slices the key holds, an
    # Ellipsis standing for the axes it spans (SI-ELLIPSIS); a trailing axis the key leaves out is no slice in it
    written = len(c.slices) if any(e is Ellipsis for e in c.elems) else sum(isinstance(e, slice) for e in c.elems)
    if c.mixed and c.value.ndim != written:
        op.note("SI-MIXED-N", f"value of {c.value.ndim} dims for a key that holds {written} slice(s)")
    elif c.value.ndim != len(c.slices):
        # SI-VAL-T: a "must" with no consequence and no value for the region to take (docs/SPEC.md,
        # "Preconditions"): any outcome but a crash
        op.note("SI-VAL-T", f"value of {c.value.ndim} dims for {len(c.slices)} sliced axes")


def _check_region(c, op):
    # SI-ASSEMBLE: an open slice takes its extent from the value; an explicit one that disagrees is
    # setitem.conflict.2 (SI-GAP-REGION): refused (no class named), or assembled at the starts with the
    # value's extents, as the examples do -- so the region is the value's either way
    for (s, e), v in zip(c.slices, c.value.shape):
        if e is not None and max(e - s, 0) != v:
            op.note_accept("SI-GAP-REGION", f"slice {s}:{e} holds {max(e - s, 0)}, the value has {v}: refused, "
                                            "or the value assembled at the slice's start")


def _check_dtype(c, op):
    if c.value.dtype != c.target.dtype:
        op.note("SI-GAP-DTYPE", f"value dtype {c.value.dtype} into a {c.target.dtype} target")


def _check_move(c, op):
    # setitem.conflict.1: "move" makes the target v (its shape and values); the assemble reading refuses a
    # value that does not match the region (no class named) or places it at the origin where it fits.  The
    # value is fixed either way: exactly those arrays (_moved) or an error
    if c.move and c.value.shape != c.target.shape:
        op.note_accept("SI-GAP-MOVE", f"c[:] = v with v {list(c.value.shape)} and c {list(c.target.shape)}: "
                                      "refused, v moved in (the target becomes v), or v assembled at the origin "
                                      "where it fits")


def _check_past_target(c, op):
    if c.past_target:
        op.note("SI-GAP-RANGE", f"a region of {list(c.value.shape)} at {[s for s, _ in c.slices]} runs past the "
                                f"target {list(c.target.shape)}")


_REGION_CHECKS = (_check_region, _check_dtype, _check_move, _check_past_target)


def _per_axis(axes, vshape):
    it = iter(vshape)
    return [1 if kind == "int" else next(it) for kind, _, _ in axes]


def _numpy_key(axes, vshape):
    """A NumPy key: ints, explicit stops as given, open stops from the value (or to the end without one)."""
    it = iter(vshape or ())
    key = []
    for kind, a, b in axes:
        if kind == "int":
            key.append(a)
        else:
            v = next(it, None)
            key.append(slice(a, b if b is not None else (a + v if v is not None else None)))
    return tuple(key)


def _scalar_value(target, axes, value, op, clauses):
    clauses.append("SI-VAL-S")
    value = value.item() if isinstance(value, np.generic) else value
    run_checks(_SCALAR_CHECKS, target, axes, value, op)
    if not isinstance(value, (bool, int, float)) or not (holds(target.dtype, value) or is_float(target.dtype)):
        return None
    out = target.copy()
    out[_numpy_key(axes, None)] = to_dtype(target.dtype, value)
    _outside(target, 1, clauses)
    return out


def _scalar_note(op, target, value):
    """note_accept where the target holds the value exactly (the value is fixed if accepted), else note."""
    return op.note_accept if is_number(value) and holds_exactly(target.dtype, value) else op.note


def _check_scalar_kind(target, axes, value, op):
    if isinstance(value, float):
        _scalar_note(op, target, value)("SI-FLOATSCALAR", f"float scalar {value!r}")    # SI-FLOATSCALAR
    elif not is_number(value):
        op.note("SI-VAL-S", f"scalar {value!r} is not an int")
    elif dtype_name(target.dtype) in DTYPES["scalar_target"] and not holds(target.dtype, value):
        op.note("SI-GAP-DTYPE", f"{value} does not fit int32")


def _check_scalar_target(target, axes, value, op):
    if is_number(value) and dtype_name(target.dtype) not in DTYPES["scalar_target"]:
        _scalar_note(op, target, value)("SI-VAL-S", f"a scalar into a {target.dtype} target: single-element "
                                                    "assignment is DT_INT32 only")


def _check_scalar_region(target, axes, value, op):
    if any(kind == "slice" for kind, _, _ in axes):
        op.note("SI-VAL-S", "a scalar value with a key that selects a region, not one element")


# SI-FLOATSCALAR ("not supported for now") and SI-VAL-S's DT_INT32-only target name no consequence: refused
# with any class, or accepted with the element set to the value, where the target holds it exactly
_SCALAR_CHECKS = (_check_scalar_kind, _check_scalar_target, _check_scalar_region)


def _numpy_natural(target, key, value):
    """NumPy's own meaning of `target[key] = value` (value cast to the target's dtype), or None."""
    try:
        out = target.copy()
        # NumPy's deprecated leniencies (size-1 arrays into a scalar slot, out-of-range indices into an empty
        # selection) are no meaning to offer: as errors they give no natural value, on any NumPy version
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            return _numpy_assign(out, key, value)
    except (IndexError, ValueError, TypeError, DeprecationWarning):
        return None


def _numpy_assign(out, key, value):
    if isinstance(value, np.ndarray):
        out[key] = cast(value, out.dtype)
    elif is_number(value) and (is_float(out.dtype) or holds(out.dtype, value)):
        out[key] = to_dtype(out.dtype, value)
    else:
        return None
    return out


# ---- the documented domain (oracle/boundary.py; docs/CASES.md, "Domain coverage") -----------------
# (imported here so the domain stays one block of this module)
from collections.abc import Mapping as _Mapping  # noqa: E402

from contract.dtypes import FLOATS, INTS  # noqa: E402

from . import boundary as bd  # noqa: E402


def _d_key(case):
    return case.params.get("key")


def _d_elems(case) -> list:
    key = _d_key(case)
    return list(key["tuple"]) if isinstance(key, _Mapping) and "tuple" in key else [key]


def _d_is_slice(e) -> bool:
    return isinstance(e, _Mapping) and "slice" in e


def _d_scatter_form(case) -> bool:
    key = _d_key(case)
    return _d_is_slice(key) and isinstance(key["slice"][1], _Mapping)


def _d_axes(case) -> list:
    """[(key element, size of the axis it indexes)] for the named elements (Ellipsis expanded away)."""
    if _d_scatter_form(case):
        return []
    sides = bd.shape(case, "target")
    elems = _d_elems(case)
    if "..." in elems:
        k = elems.index("...")
        before, after = elems[:k], elems[k + 1:]
        return list(zip(before, sides)) + (list(zip(after, sides[len(sides) - len(after):])) if after else [])
    return list(zip(elems, sides))


def _d_ints(case):
    return [(e, n) for e, n in _d_axes(case) if bd.is_int(e)]


def _d_slices(case):
    """[(start, stop, step, axis size)] of the slice elements with int-or-None bounds."""
    out = []
    for e, n in _d_axes(case):
        if _d_is_slice(e) and all(b is None or bd.is_int(b) for b in e["slice"]):
            out.append((*e["slice"], n))
    return out


def _d_int_at(test):
    return lambda c: any(test(i, n) for i, n in _d_ints(c))


def _d_slice_at(test):
    return lambda c: any(test(a, b, s, n) for a, b, s, n in _d_slices(c))


def _d_value(case):
    return case.inputs.get("value")


def _d_assembled_shorter(case, explicit):
    """A sliced axis whose value extent is shorter than the slice (open stop: assemble; explicit: a gap)."""
    v = _d_value(case)
    if v is None or _d_scatter_form(case) or "..." in _d_elems(case):
        return False
    sliced = [(e, n) for e, n in _d_axes(case) if _d_is_slice(e)]
    ints = [e for e, _ in _d_axes(case) if bd.is_int(e)]
    if len(sliced) + len(ints) != len(_d_elems(case)) or len(sliced) != np.ndim(v):
        return False
    for (e, n), ext in zip(sliced, np.shape(v)):
        start, stop, _ = e["slice"]
        if not all(b is None or bd.is_int(b) for b in (start, stop)):
            continue
        lo = 0 if start is None else (start + n if start < 0 else start)
        hi = n if stop is None else (stop + n if stop < 0 else stop)
        if (stop is not None) == explicit and ext < hi - lo:
            return True
    return False


def _d_indices_at(test):
    def pred(case):
        if not _d_scatter_form(case):
            return False
        d, idx = _d_key(case)["slice"][0], case.inputs.get("indices")
        sides = bd.shape(case, "target")
        if not bd.is_int(d) or idx is None or not 0 <= d < len(sides) or np.size(idx) == 0:
            return False
        return any(test(int(i), sides[d]) for i in np.unique(idx))
    return pred


_B = bd.Boundary
_ALL_DTYPES = FLOATS + INTS
# Boundary kinds the document gives this op nothing to (suites.completeness): kind -> why.
DOMAIN_WITHOUT = {'rounding': "the only scalar is an int into DT_INT32; a tensor value has the target's dtype"}

DOMAIN = [
    _B("target", "rank 0", "range", "a 0-d target", lambda c: bd.ndim(c, "target") == 0),
    _B("target", "rank 1", "range", "a 1-d target", lambda c: bd.ndim(c, "target") == 1),
    _B("target", "rank 4", "range", "a 4-d target (the page states no maximum; the suite draws up to 4)",
       lambda c: bd.ndim(c, "target") == 4),
    _B("target", "side 0", "range", "a target with an empty axis", lambda c: 0 in bd.shape(c, "target")),
    _B("target", "side 1", "range", "a target with a side of 1", lambda c: 1 in bd.shape(c, "target")),
    _B("target", "side 2", "range", "a target with a side of 2", lambda c: 2 in bd.shape(c, "target")),
    _B("key", "int", "form", "a[i]: one int", lambda c: bd.is_int(_d_key(c))),
    _B("key", "slice", "form", "a[s:e]: one slice", lambda c: _d_is_slice(_d_key(c)) and not _d_scatter_form(c)),
    _B("key", "tuple of ints", "form", "a[i, j]: ints only",
       lambda c: "tuple" in (_d_key(c) or {}) and _d_elems(c) and all(bd.is_int(e) for e in _d_elems(c))),
    _B("key", "ints and slices", "form", "a[i, s:e]: a mixed key (SI-MIXED)",
       lambda c: any(bd.is_int(e) for e in _d_elems(c)) and any(_d_is_slice(e) for e in _d_elems(c))),
    _B("key", "Ellipsis first", "form", "a[..., s:e]", lambda c: len(_d_elems(c)) > 1 and _d_elems(c)[0] == "..."),
    _B("key", "Ellipsis last", "form", "a[s:e, ...]", lambda c: len(_d_elems(c)) > 1 and _d_elems(c)[-1] == "..."),
    _B("key", "Ellipsis between", "form", "a[i, ..., s:e]",
       lambda c: "..." in _d_elems(c)[1:-1]),
    _B("key", "Ellipsis alone", "form", "a[...]", lambda c: _d_elems(c) == ["..."]),
    _B("key", "Ellipsis for no axis", "form", "an Ellipsis that stands for zero axes (the rest name every axis)",
       lambda c: "..." in _d_elems(c) and len(_d_elems(c)) - 1 == bd.ndim(c, "target")),
    _B("key", "empty tuple", "form", "a[()]: the empty key of a 0-d target", lambda c: _d_elems(c) == []),
    _B("key", "shorter than the rank", "form", "fewer key elements than dims, no Ellipsis: the rest are open",
       lambda c: "..." not in _d_elems(c) and not _d_scatter_form(c)
       and 0 < len(_d_elems(c)) < bd.ndim(c, "target")),
    _B("key", "one more index than dims", "range", "rank+1 indices (SI-GAP-RANGE)",
       lambda c: len([e for e in _d_elems(c) if e != "..."]) == bd.ndim(c, "target") + 1),
    _B("key", "scatter form", "form", "a[d:indices] (SI-SCATTER)", _d_scatter_form),
    _B("key", "bool", "form", "a bool index (unsupported: SI-BOOL)",
       lambda c: any(isinstance(e, bool) for e in _d_elems(c))
       or any(bd.dtype(c, e["tensor"]) == "bool" for e in _d_elems(c) if isinstance(e, _Mapping) and "tensor" in e)),
    _B("key", "tensor index", "form", "a tensor index a[b] (unsupported: SI-TINDEX)",
       lambda c: any(isinstance(e, _Mapping) and "tensor" in e for e in _d_elems(c))),
    _B("key int", "0", "range", "an int index 0", _d_int_at(lambda i, n: i == 0)),
    _B("key int", "-1", "range", "an int index -1 (counts from the end: SI-NEG)", _d_int_at(lambda i, n: i == -1)),
    _B("key int", "size-1", "range", "an int index size-1 (the last legal)", _d_int_at(lambda i, n: i == n - 1)),
    _B("key int", "-size", "range", "an int index -size (the first legal negative)",
       _d_int_at(lambda i, n: n > 0 and i == -n)),
    _B("key int", "size", "range", "an int index size (one past: SI-GAP-RANGE)", _d_int_at(lambda i, n: i == n)),
    _B("key int", "-size-1", "range", "an int index -size-1 (one past, negative)", _d_int_at(lambda i, n: i == -n - 1)),
    _B("slice start", "omitted", "form", "s omitted (:e)", _d_slice_at(lambda a, b, s, n: a is None)),
    _B("slice start", "0", "default", "start 0 written out (0:e, the default)", _d_slice_at(lambda a, b, s, n: a == 0)),
    _B("slice start", "1", "range", "start 1", _d_slice_at(lambda a, b, s, n: a == 1)),
    _B("slice start", "size-1", "range", "start size-1 (the last that selects something)",
       _d_slice_at(lambda a, b, s, n: n > 1 and a == n - 1)),
    _B("slice start", "size", "range", "start size (an empty region at the end)",
       _d_slice_at(lambda a, b, s, n: a == n)),
    _B("slice start", "size+1", "range", "start size+1 (past the axis: SI-GAP-RANGE)",
       _d_slice_at(lambda a, b, s, n: a == n + 1)),
    _B("slice start", "-1", "range", "start -1 (SI-NEG)", _d_slice_at(lambda a, b, s, n: a == -1)),
    _B("slice start", "-size", "range", "start -size (the first legal negative)",
       _d_slice_at(lambda a, b, s, n: n > 0 and a == -n)),
    _B("slice stop", "omitted", "form", "s: (open: the extent comes from the value, SI-ASSEMBLE)",
       _d_slice_at(lambda a, b, s, n: b is None)),
    _B("slice stop", "size", "range", "stop equal to the size", _d_slice_at(lambda a, b, s, n: b == n)),
    _B("slice stop", "size+1", "range", "stop size+1 (past the axis: SI-GAP-RANGE)",
       _d_slice_at(lambda a, b, s, n: b == n + 1)),
    _B("slice stop", "-1", "range", "stop -1 (SI-NEG)", _d_slice_at(lambda a, b, s, n: b == -1)),
    _B("slice stop", "equal to start", "range", "s:s (an empty region)",
       _d_slice_at(lambda a, b, s, n: a is not None and a == b)),
    _B("slice ends", "open stop, negative start", "form", "a[-k:]", _d_slice_at(lambda a, b, s, n: b is None
       and a is not None and a < 0)),
    _B("slice ends", "open start, negative stop", "form", "a[:-k]", _d_slice_at(lambda a, b, s, n: a is None
       and b is not None and b < 0)),
    _B("slice ends", "both negative", "form", "a[-k:-j] (the documented a[-1, -3:-1])",
       _d_slice_at(lambda a, b, s, n: a is not None and b is not None and a < 0 and b < 0)),
    _B("slice ends", "both open", "form", "a[:]", _d_slice_at(lambda a, b, s, n: a is None and b is None)),
    _B("slice step", "omitted", "form", "no step", _d_slice_at(lambda a, b, s, n: s is None)),
    _B("slice step", "1", "default", "step 1 written out (the default: must act as omitted)",
       _d_slice_at(lambda a, b, s, n: s == 1)),
    _B("slice step", "2", "range", "step 2 (unsupported: SI-STEP)", _d_slice_at(lambda a, b, s, n: s == 2)),
    _B("slice step", "-1", "range", "step -1 (unsupported: SI-STEP)", _d_slice_at(lambda a, b, s, n: s == -1)),
    _B("value", "tensor", "form", "a tensor value", lambda c: _d_value(c) is not None),
    _B("value", "0-d tensor", "form", "a 0-d tensor value", lambda c: bd.ndim(c, "value") == 0),
    _B("value", "shorter than an open slice", "form", "a value shorter than its open slice (assembled at the start)",
       lambda c: _d_assembled_shorter(c, explicit=False)),
    _B("value", "shorter than a closed slice", "form", "a value shorter than its explicit slice (SI-GAP-REGION)",
       lambda c: _d_assembled_shorter(c, explicit=True)),
    _B("value", "another dtype", "form", "a tensor value whose dtype is not the target's (SI-GAP-DTYPE)",
       lambda c: _d_value(c) is not None and bd.dtype(c, "value") != bd.dtype(c, "target")),
    _B("value", "int scalar", "form", "an int scalar (SI-VAL-S)", lambda c: bd.is_int(c.params.get("value"))),
    _B("value", "float scalar", "form", "a float scalar (unsupported: SI-FLOATSCALAR)",
       lambda c: isinstance(c.params.get("value"), float)),
    _B("value", "scalar int32 min", "edge", "the scalar -2**31 into DT_INT32",
       lambda c: c.params.get("value") == -2**31 and bd.dtype(c, "target") == "int32"),
    _B("value", "scalar int32 max", "edge", "the scalar 2**31-1 into DT_INT32",
       lambda c: c.params.get("value") == 2**31 - 1 and bd.dtype(c, "target") == "int32"),
    _B("value", "scalar int32 max+1", "range", "the scalar 2**31 (one past int32: SI-GAP-DTYPE)",
       lambda c: c.params.get("value") == 2**31),
    _B("indices", "0", "range", "a scatter-form index 0", _d_indices_at(lambda i, n: i == 0)),
    _B("indices", "size-1", "range", "a scatter-form index size-1 (the last legal)",
       _d_indices_at(lambda i, n: i == n - 1)),
    _B("indices", "size", "range", "a scatter-form index size (one past)", _d_indices_at(lambda i, n: i == n)),
    _B("indices", "-1", "range", "a scatter-form index -1 (outside [0, size-1])", _d_indices_at(lambda i, n: i == -1)),
    *bd.edge_rows("value", ("value",), _ALL_DTYPES, " (moved bit for bit)"),
]


def setitem(target, key, value):
    """pypto `target[key] = value`: the target after the assignment (a new array; the input is untouched)."""
    outputs = value_reading(solve, np.asarray(target), key, value)
    return outputs["target"].value


# ---- keys as data (docs/SPEC.md, setitem's params.key) ------------------------------------------
# key element: int | true/false | "..." | {"slice": [start, stop, step]} | {"tensor": input_name}
# a slice bound may itself be {"tensor": name} (the scatter form a[d:indices]).
# a tuple key is {"tuple": [elements]}.

def decode_key(key, inputs):
    """The Python key a user writes, from the data form; tensor refs become inputs[name]."""
    if isinstance(key, Mapping) and "tuple" in key:
        return tuple(_decode_key_elem(e, inputs) for e in key["tuple"])
    return _decode_key_elem(key, inputs)


def _decode_key_elem(e, inputs):
    if e == "...":
        return Ellipsis
    if isinstance(e, (bool, int, float)):
        return e
    if isinstance(e, Mapping) and "slice" in e:
        return slice(*(_decode_key_elem(b, inputs) if b is not None else None for b in e["slice"]))
    if isinstance(e, Mapping) and "tensor" in e:
        return inputs[e["tensor"]]
    raise CodecError(f"bad setitem key element {e!r}")


def key_text(key, names=None) -> str:
    """The key as a user writes it inside a[...]; a tensor ref is spelled names.get(name, name)."""
    names = names or {}

    def ref(e):
        return names.get(e["tensor"], e["tensor"])

    def one(e):
        if e == "...":
            return "..."
        if isinstance(e, Mapping) and "slice" in e:
            parts = ["" if b is None else (ref(b) if isinstance(b, Mapping) else repr(b)) for b in e["slice"]]
            while len(parts) > 2 and parts[-1] == "":
                parts.pop()
            return ":".join(parts)
        if isinstance(e, Mapping) and "tensor" in e:
            return ref(e)
        return repr(e)
    if isinstance(key, Mapping) and "tuple" in key:
        items = [one(e) for e in key["tuple"]]
        if not items:
            return "()"     # a[()] : the empty tuple key of a 0-d tensor
        return ", ".join(items) + ("," if len(items) == 1 else "")
    return one(key)


def key_tensors(key) -> list:
    """The input names the key refers to, in order of appearance, each once."""
    names = []

    def walk(e):
        if isinstance(e, Mapping):
            if "tensor" in e:
                names.append(e["tensor"])
            for sub in ("tuple", "slice"):
                for b in e.get(sub) or ():
                    if b is not None:
                        walk(b)
    walk(key)
    return list(dict.fromkeys(names))


# ---- the op's declaration: document, clauses, case contract, decoder (docs/SPEC.md) --------------

@dataclass(frozen=True)
class SetitemCall:
    """`target[key] = value`."""
    target: object
    key: object             # the Python key, tensor refs resolved from the inputs
    value: object           # a tensor (inputs.value) or a scalar (params.value)
    key_data: object        # params.key as data (key_text renders it)


def decode(case, inputs=None) -> SetitemCall:
    target = need_input(case, "target", inputs)
    key = need_param(case, "key")
    if ("value" in case.inputs) == ("value" in case.params):
        raise malformed(case, "give the value in exactly one of inputs and params")
    value = need_input(case, "value", inputs) if "value" in case.inputs else case.params["value"]
    try:
        decode_key(key, case.inputs)        # every ref names an input of the case
        pykey = decode_key(key, case.inputs if inputs is None else inputs)
    except (CodecError, KeyError, TypeError) as e:
        raise malformed(case, f"key {key!r}: {e}") from e
    return SetitemCall(target, pykey, value, key)


def solve_case(case):
    a = decode(case)
    return solve(a.target, a.key, a.value)


@accepting()        # the oracle as a candidate returns the accepting reading of an either answer
def call(case, inputs=None) -> dict:
    a = decode(case, inputs)
    return {"target": setitem(a.target, a.key, a.value)}


def repro(case, literal) -> tuple:
    a = decode(case)
    value = "value" if "value" in case.inputs else literal(a.value)
    return [f"target = oracle.setitem(target, np.s_[{key_text(a.key_data)}], {value})"], [], {"target": "target"}

def generic_call(case, api, literal, array) -> list:
    """`target[key] = value`: setitem has no function syntax (adapters/repro.generic_repro)."""
    value = "value" if "value" in case.inputs else literal(case.params["value"])
    return [f"target[{key_text(decode(case).key_data)}] = {value}   # {api}"]


_EX = "Call examples"
SPEC = OpSpec(
    reading=READING,
    name="setitem", source="pypto.Tensor.setitem.txt", title="pypto Tensor.__setitem__",
    # The clause list's range `SI-EX-1..6` is SI-EX-1 .. SI-EX-6 in the order the document shows them; the
    # same row also names the scatter-form example, which gets SI-EX-7 (added: the range says six).
    clause_rows=(
        ("SI-KEY", "sem", "Parameters: key", "key is an int (or symbolic int), a slice, or a tuple of ints, slices "
                                             "and at most one Ellipsis"),
        ("SI-VAL-T", "sem", "Parameters: value", "for slice and mixed keys the value is a tensor whose shape matches "
                                                 "the region the key selects"),
        ("SI-VAL-S", "sem", "Parameters: value", "a scalar value (int or symbolic int) assigns one element; the "
                                                 "target must be DT_INT32"),
        ("SI-INPLACE", "sem", "Return value", "returns nothing; modifies the target in place; elements outside the "
                                              "region keep their values"),
        ("SI-EMPTY", "sem", f"{_EX}: empty slice", "c[:] = v replaces the whole tensor (a move); with equal shapes "
                                                   "it equals a full assemble"),
        ("SI-ASSEMBLE", "sem", f"{_EX}: full slice", "a slice key places the value at the slice starts like "
                                                     "assemble(value, starts, target); open slices take their "
                                                     "extent from the value"),
        ("SI-MIXED", "sem", f"{_EX}: mixed index and slice", "int and slice mixed: the int axes are dropped; the "
                                                             "value has as many dims as the key has slices"),
        ("SI-NEG", "sem", f"{_EX}: negative index", "negative ints and slice bounds count from the end: "
                                                    "a[-1, -3:-1] is a[3, 1:3]"),
        ("SI-ELLIPSIS", "sem", f"{_EX}: ellipsis", "Ellipsis stands for the axes not named: a[..., 2:4] = b (b 2x2) "
                                                   "is a[0:2, 2:4]"),
        ("SI-SCATTER", "sem", f"{_EX}: scatter", "a key start:stop whose stop is an int tensor means scatter(a, "
                                                 "start, indices, values)"),
        ("SI-STEP", "uns", "Constraints: slice step", "a slice step other than 1 is not supported"),
        ("SI-BOOL", "uns", "Constraints: bool index", "bool indices are not supported"),
        ("SI-TINDEX", "uns", "Constraints: tensor index", "tensor indices are not supported"),
        ("SI-MIXED-N", "uns", "Constraints: mixed index", "with a mixed key, the number of slices must equal the "
                                                          "value's ndim (no exception class named)"),
        ("SI-FLOATSCALAR", "uns", "Constraints: single-element value", "a float scalar value is not supported"),
        ("SI-EX-1", "ex", f"{_EX}: empty slice", "empty slice: c[:] = a + b in the add kernel"),
        ("SI-EX-2", "ex", f"{_EX}: full slice", "full slice: a[0:, 0:] = b writes b into the top-left 2x2"),
        ("SI-EX-3", "ex", f"{_EX}: mixed index and slice", "mixed: a[0, 1:3] = b"),
        ("SI-EX-4", "ex", f"{_EX}: negative index", "negative: a[-1, -3:-1] = b"),
        ("SI-EX-5", "ex", f"{_EX}: ellipsis", "ellipsis: a[..., 2:4] = b"),
        ("SI-EX-6", "ex", f"{_EX}: single-element assignment", "single element: a[2, 3] = 5 on DT_INT32"),
        ("SI-EX-7", "ex", f"{_EX}: scatter", "scatter form: a[0:indices] = values", ADDED),
        ("SI-GAP-REGION", "gap", f"Parameters: value against {_EX}: full slice, ellipsis",
         "an explicit stop that disagrees with the value's shape is not covered"),
        ("SI-GAP-RANGE", "gap", "Parameters: key", "ints or slice bounds outside the axis, a region running past the "
                                                   "target, or more indices than dims: not stated", ADDED),
        ("SI-GAP-DTYPE", "gap", "Parameters: value", "a value whose dtype differs from the target's (or an int scalar "
                                                     "outside int32): not stated", ADDED),
        ("SI-GAP-MOVE", "gap", f"{_EX}: empty slice", "c[:] = v with v's shape different from c's: 'move' and the "
                                                      "assemble rule disagree", ADDED),
        alias_gap_row("SI", "Parameters: value; Return value", "the value tensor is"),
    ),
    inputs=(Field("target", "the tensor assigned into"),
            Field("value", "the value, when it is a tensor", required=False),
            Field("<name>", "any tensor the key refers to (indices, a tensor index b, a mask)", required=False)),
    params=(Field("key", 'the key as data: an element is an int, a bool, "...", {"slice": [start, stop, step]} (each '
                         'bound an int, null, or {"tensor": name}), or {"tensor": name}; a tuple key is '
                         '{"tuple": [elements]}. oracle.setitem.decode_key(key, inputs) gives the Python key '
                         '(slice(0, indices) for the scatter form), key_text(key) the text inside a[...]'),
            Field("value", "the value, when it is a scalar (an int, or a float for SI-FLOATSCALAR)", required=False)),
    outputs=(Field("target", "the target after the assignment"),),
    decode=decode, solve=solve_case, reference=setitem, call=call, repro=repro, generic_call=generic_call,
    generic_outputs={"target": "target"}, dtypes=DTYPES,
)

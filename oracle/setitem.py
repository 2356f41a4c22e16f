"""pypto Tensor.__setitem__ (seed pypto.Tensor.setitem.txt): assemble-style slice assignment, scalars, scatter form.

Readings the document leaves to the oracle (each cited where it is applied):
- a key shorter than the target leaves the trailing axes open, and Ellipsis expands to open axes; both
  count as slices for SI-MIXED (so `a[2] = row` on a 2-d target is the mixed form `a[2, :]`);
- SI-MIXED-N applies when the key as written mixes ints with slices or Ellipsis; the count compared with
  the value's ndim is that of the sliced axes after expansion;
- an open stop takes its extent from the value (SI-ASSEMBLE); an explicit stop that disagrees is
  SI-GAP-REGION; a region past the target, an int outside its axis or too many indices SI-GAP-RANGE;
- `c[:] = v` with v's shape different from c's is SI-GAP-MOVE (the "move" wording and the assemble rule
  disagree), a value dtype other than the target's SI-GAP-DTYPE (natural: NumPy's cast).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from contract.codec import CodecError
from contract.dtypes import cast, dtype_name, holds, is_float, is_number, to_dtype
from .errors import Open, SpecError, Unspecified
from contract.expectation import EXACT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, malformed, need_input, need_param
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
    clauses = ["SI-KEY", "SI-INPLACE"]
    elems = key if isinstance(key, tuple) else (key,)
    op = Open()
    _check_elements(elems, op)
    if op:
        # NumPy gives steps and tensor indices a meaning; bools, floats and bad forms get none
        numpy_means_it = all(c in ("SI-STEP", "SI-TINDEX") for c, _ in op.items)
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
    outputs = {} if out is None else {"target": ExpectedArray(out, EXACT)}
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(dict.fromkeys(clauses))


def _scatter_form(target, key, value):
    # SI-SCATTER: a[d:indices] = values is scatter(a, d, indices, values); the doc's indices are DT_INT32
    clauses = ("SI-KEY", "SI-INPLACE", "SI-SCATTER")     # like every other form, it writes into a
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
    return {"target": outputs["out"]}, (*clauses, *more)


def _check_elements(elems, op):
    if sum(e is Ellipsis for e in elems) > 1:
        op.note("SI-KEY", "more than one Ellipsis")
    for e in elems:
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
    out = []
    for (kind, a, b), n in zip(axes, shape):
        if (a is not None and a < 0) or (b is not None and b < 0):
            clauses.append("SI-NEG")                    # SI-NEG: negative ints and bounds count from the end
        if kind == "int":
            if not -n <= a < n:
                op.note("SI-GAP-RANGE", f"index {a} on an axis of {n}")
            out.append(("int", a % n if n else a, None))
            continue
        start = 0 if a is None else (a + n if a < 0 else a)
        stop = None if b is None else (b + n if b < 0 else b)
        if not 0 <= start <= n or (stop is not None and not 0 <= stop <= n):
            op.note("SI-GAP-RANGE", f"slice {a}:{b} on an axis of {n}")
        out.append(("slice", start, stop))
    return out


def _tensor_value(target, elems, axes, value, mixed, op, clauses):
    clauses.append("SI-VAL-T")
    slices = [(s, e) for kind, s, e in axes if kind == "slice"]
    if not slices:
        # every axis an int: single-element assignment, whose value the doc makes a scalar (SI-VAL-S)
        op.note("SI-VAL-S", f"a {value.dtype}{list(value.shape)} tensor value for a single-element key")
        natural = _numpy_natural(target, _numpy_key(axes, None), value)
        op.raise_if_any({} if natural is None else {"target": ExpectedArray(natural)}, clauses)
    if value.ndim != len(slices):
        if mixed:   # SI-MIXED-N (no exception class named)
            raise SpecError("SI-MIXED-N", None, f"the key has {len(slices)} slice axes, the value has "
                            f"{value.ndim} dims", clauses)
        op.note("SI-VAL-T", f"value of {value.ndim} dims for {len(slices)} sliced axes")
        natural = _numpy_natural(target, _numpy_key(axes, None), value)
        op.raise_if_any({} if natural is None else {"target": ExpectedArray(natural)}, clauses)
    # SI-ASSEMBLE: an open slice takes its extent from the value; an explicit one must agree (else SI-GAP-REGION)
    ext = []
    for (s, e), v in zip(slices, value.shape):
        if e is None:
            clauses.append("SI-ASSEMBLE")
        elif max(e - s, 0) != v:
            op.note("SI-GAP-REGION", f"slice {s}:{e} holds {max(e - s, 0)}, the value has {v}")
        ext.append(v if e is None else max(e - s, 0))
    if any(e is Ellipsis for e in elems):
        clauses.append("SI-ELLIPSIS")
    if mixed or any(kind == "int" for kind, _, _ in axes):
        clauses.append("SI-MIXED")      # SI-MIXED: int axes are dropped; the value is reshaped with 1s there
    if value.dtype != target.dtype:
        op.note("SI-GAP-DTYPE", f"value dtype {value.dtype} into a {target.dtype} target")
    move = len(elems) == 1 and elems[0] == slice(None)
    if move:
        if value.shape != target.shape:
            op.note("SI-GAP-MOVE", f"c[:] = v with v {list(value.shape)} and c {list(target.shape)}")
            return None
        clauses.append("SI-EMPTY")      # SI-EMPTY: equal shapes, a full assemble
    sizes = [n for (kind, _, _), n in zip(axes, target.shape) if kind == "slice"]
    if any(s + e > n for (s, _), e, n in zip(slices, ext, sizes)):
        op.note("SI-GAP-RANGE", f"a region of {ext} at {[s for s, _ in slices]} runs past the target "
                                f"{list(target.shape)}")
        return None
    if any(c == "SI-GAP-REGION" for c, _ in op.items):
        return _numpy_natural(target, _numpy_key(axes, value.shape), value)
    out = target.copy()
    region = tuple(slice(a, a + 1) if kind == "int" else slice(a, a + v)
                   for (kind, a, _), v in zip(axes, _per_axis(axes, value.shape)))
    shape = [1 if kind == "int" else v for (kind, _, _), v in zip(axes, _per_axis(axes, value.shape))]
    with np.errstate(all="ignore"):     # a mismatched dtype (SI-GAP-DTYPE) casts as NumPy does
        out[region] = cast(value.reshape(shape), target.dtype)
    return out


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
    if isinstance(value, float):
        op.note("SI-FLOATSCALAR", f"float scalar {value!r}")    # SI-FLOATSCALAR
    elif not is_number(value):
        op.note("SI-VAL-S", f"scalar {value!r} is not an int")
    elif dtype_name(target.dtype) not in DTYPES["scalar_target"]:
        op.note("SI-VAL-S", f"a scalar into a {target.dtype} target: single-element assignment is DT_INT32 only")
    elif not holds(target.dtype, value):
        op.note("SI-GAP-DTYPE", f"{value} does not fit int32")
    if any(kind == "slice" for kind, _, _ in axes):
        op.note("SI-VAL-S", "a scalar value with a key that selects a region, not one element")
    if not isinstance(value, (bool, int, float)) or not (holds(target.dtype, value) or is_float(target.dtype)):
        return None
    out = target.copy()
    out[_numpy_key(axes, None)] = to_dtype(target.dtype, value)
    return out


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


def setitem(target, key, value):
    """pypto `target[key] = value`: the target after the assignment (a new array; the input is untouched)."""
    outputs, _ = solve(np.asarray(target), key, value)
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


def call(case) -> dict:
    a = decode(case)
    return {"target": setitem(a.target, a.key, a.value)}


def repro(case, literal) -> tuple:
    a = decode(case)
    value = "value" if "value" in case.inputs else literal(a.value)
    return [f"target = oracle.setitem(target, np.s_[{key_text(a.key_data)}], {value})"], [], {"target": "target"}


_EX = "Call examples"
SPEC = OpSpec(
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
        ("SI-MIXED-N", "err", "Constraints: mixed index", "with a mixed key, the number of slices must equal the "
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
    decode=decode, solve=solve_case, reference=setitem, call=call, repro=repro, dtypes=DTYPES,
)

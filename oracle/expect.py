"""Case -> Expectation: read a case's fields (docs/CASES.md), ask the op's module, wrap the answer."""
from __future__ import annotations

import importlib
from typing import Callable

import numpy as np

from contract.case import Case, decode_key
from contract.codec import CodecError
from contract.dtypes import dtype_from_name
from .errors import SpecError, Unspecified
from contract.expectation import ExpectedArray, Expectation

# by name: the package binds oracle.clip etc. to the functions, so `from . import clip` would get those
_clip = importlib.import_module("oracle.clip")
_scatter = importlib.import_module("oracle.scatter")
_sna = importlib.import_module("oracle.scatter_nd_add")
_set = importlib.import_module("oracle.set_")
_setitem = importlib.import_module("oracle.setitem")

OUTPUTS = {"setitem": ("target",), "clip": ("out", "x"), "scatter": ("out", "input"),
           "scatter_nd_add": ("out", "x"), "set_": ("self", "source_after_fill")}


def expect(case: Case) -> Expectation:
    """The spec's answer for a case: values with a rule, a documented error, or unspecified (+ natural value).

    Raises ValueError only for a malformed case (a required input or param missing or unreadable)."""
    solve = _SOLVERS.get(case.op)
    if solve is None:
        raise ValueError(f"unknown op {case.op!r}")
    try:
        outputs, clauses = solve(case)
    except SpecError as e:
        return Expectation("error", e.clauses, {}, error_clause=e.clause, error_class=e.documented,
                           message=e.message)
    except Unspecified as e:
        return Expectation("unspecified", e.clauses, _ordered(case.op, e.natural), message=e.message)
    return Expectation("value", tuple(clauses), _ordered(case.op, outputs))


def _ordered(op, outputs):
    return {k: outputs[k] for k in OUTPUTS[op] if k in outputs}


def _need(mapping, name, what, case):
    if name not in mapping:
        raise ValueError(f"malformed {case.op} case {case.id}: {what} {name!r} is missing")
    return mapping[name]


def expect_setitem(case):
    target = _need(case.inputs, "target", "input", case)
    key = _need(case.params, "key", "param", case)
    if ("value" in case.inputs) == ("value" in case.params):
        raise ValueError(f"malformed setitem case {case.id}: give the value in exactly one of inputs and params")
    value = case.inputs["value"] if "value" in case.inputs else case.params["value"]
    try:
        pykey = decode_key(key, case.inputs)
    except (CodecError, KeyError, TypeError) as e:
        raise ValueError(f"malformed setitem case {case.id}: key {key!r}: {e}") from e
    return _setitem.solve(target, pykey, value)


def _clip_bound(case, which):
    spec = case.params.get(which)
    if spec is None:
        return None
    kind = spec.get("kind") if hasattr(spec, "get") else None
    if kind == "tensor":
        return _clip.Bound("tensor", _need(case.inputs, which, "input", case))
    if kind in ("int", "float"):
        return _clip.Bound(kind, _need(spec, "value", f"{which} field", case))
    if kind == "element":
        try:
            dtype_from_name(spec.get("dtype"))
        except KeyError:
            raise ValueError(f"malformed clip case {case.id}: {which} element dtype {spec.get('dtype')!r}") from None
        return _clip.Bound("element", _need(spec, "value", f"{which} field", case), spec["dtype"])
    raise ValueError(f"malformed clip case {case.id}: {which} = {spec!r} has no known kind")


def expect_clip(case):
    x = _need(case.inputs, "x", "input", case)
    return _clip.solve(x, _clip_bound(case, "min"), _clip_bound(case, "max"))


def expect_scatter(case):
    self_ = _need(case.inputs, "input", "input", case)
    index = _need(case.inputs, "index", "input", case)
    dim = _need(case.params, "dim", "param", case)
    src = case.inputs.get("src")
    if (src is None) == ("value" not in case.params):
        raise ValueError(f"malformed scatter case {case.id}: give exactly one of inputs.src and params.value")
    value = case.params["value"] if src is None else _scatter._NO_VALUE
    inplace = case.params.get("inplace", False)
    try:
        outputs, clauses = _scatter.solve(self_, dim, index, src, value)
    except Unspecified as e:
        e.natural = _with_input(e.natural, self_, inplace)
        raise
    clauses = (*clauses, "SC-INPLACE")
    return _with_input(outputs, self_, inplace), clauses


def _with_input(outputs, self_, inplace):
    # SC-INPLACE: scatter_ leaves self equal to the result; scatter leaves it untouched
    if "out" not in outputs:
        return outputs
    return {"out": outputs["out"], "input": outputs["out"] if inplace else ExpectedArray(np.array(self_))}


def expect_scatter_nd_add(case):
    x = _need(case.inputs, "x", "input", case)
    indices = _need(case.inputs, "indices", "input", case)
    updates = _need(case.inputs, "updates", "input", case)
    return _sna.solve(x, indices, updates, case.params.get("use_locking", False))


def expect_set_(case):
    target = _need(case.inputs, "target", "input", case)
    kind = case.params.get("source_kind", "none")
    if kind not in ("none", "storage", "tensor"):
        raise ValueError(f"malformed set_ case {case.id}: source_kind {kind!r}")
    storage = None if kind == "none" else np.asarray(_need(case.inputs, "source", "input", case)).reshape(-1)
    view = None
    if kind == "tensor":
        view = _source_view(case, storage)
    args = {k: case.params[k] for k in ("storage_offset", "size", "stride") if k in case.params}
    probe = case.params.get("probe")
    if probe is not None and not isinstance(probe, (int, float)):
        raise ValueError(f"malformed set_ case {case.id}: probe {probe!r} is not a number")
    device = case.params.get("source_device", "same")
    if device not in ("same", "other"):
        raise ValueError(f"malformed set_ case {case.id}: source_device {device!r} (same or other)")
    return _set.solve(target, kind, storage, view, args, probe, other_device=device == "other")


def _source_view(case, storage):
    sv = case.params.get("source_view")
    if not sv:
        return _set.View(0, (storage.size,), (1,))
    try:
        view = _set.View(int(sv["offset"]), tuple(int(n) for n in sv["size"]), tuple(int(s) for s in sv["stride"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"malformed set_ case {case.id}: source_view {sv!r}") from e
    if (view.offset < 0 or len(view.size) != len(view.stride) or min(view.size + view.stride, default=0) < 0
            or _set.needed(view) > storage.size):
        raise ValueError(f"malformed set_ case {case.id}: source_view {sv!r} is not a tensor over a storage of "
                         f"{storage.size}")
    return view


_SOLVERS: dict[str, Callable] = {"setitem": expect_setitem, "clip": expect_clip, "scatter": expect_scatter,
                                 "scatter_nd_add": expect_scatter_nd_add, "set_": expect_set_}

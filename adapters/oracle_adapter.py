"""The oracle as a candidate: the NumPy reference functions called like any framework's API.

It calls `oracle.setitem/clip/scatter/scatter_nd_add/set_` with the case's
arguments and reports the outputs of docs/CASES.md, so running the suite
against it checks the oracle's functions against `oracle.expect` through the
same judge every other adapter gets.
"""
from __future__ import annotations

import inspect

import numpy as np

from .base import RAISED, Adapter, Outcome


class OracleAdapter(Adapter):
    name = "oracle"
    execution = "NumPy reference oracle"

    def version(self) -> str:
        from contract.vocabulary import SUITE_VERSION
        return SUITE_VERSION

    def available(self) -> tuple:
        try:
            import oracle
        except Exception as e:
            return False, f"cannot import oracle: {e}"
        missing = [f for f in ("setitem", "clip", "scatter", "scatter_nd_add", "set_", "SpecError")
                   if not hasattr(oracle, f)]
        return (not missing), (f"oracle lacks {', '.join(missing)}" if missing else "")

    def native_api(self, op, case=None) -> str:
        if op == "scatter" and case is not None and case.params.get("inplace"):
            return "oracle.scatter (as scatter_)"
        return f"oracle.{op}"

    def run(self, case) -> Outcome:
        import oracle
        try:
            return Outcome.returned(**_CALLS[case.op](oracle, case))
        except oracle.SpecError as e:
            return _spec_error(e)
        except Exception as e:      # Unspecified, or a bug in the oracle: reported like any framework's error
            return Outcome.raised(e)

    def repro(self, case, expectation=None) -> str:
        from .repro import compose
        call, after, outputs = _REPRO[case.op](case)
        return compose(case, expectation, title=self.native_api(case.op, case), imports=["import oracle"],
                       setup=AS_DOCUMENTED, call=call, after=after, show=[f"print({', '.join(outputs.values())})"],
                       outputs=outputs, unwrap="as_documented(e)")


def _spec_error(e) -> Outcome:
    # The oracle raises SpecError for every documented error; a candidate raises the documented class,
    # so report that class with SpecError's bases behind it.
    out = Outcome.raised(e)
    documented = getattr(e, "documented", None)
    if documented:
        out = Outcome(RAISED, exc_type=documented, exc_mro=(documented, *out.exc_mro), message=out.message)
    return out


def _setitem(oracle, case):
    from contract.case import decode_key
    p, inp = case.params, case.inputs
    key = decode_key(p["key"], inp)
    value = inp["value"] if "value" in inp else p["value"]
    return {"target": oracle.setitem(inp["target"], key, value)}


def _bound(oracle, case, which):
    spec = case.params.get(which)
    if spec is None:
        return None
    if spec["kind"] == "tensor":
        return case.inputs[which]
    if spec["kind"] == "element":
        return oracle.Element(spec["value"], spec["dtype"])
    return spec["value"]


def _clip(oracle, case):
    x = case.inputs["x"].copy()
    out = oracle.clip(x, min=_bound(oracle, case, "min"), max=_bound(oracle, case, "max"))
    return {"out": out, "x": x}


def _scatter(oracle, case):
    p, inp = case.params, case.inputs
    self_ = inp["input"].copy()
    kw = {"value": p["value"]} if "value" in p else {}
    out = oracle.scatter(self_, p["dim"], inp["index"], inp.get("src"), **kw)
    if p.get("inplace"):
        self_[...] = out        # scatter_ writes into self (SC-INPLACE)
    return {"out": out, "input": self_}


def _scatter_nd_add(oracle, case):
    inp = case.inputs
    x = inp["x"].copy()
    kw = {}
    if "use_locking" in case.params and "use_locking" in inspect.signature(oracle.scatter_nd_add).parameters:
        kw["use_locking"] = case.params["use_locking"]
    out = oracle.scatter_nd_add(x, inp["indices"], inp["updates"], **kw)
    x[...] = out                # SNA-RETURN: x itself is updated
    return {"out": out, "x": x}


def _set_(oracle, case):
    p, inp = case.params, case.inputs
    kind = p.get("source_kind", "none")
    storage = inp["source"].copy() if "source" in inp else None
    source = None
    if kind == "storage":
        source = oracle.Storage(storage)
    elif kind == "tensor":
        source = _view(storage, p.get("source_view"))
    kw = {k: p[k] for k in ("storage_offset", "size", "stride", "source_device") if k in p}
    result = oracle.set_(inp["target"].copy(), source, **kw)
    outs = {"self": np.array(result, copy=True)}
    if p.get("probe") is not None and source is not None and result.size:
        np.copyto(result, p["probe"], casting="unsafe")     # write through self (ST-ALIAS)
    if source is not None:
        seen = storage if kind == "storage" else source     # a Storage is seen as its whole 1-D memory
        outs["source_after_fill"] = np.array(seen, copy=True)
    return outs


def _view(storage, view):
    if not view:
        return storage
    item = storage.itemsize
    base = storage[view["offset"]:]
    return np.lib.stride_tricks.as_strided(base, shape=tuple(view["size"]),
                                           strides=tuple(s * item for s in view["stride"]), writeable=True)


_CALLS = {"setitem": _setitem, "clip": _clip, "scatter": _scatter,
          "scatter_nd_add": _scatter_nd_add, "set_": _set_}


# ---- repro snippets: the same calls as text ----------------------------------------------------
# Each gives (call lines, read-back lines, output name -> variable), mirroring the functions above.

# The oracle raises SpecError for a documented error, naming the document's class in .documented; the adapter
# reports that class (_spec_error), and so does the repro.
AS_DOCUMENTED = ["def as_documented(e):   # SpecError -> the exception class the document names",
                 "    import builtins",
                 '    cls = getattr(builtins, getattr(e, "documented", None) or "", None)',
                 "    return cls(str(e)) if isinstance(cls, type) and issubclass(cls, Exception) else e"]


def _repro_setitem(case):
    from .repro import setitem_key_text, value_text
    return [f"target = oracle.setitem(target, np.s_[{setitem_key_text(case)}], {value_text(case)})"], [], \
        {"target": "target"}


def _repro_clip(case):
    from .repro import clip_bound_texts, scalar_text
    lo, hi = clip_bound_texts(case, lambda v, dt: f"oracle.Element({scalar_text(v)}, {dt!r})")
    return [f"out = oracle.clip(x, min={lo}, max={hi})"], [], {"out": "out", "x": "x"}


def _repro_scatter(case):
    from .repro import scalar_text
    p = case.params
    last = "src" if "src" in case.inputs else f"value={scalar_text(p['value'])}"
    call = [f"out = oracle.scatter(input, {scalar_text(p['dim'])}, index, {last})"]
    after = ["input[...] = out   # scatter_ writes into self (SC-INPLACE)"] if p.get("inplace") else []
    return call, after, {"out": "out", "input": "input"}


def _repro_scatter_nd_add(case):
    from .repro import scalar_text
    extra = f", use_locking={scalar_text(case.params['use_locking'])}" if "use_locking" in case.params else ""
    return ([f"out = oracle.scatter_nd_add(x, indices, updates{extra})"],
            ["x[...] = out   # x itself is updated (SNA-RETURN)"], {"out": "out", "x": "x"})


def _repro_set_(case):
    from .repro import scalar_text
    p = case.params
    kind = p.get("source_kind", "none")
    call, src = [], ""
    if kind == "storage":
        call.append("src = oracle.Storage(source)")
        src = "src"
    elif kind == "tensor":
        v = p.get("source_view")
        src = "source"
        if v:
            call.append(f"view = np.lib.stride_tricks.as_strided(source[{v['offset']}:], shape={tuple(v['size'])!r}, "
                        f"strides=tuple(s * source.itemsize for s in {tuple(v['stride'])!r}), writeable=True)")
            src = "view"
    kw = [f"{k}={scalar_text(p[k])}" for k in ("storage_offset", "size", "stride", "source_device") if k in p]
    call.append(f"result = oracle.set_(target, {', '.join([src] * bool(src) + kw)})")
    after = ["self_ = np.array(result, copy=True)"]
    outputs = {"self": "self_"}
    if src:
        if p.get("probe") is not None:
            after.append(f"np.copyto(result, {scalar_text(p['probe'])}, casting='unsafe') if result.size else None"
                         "   # a write through self (ST-ALIAS)")
        seen = "source" if kind == "storage" else src      # a Storage is seen as its whole 1-D memory
        after.append(f"source_after_fill = np.array({seen}, copy=True)")
        outputs["source_after_fill"] = "source_after_fill"
    return call, after, outputs


_REPRO = {"setitem": _repro_setitem, "clip": _repro_clip, "scatter": _repro_scatter,
          "scatter_nd_add": _repro_scatter_nd_add, "set_": _repro_set_}

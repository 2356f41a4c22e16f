"""torch as a candidate: the five ops through torch's own API, exactly as a user calls it.

| op             | native API                                                        |
|----------------|-------------------------------------------------------------------|
| setitem        | `Tensor.__setitem__(key, value)`                                  |
| clip           | `torch.clamp(x, min, max)`                                        |
| scatter        | `Tensor.scatter(dim, index, src|value)` / `Tensor.scatter_`       |
| scatter_nd_add | `Tensor.index_put_(tuple(indices.unbind(-1)), updates, accumulate=True)` |
| set_           | `Tensor.set_(source, ...)`; a storage source is a `TypedStorage`  |
"""
from __future__ import annotations

import warnings

from .base import RETURNED, Outcome
from .pinned import PinnedAdapter
from . import convert
from .convert import from_torch, is_bf16, py_literal, to_torch, torch_dtype
from .repro import bound_text

PIN = "2.13.0"

NATIVE = {
    "setitem": "torch.Tensor.__setitem__",
    "clip": "torch.clamp",
    "scatter": "torch.Tensor.scatter",
    "scatter_nd_add": "torch.Tensor.index_put_(accumulate=True)",
    "set_": "torch.Tensor.set_",
}


class TorchAdapter(PinnedAdapter):
    name = "torch"
    execution = "torch CPU build"
    constructions = (convert.TENSOR, convert.FROM_NUMPY)

    def __init__(self):
        self._torch = None

    # ---- identity and availability --------------------------------------------------------
    package = "torch"
    pin = PIN

    def setup(self) -> None:
        import torch
        # index_put_(accumulate=True) is only reproducible run to run in this mode.
        torch.use_deterministic_algorithms(True)
        self._torch = torch

    def supports(self, op: str, dtypes=()) -> tuple:
        if op not in NATIVE:
            return False, f"torch has no mapping for {op}"
        return True, ""

    def native_api(self, op: str, case=None) -> str:
        if op == "scatter" and case is not None and case.params.get("inplace"):
            return "torch.Tensor.scatter_"
        if op == "set_" and case is not None and case.params.get("source_kind") == "storage":
            return "torch.Tensor.set_(TypedStorage)"
        return NATIVE.get(op, op)

    # ---- running ----------------------------------------------------------------------------
    def run(self, case) -> Outcome:
        if self._torch is None:
            self.setup()
        api = self.native_api(case.op, case)
        try:
            with convert.building(self.construction):
                outcome = _RUNNERS[case.op](self._torch, case)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:      # the framework's failure is the result, whatever it is
            outcome = Outcome.raised(e)
        outcome.native_api = api
        return outcome

    def repro(self, case) -> str:
        return convert.repro_text(case, self.native_api(case.op, case), "import torch",
                                  _tensor_text, _call_lines(case))


# ---- one function per op: convert, call, read back the original objects -----------------------

def _inputs(case):
    return {k: to_torch(v) for k, v in case.inputs.items()}


def _setitem(torch, case):
    t = _inputs(case)
    target = t["target"]
    key = convert.key(case, t)
    target[key] = t["value"] if "value" in t else case.params["value"]
    return Outcome.returned(target=from_torch(target))


def _bound(torch, case, t, which):
    return convert.clip_bound(case, t, which, lambda v, dt: torch.tensor(v, dtype=torch_dtype(dt)))


def _clip(torch, case):
    t = _inputs(case)
    x = t["x"]
    out = torch.clamp(x, _bound(torch, case, t, "min"), _bound(torch, case, t, "max"))
    return Outcome.returned(out=from_torch(out), x=from_torch(x))


def _scatter(torch, case):
    t = _inputs(case)
    self_, p = t["input"], case.params
    src = t["src"] if "src" in t else p["value"]
    method = self_.scatter_ if p.get("inplace") else self_.scatter
    out = method(p["dim"], t["index"], src)
    return Outcome.returned(out=from_torch(out), input=from_torch(self_))


def _scatter_nd_add(torch, case):
    if "use_locking" in case.params and not isinstance(case.params["use_locking"], bool):
        # index_put_ has no locking argument: a case about its type has nothing to map to.
        return Outcome.not_applicable("torch index_put_ has no use_locking argument")
    t = _inputs(case)
    x = t["x"]
    out = x.index_put_(tuple(t["indices"].unbind(-1)), t["updates"], accumulate=True)
    return Outcome.returned(out=from_torch(out), x=from_torch(x))


def _set_(torch, case):
    t = _inputs(case)
    target, p = t["target"], case.params
    if p.get("source_device") == "other" and "source" in t:
        t["source"] = t["source"].to("meta")     # torch's other device on a CPU-only machine
    source, reread = convert.set_source(case, t, _torch_storage, _torch_view)
    args = () if source is None else (source,)
    target.set_(*args, **convert.set_kwargs(case))
    why = convert.unreadable(target.shape)
    if why:
        return Outcome(RETURNED, message=f"set_ returned; self not read back: {why}")
    arrays = {"self": from_torch(target)}
    if source is not None and "probe" in p:
        try:
            target.fill_(p["probe"])
        except Exception:
            # e.g. a zero stride makes self overlap itself; self's values are still the answer.
            return Outcome.returned(**arrays)
        if not convert.unreadable(reread.shape):
            arrays["source_after_fill"] = from_torch(reread)
    return Outcome.returned(**arrays)


def _torch_storage(base):
    # TypedStorage keeps the storage's dtype, which the documented dtype check needs
    # (an UntypedStorage would silently reinterpret the bytes in self's dtype).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return base.storage()


def _torch_view(base, offset, size, stride):
    return base.as_strided(size, stride, offset)


_RUNNERS = {"setitem": _setitem, "clip": _clip, "scatter": _scatter,
            "scatter_nd_add": _scatter_nd_add, "set_": _set_}


def _tensor_text(expr, a):
    if is_bf16(a):      # torch does not know ml_dtypes' bfloat16: hand it the raw bits
        return f"torch.from_numpy({expr}.view(np.int16)).view(torch.bfloat16)"
    return f"torch.from_numpy({expr})"


def _bound_text(case, which):
    return bound_text(case, which, lambda v, dt: f"torch.tensor({py_literal(v)}, dtype=torch.{dt})")


def _call_lines(case):
    p = case.params
    if case.op == "setitem":
        return [f"target[{convert.setitem_key_text(case)}] = {convert.value_text(case)}", "print(target)"]
    if case.op == "clip":
        return [f"out = torch.clamp(x, {_bound_text(case, 'min')}, {_bound_text(case, 'max')})",
                "print(out, x)"]
    if case.op == "scatter":
        method = "scatter_" if p.get("inplace") else "scatter"
        return [f"out = input.{method}({p['dim']!r}, index, {convert.value_text(case, 'src')})",
                "print(out, input)"]
    if case.op == "scatter_nd_add":
        return ["out = x.index_put_(tuple(indices.unbind(-1)), updates, accumulate=True)", "print(out, x)"]
    kind = p.get("source_kind", "none")
    lines, src = [], "source"
    if p.get("source_device") == "other" and kind != "none":
        lines.append('source = source.to("meta")   # another device than target\'s')
    if kind == "storage":
        lines.append("src = source.storage()   # TypedStorage: keeps the dtype")
        src = "src"
    elif p.get("source_view") is not None:
        v = p["source_view"]
        lines.append(f"source = source.as_strided({tuple(v['size'])!r}, {tuple(v['stride'])!r}, {v['offset']!r})")
    arg = "" if kind == "none" else src
    kw = convert.set_kwargs_text(case)
    lines.append(f"target.set_({arg}{kw if arg else kw[2:]})")
    lines.append("print(target)")
    if kind != "none" and "probe" in p:
        lines += [f"target.fill_({py_literal(p['probe'])})", "print(source)"]
    return lines

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
from . import convert, repro as R
from .convert import from_torch, is_bf16, to_torch, torch_dtype

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
    excludes = ("scatter_nd_add/not-applicable/* ~ torch index_put_ has no use_locking argument :: "
                "index_put_ takes no locking argument: a case about use_locking's type has no call to make",)

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

    @property
    def ops(self) -> tuple:
        return tuple(_RUNNERS)

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

    def repro(self, case, expectation=None) -> str:
        call, after, show, outputs = _repro_parts(case)
        return R.compose(case, expectation, title=self.native_api(case.op, case), imports=["import torch"],
                         setup=TO_NUMPY, inputs=R.input_lines(case, _tensor_maker(self.construction)),
                         call=call, after=after,
                         show=show, outputs=outputs)


# ---- one function per op: convert, call, read back the original objects -----------------------

def _inputs(case):
    return {k: to_torch(v) for k, v in case.inputs.items()}


def _setitem(torch, case):
    a = convert.call_args(case, _inputs(case))
    a.target[a.key] = a.value
    return Outcome.returned(target=from_torch(a.target))


def _bound(torch, case, t, which):
    return convert.clip_bound(case, t, which, lambda v, dt: torch.tensor(v, dtype=torch_dtype(dt)))


def _clip(torch, case):
    t = _inputs(case)
    x = t["x"]
    out = torch.clamp(x, _bound(torch, case, t, "min"), _bound(torch, case, t, "max"))
    return Outcome.returned(out=from_torch(out), x=from_torch(x))


def _scatter(torch, case):
    a = convert.call_args(case, _inputs(case))
    method = a.input.scatter_ if a.inplace else a.input.scatter
    out = method(a.dim, a.index, a.src_or_value)
    return Outcome.returned(out=from_torch(out), input=from_torch(a.input))


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


# ---- repro snippets in torch's own syntax ---------------------------------------------------

TO_NUMPY = ["def to_numpy(t):   # exact: bf16 through its 16 bits",
            "    t = t.detach()",
            "    if t.dtype == torch.bfloat16:",
            "        import ml_dtypes",
            "        return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)",
            "    return t.numpy()"]


def _tensor_maker(construction):
    """The input expression, built as the adapter builds it (convert.to_torch): torch.tensor (the documented
    way), or torch.from_numpy for the from_numpy construction."""
    make = "torch.from_numpy" if construction == convert.FROM_NUMPY else "torch.tensor"

    def text(expr, a):
        if is_bf16(a):      # torch does not know ml_dtypes' bfloat16: hand it the raw bits
            return f"{make}({expr}.view(np.int16)).view(torch.bfloat16)"
        return f"{make}({expr})"
    return text


def _element(v, dt):
    return f"torch.tensor({R.scalar_text(v)}, dtype=torch.{dt})"


def _repro_parts(case):
    """(call lines, read-back lines, print lines, output name -> NumPy expression)."""
    p = case.params
    if case.op == "setitem":
        return [R.setitem_statement(case)], [], ["print(target)"], {"target": "to_numpy(target)"}
    if case.op == "clip":
        lo, hi = R.clip_bound_texts(case, _element)
        return ([f"out = torch.clamp(x, {lo}, {hi})"], [], ["print(out, x)"],
                {"out": "to_numpy(out)", "x": "to_numpy(x)"})
    if case.op == "scatter":
        method = "scatter_" if p.get("inplace") else "scatter"
        return ([f"out = input.{method}({', '.join(R.scatter_arg_texts(case))})"], [], ["print(out, input)"],
                {"out": "to_numpy(out)", "input": "to_numpy(input)"})
    if case.op == "scatter_nd_add":
        return (["out = x.index_put_(tuple(indices.unbind(-1)), updates, accumulate=True)"], [],
                ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})
    return _set_parts(case)


def _set_parts(case):
    p = case.params
    kind = p.get("source_kind", "none")
    call, src = [], "source"
    if p.get("source_device") == "other" and kind != "none":
        call.append('source = source.to("meta")   # another device than target\'s')
    if kind == "storage":
        call.append("src = source.storage()   # TypedStorage: keeps the dtype")
        src = "src"
    elif convert.call_args(case).view is not None:
        v = convert.call_args(case).view
        call.append(f"source = source.as_strided({v.size!r}, {v.stride!r}, {v.offset!r})")
    call.append(f"target.set_({R.set_arg_text(case, src)})")
    after = ["self_ = to_numpy(target).copy()   # self's values right after set_"]
    outputs = {"self": "self_"}
    if kind != "none" and "probe" in p:
        # the probe: a write through self must show in the source (ST-ALIAS); the whole storage for a Storage
        after += ["source_after_fill = None",
                  "try:",
                  f"    target.fill_({R.scalar_text(p['probe'])})",
                  "    source_after_fill = to_numpy(source)",
                  "except Exception as e:   # e.g. a zero stride makes self overlap itself: self's values still count",
                  '    print("the probe write failed:", type(e).__name__, e)']
        outputs["source_after_fill"] = "source_after_fill"
    return call, after, ["print(self_)"], outputs

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

import os
import warnings

import numpy as np

from contract.dtypes import BFLOAT16

from . import compile_cache, convert, execution, frameworks, layouts, repro as R, set_readback
from .base import Outcome
from .convert import is_bf16
from .layouts import LAYOUTS
from .mapping import FrameworkAdapter, OpMap

PIN = frameworks.pin("torch")     # adapters/torch_framework.toml


# NumPy <-> torch, exact for every dtype the suite knows (adapters/convert.py says how).

def torch_dtype(name: str):
    import torch
    return getattr(torch, name)          # the suite's dtype names are torch's attribute names


def to_torch(a: np.ndarray):
    import torch
    a = np.asarray(a)
    raw = a.view(np.int16) if convert.is_bf16(a) else a
    # torch.tensor copies into memory torch allocates, as torch's docs show; from_numpy borrows NumPy's.
    t = torch.from_numpy(raw.copy()) if convert.way() == convert.FROM_NUMPY else torch.tensor(raw)
    return t.view(torch.bfloat16) if convert.is_bf16(a) else t


def torch_in_layout(p):
    """The tensor of layout Plan `p` (adapters/layouts.py), made by torch's own view ops over a tensor
    built from the plan's base; refused (LayoutError) unless torch reports the layout claimed."""
    return layouts.view_of(to_torch(p.base), p)


def from_torch(t) -> np.ndarray:
    import torch
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(BFLOAT16).copy()
    return t.numpy().copy()



class TorchAdapter(FrameworkAdapter):
    name = "torch"
    execution = "torch CPU build"
    constructions = (convert.TENSOR, convert.FROM_NUMPY)
    layouts = LAYOUTS
    excludes = ("scatter_nd_add/not-applicable/* ~ torch index_put_ has no use_locking argument :: "
                "index_put_ takes no locking argument: a case about use_locking's type has no call to make",)
    package = "torch"
    pin = PIN
    REPRO_IMPORTS = ("import torch",)

    def __init__(self):
        self._torch = None

    def setup(self) -> None:
        import torch
        # index_put_(accumulate=True) is only reproducible run to run in this mode.
        torch.use_deterministic_algorithms(True)
        self._torch = torch

    def framework(self):
        if self._torch is None:
            self.setup()
        return self._torch

    def tensor(self, array):
        return to_torch(array)

    def tensor_maker(self, construction):
        return _tensor_maker(construction)

    def in_layout(self, plan):
        return torch_in_layout(plan)


# ---- one row per op: the call on torch's own tensors, read back from the original objects -------------

def _setitem(torch, a):
    key = a.key

    def assign(target, value):
        target[key] = value
    execution.call(assign, a.target, a.value)
    return Outcome.returned(target=from_torch(a.target))


def _clip(torch, a):
    def element(v, dt):
        return torch.tensor(v, dtype=torch_dtype(dt))
    out = execution.call(torch.clamp, a.x, convert.bound(a, "min", element), convert.bound(a, "max", element))
    return Outcome.returned(out=from_torch(out), x=from_torch(a.x))


def _scatter(torch, a):
    dim, inplace = a.dim, a.inplace
    out = execution.call(lambda input_, index, src: (input_.scatter_ if inplace else input_.scatter)(dim, index, src),
                         a.input, a.index, a.src_or_value)
    return Outcome.returned(out=from_torch(out), input=from_torch(a.input))


def _scatter_nd_add(torch, a):
    if a.lock_given and not isinstance(a.use_locking, bool):
        # index_put_ has no locking argument: a case about its type has nothing to map to.
        return Outcome.not_applicable("torch index_put_ has no use_locking argument")
    out = execution.call(lambda x, indices, updates: x.index_put_(tuple(indices.unbind(-1)), updates, accumulate=True),
                         a.x, a.indices, a.updates)
    return Outcome.returned(out=from_torch(out), x=from_torch(a.x))


def _set_(torch, a):
    # torch's other device on a CPU-only machine
    moved = a.source.to("meta") if a.other_device and a.source is not None else None
    source, reread = convert.set_source(a, _torch_storage, _torch_view, moved)
    return set_readback.set_and_read_back(a, a.target, source, reread, from_torch, a.kwargs)


def _torch_storage(base):
    # TypedStorage keeps the storage's dtype, which the documented dtype check needs
    # (an UntypedStorage would silently reinterpret the bytes in self's dtype).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return base.storage()


def _torch_view(base, offset, size, stride):
    return base.as_strided(size, stride, offset)


# ---- repro snippets in torch's own syntax ---------------------------------------------------

TO_NUMPY = ["def to_numpy(t):   # exact: bf16 through its 16 bits",
            "    t = t.detach()",
            "    if t.dtype == torch.bfloat16:",
            "        import ml_dtypes",
            "        return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)",
            "    return t.numpy()"]


def _tensor_maker(construction):
    """The input expression, built as the adapter builds it (to_torch): torch.tensor (the documented
    way), or torch.from_numpy for the from_numpy construction."""
    make = "torch.from_numpy" if construction == convert.FROM_NUMPY else "torch.tensor"

    def text(expr, a):
        if is_bf16(a):      # torch does not know ml_dtypes' bfloat16: hand it the raw bits
            return f"{make}({expr}.view(np.int16)).view(torch.bfloat16)"
        return f"{make}({expr})"
    return text


def _element(v, dt):
    return f"torch.tensor({R.scalar_text(v)}, dtype=torch.{dt})"


def _setitem_repro(case, a):
    return [R.setitem_statement(case)], [], ["print(target)"], {"target": "to_numpy(target)"}


def _clip_repro(case, a):
    lo, hi = R.clip_bound_texts(case, _element)
    return ([f"out = torch.clamp(x, {lo}, {hi})"], [], ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _scatter_repro(case, a):
    method = "input.scatter_" if a.inplace else "input.scatter"     # the Tensor methods torch users call
    return ([f"out = {method}({', '.join(R.scatter_arg_texts(case))})"], [], ["print(out, input)"],
            {"out": "to_numpy(out)", "input": "to_numpy(input)"})


def _scatter_nd_add_repro(case, a):
    return (["out = x.index_put_(tuple(indices.unbind(-1)), updates, accumulate=True)"], [],
            ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _set_repro(case, a):
    call, src = [], "source"
    if a.other_device and a.kind != "none":
        call.append('source = source.to("meta")   # another device than target\'s')
    if a.kind == "storage":
        call.append("src = source.storage()   # TypedStorage: keeps the dtype")
        src = "src"
    elif a.view is not None:
        call.append(f"source = source.as_strided({a.view.size!r}, {a.view.stride!r}, {a.view.offset!r})")
    call.append(f"target.set_({R.set_arg_text(case, src)})")
    after, outputs = R.set_readback(a)     # self, then the probe through self (ST-ALIAS)
    return call, after, ["print(self_)"], outputs


# The one table: each op torch maps, with its call, its native API and its repro (adapters/mapping.py).
TorchAdapter.TABLE = {
    "setitem": OpMap("torch.Tensor.__setitem__", _setitem, _setitem_repro),
    "clip": OpMap("torch.clamp", _clip, _clip_repro),
    "scatter": OpMap("torch.Tensor.scatter", _scatter, _scatter_repro,
                     lambda a: "torch.Tensor.scatter_" if a.inplace else "torch.Tensor.scatter"),
    "scatter_nd_add": OpMap("torch.Tensor.index_put_(accumulate=True)", _scatter_nd_add, _scatter_nd_add_repro),
    "set_": OpMap("torch.Tensor.set_", _set_, _set_repro,
                  lambda a: "torch.Tensor.set_(TypedStorage)" if a.kind == "storage" else "torch.Tensor.set_"),
}
TorchAdapter.REPRO_SETUP = tuple(TO_NUMPY)


class TorchCompileAdapter(TorchAdapter):
    """The same rows, each framework call compiled by `torch.compile` (inductor on the CPU, C++ kernels
    built with the g++ that scripts/setup.sh installs; adapters/execution.py): the tensors are the compiled
    function's arguments, keys and Python scalars constants of its body.  A compiled mode, held to `torch`'s
    answer by the mode-consistency gate (adapters/registry.py, MODES); its kernels are kept between runs in
    the folder the harness gives it (adapters/compile_cache.py)."""
    name = "torch-compile"
    execution = "torch CPU build, each call compiled by torch.compile (inductor, dynamic shapes)"
    constructions = (convert.TENSOR,)
    layouts = ()        # its eager twin's to check (adapters/layouts.py); here each would cost compiles
    REPRO_COMPILE = "torch.compile(dynamic=True)"

    def setup(self) -> None:
        # inductor's kernels in the folder the harness keeps for this mode (adapters/compile_cache.py), read
        # by inductor when it first compiles; without one (in-process too), in the temporary folder
        kept = os.environ.get(compile_cache.FOLDER_ENV, "")
        if kept:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = kept
        super().setup()
        import torch._dynamo
        # Every case is a new body for one compiled function (execution.call): past the limit dynamo
        # would run the call eagerly without saying so, and the mode would be its twin under another name.
        torch._dynamo.config.recompile_limit = torch._dynamo.config.accumulated_recompile_limit = 1 << 30
        torch._dynamo.config.fail_on_recompile_limit_hit = True
        # Only the built C++ kernels are kept (keyed on their source): the graph caches keyed on a graph's shape
        # (FX graph, AOTAutograd) handed a case a graph another case had left, and a wrong answer (found by the
        # main job: 519a2866a324c417 gave int64 max where eager torch and a cold cache give 1)
        import torch._functorch.config
        import torch._inductor.config
        torch._inductor.config.fx_graph_cache = False
        torch._functorch.config.enable_autograd_cache = False

    def compiler(self):
        torch = self.framework()
        # Each case compiles from a fresh start, as a program that compiles this call once: dynamo's
        # in-process caches would hand a case the graphs and guards an earlier case of the same worker left,
        # and its answer (an error's class, an assertion of inductor's own) would depend on which cases that
        # worker ran before (measured: 57 of 3271 answers changed between two runs).  Inductor's kernels on
        # disk (adapters/compile_cache.py) are keyed on their source and are built the same either way.
        torch._dynamo.reset()
        # dynamic shapes from the first call, as with every case compiled first
        return lambda fn: torch.compile(fn, dynamic=True)

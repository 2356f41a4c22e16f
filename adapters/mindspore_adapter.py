"""mindspore (CPU) as a candidate, plus its second native variants reported separately.

| op             | MindsporeAdapter ("mindspore")                         | MindsporeVariantAdapter ("mindspore-variants") |
|----------------|--------------------------------------------------------|------------------------------------------------|
| setitem        | `Tensor.__setitem__`                                   | n/a                                            |
| clip           | `ops.clamp(x, min, max)`                               | `ops.clip_by_value(x, min, max)`               |
| scatter        | `ops.tensor_scatter_elements` / `Tensor.scatter_`      | `ops.scatter(input, dim, index, src)`          |
| scatter_nd_add | `ops.scatter_nd_add` on a `Parameter`                  | n/a                                            |
| set_           | `Tensor.set_` (a storage is `Tensor.untyped_storage()`)| n/a                                            |

mindspore is imported in setup() only: it costs ~2 s and 400 MB, and a process
that merely lists adapters must not pay that.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile

import numpy as np

from contract.dtypes import BFLOAT16, is_float, is_number, to_dtype

from . import convert, execution, frameworks, layouts, repro as R, threads
from .base import RETURNED, Outcome
from .layouts import LAYOUTS
from .mapping import FrameworkAdapter, OpMap

PIN = frameworks.pin("mindspore")     # adapters/mindspore_framework.toml


# NumPy <-> mindspore, exact for every dtype the suite knows (adapters/convert.py says how).

_MS_NAMES = {"bool": "bool_", "bfloat16": "bfloat16"}


def ms_dtype(name: str):
    import mindspore as ms
    return getattr(ms, _MS_NAMES.get(name, name))


def to_ms(a: np.ndarray):
    import mindspore as ms
    a = np.asarray(a)
    raw = a.view(np.int16) if convert.is_bf16(a) else a
    # Tensor(ndarray) copies, as mindspore's docs show; Tensor.from_numpy shares the array's memory.
    t = ms.Tensor.from_numpy(raw.copy()) if convert.way() == convert.FROM_NUMPY else ms.Tensor(raw.copy())
    return t.view(ms.bfloat16) if convert.is_bf16(a) else t


def ms_in_layout(p):
    """The tensor of layout Plan `p`, made by mindspore's own PyNative view ops (basic slicing, `view`,
    `expand` give views with strides and a storage offset in 2.10); refused unless mindspore reports it."""
    return layouts.view_of(to_ms(p.base), p)


def from_ms(t) -> np.ndarray:
    import mindspore as ms
    if t.dtype == ms.bfloat16:
        return t.contiguous().view(ms.int16).asnumpy().view(BFLOAT16).copy()
    return np.array(t.asnumpy(), copy=True)




class MindsporeAdapter(FrameworkAdapter):
    name = "mindspore"
    excludes = ("scatter/not-applicable/* ~ ops.tensor_scatter_elements takes no scalar value :: "
                "the out-of-place scatter takes a src tensor only; a scalar value has no out-of-place call",
                "set_/not-applicable/* ~ mindspore has no second device on this CPU-only machine :: "
                "a source on another device needs a second device, and this machine has only the CPU")
    execution = "mindspore CPU, synchronous kernel launches"
    constructions = (convert.TENSOR, convert.FROM_NUMPY)
    layouts = LAYOUTS       # PyNative slicing, view and expand give real strided views in 2.10
    package = "mindspore"
    pin = PIN
    # it needs NumPy 1.x: an environment of its own, where its worker runs (adapters/environments.py)
    where = f"bash scripts/setup.sh builds .venv-mindspore with mindspore {PIN} on NumPy 1.x"

    def __init__(self):
        self._ms = None
        self._capture = None

    def environment_problem(self) -> tuple:
        import numpy
        if int(numpy.__version__.split(".")[0]) >= 2:
            return False, (f"mindspore {PIN} needs NumPy 1.x; NumPy {numpy.__version__} is installed "
                           f"(run it under another Python: --python mindspore=PATH, docs/CLI.md)")
        return True, ""

    def setup(self) -> None:
        # Only [ERROR] lines: the reason of a failure.  A user's own GLOG_v wins.
        os.environ.setdefault("GLOG_v", "3")
        import mindspore as ms
        ms.set_device("CPU")
        # Without this an error surfaces at a later sync, on another case's tensor.
        ms.runtime.launch_blocking()
        # Its CPU kernel pool (25 threads by default) keeps spinning after each call: 0.8 s of CPU over 100
        # tiny calls 50 ms apart, 0.1 s with one thread, the core the scheduler gives this worker.
        if threads.in_worker():
            with contextlib.suppress(RuntimeError):     # "can not be set repeatedly": a second setup()
                ms.device_context.cpu.op_tuning.threads_num(threads.in_worker())
        self._ms = ms
        # In a worker (adapters/pool.py sets CONFORM_WORKER) fd 2 is already captured per case and
        # survives a crash; a redirect of our own would take mindspore's last [ERROR] lines down
        # with the process.  In-process, nothing else collects them.
        self._capture = None if os.environ.get("CONFORM_WORKER") else FdCapture(2)

    def framework(self):
        if self._ms is None:
            self.setup()
        return self._ms

    def tensor(self, array):
        return to_ms(array)

    def tensor_maker(self, construction):
        return _tensor_maker(construction)

    def in_layout(self, plan):
        return ms_in_layout(plan)

    def guard(self):
        self.framework()
        return self._capture or contextlib.nullcontext()

    def finish(self, outcome, capture):
        if outcome.kind == "raised":
            if capture is not None:
                outcome.stderr = error_lines(capture.text)
            outcome.message = _strip_rules(outcome.message)
        return outcome


class MindsporeVariantAdapter(MindsporeAdapter):
    """The second native API mindspore offers for clip and scatter, reported on its own."""
    name = "mindspore-variants"
    excludes = ("scatter/not-applicable/* ~ ops.scatter is out of place :: "
                "ops.scatter has no in-place form; inplace=True cases are mindspore's (Tensor.scatter_)",)


class MindsporeGraphAdapter(MindsporeAdapter):
    """mindspore's rows with each framework call compiled by `mindspore.jit` (graph mode, its default AST
    parser; adapters/execution.py): the tensors are the compiled function's arguments, keys and Python scalars
    constants of its body.  A graph takes its arguments as values: an in-place write to a Tensor argument
    reaches the caller only in what the function returns, so the row reads it there, as a user of the mode
    writes `t = jit(f)(t)` (a Parameter argument is written in place, as the mode documents).  A compiled
    mode, held to `mindspore`'s answer by the mode-consistency gate."""
    name = "mindspore-graph"
    execution = "mindspore CPU, each call compiled by mindspore.jit (graph mode, AST parser), synchronous kernel launches"
    constructions = (convert.TENSOR,)
    layouts = ()        # its eager twin's to check (adapters/layouts.py)
    REPRO_COMPILE = "mindspore.jit"
    # made before the compiled function, as the rows make them: the Parameter, a Storage, a view over one
    REPRO_OUTSIDE = ("Parameter(", "untyped_storage()", "base = source", "np.zeros(0)")
    FUNCTIONAL_MODE = True

    def setup(self) -> None:
        # a graph that fails to compile dumps its IR (rank_0/om/analyze_fail.ir) into the working directory
        # unless told another place: the user's checkout is not one
        if "MS_OM_PATH" not in os.environ:
            os.environ["MS_OM_PATH"] = dumps = tempfile.mkdtemp(prefix="conform-mindspore-graph-")
            atexit.register(shutil.rmtree, dumps, True)
        super().setup()

    def compiler(self):
        ms = self.framework()
        return execution.functional(lambda fn: ms.jit(fn, capture_mode="ast"))


# ---- one row per op: the call on mindspore's own tensors, read back from the original objects ------------
# Each framework call is wrapped in execution.call (compiled in mindspore-graph) as a `def` of its own, the
# form the graph mode's parser takes (an inline lambda it refuses), and returns its in-place operands, which a
# graph hands back as values (execution.written).

def _setitem(ms, a):
    key = a.key

    def assign(target, value):
        target[key] = value
        return target
    target = execution.call(assign, a.target, a.value)
    return Outcome.returned(target=from_ms(execution.written(a.target, target)))


def _clip_with(name):
    def run(ms, a):
        clamp = getattr(ms.ops, name)

        def element(v, dt):
            return ms.Tensor(v, dtype=ms_dtype(dt))

        def clip(x, lo, hi):
            return clamp(x, lo, hi)
        out = execution.call(clip, a.x, convert.bound(a, "min", element), convert.bound(a, "max", element))
        return Outcome.returned(out=from_ms(out), x=from_ms(a.x))
    return run


def _scatter(ms, a):
    dim = a.dim
    if a.inplace:
        def scatter_(input_, index, src):
            out = input_.scatter_(dim, index, src)
            return out, input_
        out, written = execution.call(scatter_, a.input, a.index, a.src_or_value)
        return Outcome.returned(out=from_ms(out), input=from_ms(execution.written(a.input, written)))
    if a.src is None:
        return Outcome.not_applicable(
            "ops.tensor_scatter_elements takes no scalar value (mindspore-variants runs ops.scatter)")

    def scatter(input_, index, src):
        return ms.ops.tensor_scatter_elements(input_, index, src, axis=dim)
    out = execution.call(scatter, a.input, a.index, a.src)
    return Outcome.returned(out=from_ms(out), input=from_ms(a.input))


def _scatter_variant(ms, a):
    if a.inplace:
        return Outcome.not_applicable("ops.scatter is out of place (mindspore runs Tensor.scatter_)")
    dim = a.dim

    def scatter(input_, index, src):
        return ms.ops.scatter(input_, dim, index, src)
    out = execution.call(scatter, a.input, a.index, a.src_or_value)
    return Outcome.returned(out=from_ms(out), input=from_ms(a.input))


def _scatter_nd_add(ms, a):
    # a Parameter, as the API asks, made outside the call: a graph writes a Parameter argument in place
    x = ms.Parameter(a.x, name="x")
    if a.lock_given:
        use_locking = a.use_locking

        def add(x, indices, updates):
            return ms.ops.scatter_nd_add(x, indices, updates, use_locking)
    else:
        def add(x, indices, updates):
            return ms.ops.scatter_nd_add(x, indices, updates)
    out = execution.call(add, x, a.indices, a.updates)
    return Outcome.returned(out=from_ms(out), x=from_ms(x))


def _set_(ms, a):
    if a.other_device and a.kind != "none":
        # mindspore places tensors on the device set with set_device; this machine has only the CPU
        return Outcome.not_applicable("mindspore has no second device on this CPU-only machine")
    source, reread = convert.set_source(a, lambda b: b.untyped_storage(), _ms_view)
    kwargs = a.kwargs

    def set_(target, *source):
        target.set_(*source, **kwargs)
        return target
    target = execution.written(a.target, execution.call(set_, a.target, *(() if source is None else (source,))))
    why = convert.unreadable(target.shape)
    if why:
        return Outcome(RETURNED, message=f"set_ returned; self not read back: {why}")
    arrays = {"self": from_ms(target)}
    if source is not None and a.probe is not None:
        reread_after = _probe(ms, target, arrays["self"], a.probe, reread)
        if reread_after is not None:
            arrays["source_after_fill"] = reread_after
    return Outcome.returned(**arrays)


def _probe(ms, target, before, probe, reread):
    """Write probe through self; the source's values after, or None if no write landed in self.

    fill_ has no CPU kernel in mindspore 2.10 (InplaceFillScalar unregistered), and
    copy_ silently writes nothing into some views (offset or 0-d ones); an index write
    reaches those.  `self[...] = v` is not used: on a set_ view it rebinds self to new
    memory instead of writing (measured), which would blame set_ for setitem.
    Only a write that landed in self can show whether the source sees it.
    """
    # the fill as the dtype holds it, to nearest, ties to even (NumPy's bfloat16 cast rounds twice)
    full = np.full(before.shape, to_dtype(before.dtype, probe) if is_float(before.dtype) and is_number(probe)
                   else probe, before.dtype)
    writes = (lambda: target.copy_(to_ms(full)),
              lambda: target.__setitem__(slice(None) if before.ndim else (), probe))
    for write in writes:
        try:
            write()
            if _all_equal(from_ms(target), full):
                return None if convert.unreadable(reread.shape) else from_ms(reread)
        except Exception:
            continue
    return None


def _ms_view(base, offset, size, stride):
    # mindspore has no as_strided: its one way to put an arbitrary view over a storage
    # is set_ itself, on a fresh tensor of the source's dtype.
    view = to_ms(np.zeros(0, from_ms(base).dtype))
    view.set_(base.untyped_storage(), offset, list(size), list(stride))
    return view


def _all_equal(a, b) -> bool:
    return np.array_equal(np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64), equal_nan=True)


class FdCapture:
    """Collects what C++ code writes to a file descriptor while the block runs, then passes it on.

    mindspore's reason for a failure is an [ERROR] line its C++ logger writes straight
    to fd 2; Python's sys.stderr never sees it.  One temp file is reused per process.
    """

    def __init__(self, fd: int):
        import tempfile
        self.fd = fd
        self._file = tempfile.TemporaryFile()
        self.text = ""

    def __enter__(self):
        import sys
        sys.stderr.flush()
        self._file.seek(0)
        self._file.truncate()
        self._saved = os.dup(self.fd)
        os.dup2(self._file.fileno(), self.fd)
        return self

    def __exit__(self, *exc):
        import sys
        sys.stderr.flush()
        os.dup2(self._saved, self.fd)
        os.close(self._saved)
        self._file.seek(0)
        raw = self._file.read()
        if raw:
            os.write(self.fd, raw)      # pass it on: the caller's terminal or log still shows it
        self.text = raw.decode("utf-8", "replace")
        return False


def _strip_rules(message: str) -> str:
    # mindspore frames its messages with "-----" rules and "- Kernel select failed:" section
    # headings; a report shows the first line, which must be the reason, not a heading.
    lines = [ln for ln in message.splitlines() if ln.strip() and set(ln.strip()) != {"-"}]
    while len(lines) > 1 and re.fullmatch(r"- [^:]*:", lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def error_lines(text: str, limit: int = 4000) -> str:
    lines = [ln for ln in text.splitlines() if "[ERROR]" in ln]
    return "\n".join(lines)[:limit]


# ---- repro snippets in mindspore's own syntax ----------------------------------------------

_IMPORTS = ["import mindspore", "from mindspore import Parameter, Tensor, ops",
            'mindspore.set_device("CPU")', "mindspore.runtime.launch_blocking()"]

TO_NUMPY = ["def to_numpy(t):   # exact: bf16 through its 16 bits",
            "    if t.dtype == mindspore.bfloat16:",
            "        import ml_dtypes",
            "        return t.contiguous().view(mindspore.int16).asnumpy().view(ml_dtypes.bfloat16)",
            "    return t.asnumpy()"]


def _tensor_maker(construction):
    """The input expression, built as the adapter builds it (to_ms): Tensor(ndarray) (the documented
    way), or Tensor.from_numpy for the from_numpy construction; bf16 through its raw 16 bits."""
    make = "Tensor.from_numpy" if construction == convert.FROM_NUMPY else "Tensor"

    def text(expr, a):
        if convert.is_bf16(a):
            return f"{make}({expr}.view(np.int16)).view(mindspore.bfloat16)"
        return f"{make}({expr})"
    return text


def _element(v, dt):
    return f"Tensor({R.scalar_text(v)}, dtype=mindspore.{dt})"


def _setitem_repro(case, a):
    return [R.setitem_statement(case)], [], ["print(target)"], {"target": "to_numpy(target)"}


def _clip_repro_with(name):
    def parts(case, a):
        lo, hi = R.clip_bound_texts(case, _element)
        return ([f"out = ops.{name}(x, {lo}, {hi})"], [], ["print(out, x)"],
                {"out": "to_numpy(out)", "x": "to_numpy(x)"})
    return parts


def _scatter_parts(call):
    return [f"out = {call}"], [], ["print(out, input)"], {"out": "to_numpy(out)", "input": "to_numpy(input)"}


def _scatter_repro(case, a):
    dim, index, src = R.scatter_arg_texts(case)
    if a.inplace:
        return _scatter_parts(f"input.scatter_({dim}, {index}, {src})")
    return _scatter_parts(f"ops.tensor_scatter_elements(input, {index}, {src}, axis={dim})")


def _scatter_variant_repro(case, a):
    dim, index, src = R.scatter_arg_texts(case)
    return _scatter_parts(f"ops.scatter(input, {dim}, {index}, {src})")


def _scatter_nd_add_repro(case, a):
    return (['x = Parameter(x, name="x")', f"out = ops.scatter_nd_add({', '.join(R.scatter_nd_add_arg_texts(case))})"],
            [], ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _set_repro(case, a):
    call, src = [], "source"
    if a.kind == "storage":
        call.append("src = source.untyped_storage()")
        src = "src"
    elif a.view is not None:
        v = a.view
        call += ["base = source   # mindspore has no as_strided: set_ puts the view over the storage",
                 "source = Tensor(np.zeros(0), dtype=base.dtype)",
                 f"source.set_(base.untyped_storage(), {v.offset!r}, {list(v.size)!r}, {list(v.stride)!r})"]
    call.append(f"target.set_({R.set_arg_text(case, src)})")
    after = ["self_ = to_numpy(target).copy()   # self's values right after set_"]
    outputs = {"self": "self_"}
    if a.kind != "none" and a.probe is not None:
        # fill_ has no CPU kernel in 2.10; copy_ misses some views, where an index write lands (adapter's _probe)
        probe = R.scalar_text(a.probe)
        after += [f"full = np.full(self_.shape, {probe}, self_.dtype)",
                  "source_after_fill = None",
                  "for write in (lambda: target.copy_(Tensor(full)),",
                  f"              lambda: target.__setitem__(slice(None) if self_.ndim else (), {probe})):",
                  "    try:",
                  "        write()",
                  "    except Exception:",
                  "        continue",
                  "    if np.array_equal(to_numpy(target).astype(np.float64), full.astype(np.float64), equal_nan=True):",
                  "        source_after_fill = to_numpy(source)   # only a write that landed in self shows aliasing",
                  "        break"]
        outputs["source_after_fill"] = "source_after_fill"
    return call, after, ["print(self_)"], outputs


# The tables: each op an adapter maps, with its call, its native API and its repro (adapters/mapping.py).
MindsporeAdapter.TABLE = {
    "setitem": OpMap("mindspore.Tensor.__setitem__", _setitem, _setitem_repro),
    "clip": OpMap("mindspore.ops.clamp", _clip_with("clamp"), _clip_repro_with("clamp")),
    "scatter": OpMap("mindspore.ops.tensor_scatter_elements", _scatter, _scatter_repro,
                     lambda a: "mindspore.Tensor.scatter_" if a.inplace else "mindspore.ops.tensor_scatter_elements"),
    "scatter_nd_add": OpMap("mindspore.ops.scatter_nd_add(Parameter)", _scatter_nd_add, _scatter_nd_add_repro),
    "set_": OpMap("mindspore.Tensor.set_ (probe written with Tensor.copy_, else self[:] or self[()] = probe)",
                  _set_, _set_repro),
}
MindsporeVariantAdapter.TABLE = {
    "clip": OpMap("mindspore.ops.clip_by_value", _clip_with("clip_by_value"), _clip_repro_with("clip_by_value")),
    "scatter": OpMap("mindspore.ops.scatter", _scatter_variant, _scatter_variant_repro),
}
MindsporeAdapter.REPRO_IMPORTS = MindsporeVariantAdapter.REPRO_IMPORTS = tuple(_IMPORTS)
MindsporeAdapter.REPRO_SETUP = MindsporeVariantAdapter.REPRO_SETUP = tuple(TO_NUMPY)

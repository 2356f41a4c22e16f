"""tensorflow (tensorflow-cpu) as a candidate: four of the five ops through tensorflow's own API, as its users
write the call.

| op             | native API                                                                          |
|----------------|-------------------------------------------------------------------------------------|
| setitem        | `tf.Variable(target)[key].assign(value)`                                            |
| clip           | `tf.clip_by_value(x, min, max)`                                                     |
| scatter        | `tf.tensor_scatter_nd_update(input, grid, updates)`; scatter_ (inplace): `tf.Variable(input).scatter_nd_update(grid, updates)` |
| scatter_nd_add | `tf.tensor_scatter_nd_add(x, indices, updates)`                                     |
| set_           | none: tensorflow has no tensor that re-points at another's storage (not applicable) |

scatter: tensorflow has no torch-style scatter along a dim; its users write the index grid that torch's rule
implies (`torch_style_grid` below, the same source in the adapter and its repro): for each position p of
`index`, the full coordinate is p with its `dim` entry replaced by index[p] (`tf.meshgrid` of `tf.range`
over index's shape, `indexing="ij"`, axis `dim` swapped for `index`, stacked on a last axis); the updates are
`src[:index.shape[0], :index.shape[1], ...]` (the src values at index's positions), or for the value form
`tf.fill(tf.shape(index), tf.cast(value, input.dtype))` (the scalar cast to input's dtype).  A dim outside
the rank fails in that Python list indexing (IndexError), as it would in a user's code.

scatter_nd_add and scatter: `tf.tensor_scatter_nd_*` are out of place: a `tf.Tensor` is immutable, so "x after
the call" (and scatter's "input after") is the tensor the caller passed, read back unchanged; the documented
in-place update of x (SNA-RETURN) is therefore a listed divergence (suites/expectations/tensorflow.txt), and
`out` is judged on its own.  tensor_scatter_nd_add has no use_locking argument: a case that passes a bool is
called without it; one about use_locking's type has no call to make (not applicable).

setitem: the target is a `tf.Variable` (the one tensorflow object with slice assignment); the key goes to
`Variable.__getitem__` exactly as the case gives it (no pre-validation: a key tensorflow does not support is
its own error), and `target` is the Variable read back.

clip: `tf.clip_by_value` takes both bounds; a case that omits one has no call (not applicable).

tensorflow is imported in setup() only (~6 s); bf16 goes through its raw 16 bits (`tf.bitcast` to and from
int16), exact for every payload.  All ops run eagerly on the CPU with `enable_op_determinism()`.
"""
from __future__ import annotations

import os

import numpy as np

from contract.dtypes import BFLOAT16

from . import convert, execution, frameworks, repro as R
from .base import Outcome
from .mapping import FrameworkAdapter, OpMap

PIN = frameworks.pin("tensorflow")     # adapters/tensorflow_framework.toml


class TensorflowAdapter(FrameworkAdapter):
    name = "tensorflow"
    execution = "tensorflow-cpu eager, op determinism on"
    constructions = (convert.TENSOR,)
    excludes = (
        "clip/not-applicable/* ~ tf.clip_by_value takes both bounds :: "
        "tf.clip_by_value(x, min, max) has no one-sided form: a case omitting a bound has no call to make",
        "scatter_nd_add/not-applicable/* ~ tf.tensor_scatter_nd_add has no use_locking argument :: "
        "tensor_scatter_nd_add takes no locking argument: a case about use_locking's type has no call to make",
    )
    package = "tensorflow"
    distribution = "tensorflow-cpu"
    pin = PIN
    # its own environment, where its worker runs (adapters/environments.py)
    where = f"bash scripts/setup.sh builds .venv-tensorflow with tensorflow-cpu {PIN}"
    REPRO_IMPORTS = ("import tensorflow as tf",)

    def __init__(self):
        self._tf = None

    def setup(self) -> None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")      # errors only; a user's own setting wins
        import tensorflow as tf
        tf.config.experimental.enable_op_determinism()
        self._tf = tf

    def framework(self):
        if self._tf is None:
            self.setup()
        return self._tf

    def tensor(self, array):
        return to_tf(array)

    def tensor_maker(self, construction):
        return _tensor_maker


class TensorflowFunctionAdapter(TensorflowAdapter):
    """The same rows, each framework call compiled by `tf.function(jit_compile=True)` (XLA on the CPU;
    adapters/execution.py): tensors are the function's arguments, keys and Python scalars constants of its
    body, a Variable (setitem, scatter_) created outside it as tf.function requires.  Its eager twin is
    `tensorflow` (the mode-consistency gate)."""
    name = "tensorflow-function"
    execution = "tensorflow-cpu, each call compiled by tf.function(jit_compile=True) (XLA), op determinism on"
    REPRO_COMPILE = "tf.function(jit_compile=True)"     # a function of that expression: tf.function(...)(call)
    REPRO_OUTSIDE = ("tf.Variable(",)

    def compiler(self):
        tf = self.framework()
        return lambda fn: tf.function(fn, jit_compile=True)


# ---- NumPy <-> tensorflow, exact for every dtype (bf16 through its 16 bits) ---------------------

def tf_dtype(name: str):
    import tensorflow as tf
    return getattr(tf, name)          # the suite's dtype names are tensorflow's attribute names


def to_tf(a):
    import tensorflow as tf
    a = np.asarray(a)
    if convert.is_bf16(a):
        return tf.bitcast(tf.constant(a.view(np.int16).copy()), tf.bfloat16)
    return tf.constant(a.copy())        # tf.constant(ndarray): the way tensorflow's guide builds a tensor


def from_tf(t) -> np.ndarray:
    import tensorflow as tf
    t = tf.convert_to_tensor(t)         # a Variable's current value
    if t.dtype == tf.bfloat16:
        return tf.bitcast(t, tf.int16).numpy().view(BFLOAT16).copy()
    return np.array(t.numpy(), copy=True)


# ---- the torch-style index grid: one source, run by the adapter and printed in every repro ---------

GRID_SOURCE = '''def torch_style_grid(index, dim):
    """The tensor_scatter_nd indices of torch's scatter along dim: per position p of index, p with its dim
    entry replaced by index[p]."""
    axes = tf.meshgrid(*[tf.range(n, dtype=index.dtype) for n in index.shape], indexing="ij")
    axes[dim] = index
    return tf.stack(axes, axis=-1)


def torch_style_updates(index, src):
    """src's values at index's positions (torch reads src only there)."""
    return src[tuple(slice(0, n) for n in index.shape)]'''


def _grid_functions(tf):
    ns = {"tf": tf}
    exec(compile(GRID_SOURCE, "<adapters.tensorflow_adapter.GRID_SOURCE>", "exec"), ns)
    return ns["torch_style_grid"], ns["torch_style_updates"]


# ---- one row per op: the call on tensorflow's own tensors, read back from the original objects ----------

def _setitem(tf, a):
    target, key = tf.Variable(a.target), a.key

    def assign(value):
        target[key].assign(value)
    execution.call(assign, a.value)
    return Outcome.returned(target=from_tf(target))


def _clip(tf, a):
    if a.min is None or a.max is None:
        return Outcome.not_applicable("tf.clip_by_value takes both bounds (this case omits one)")

    def element(v, dt):
        return tf.constant(v, dtype=tf_dtype(dt))
    out = execution.call(tf.clip_by_value, a.x, convert.bound(a, "min", element), convert.bound(a, "max", element))
    return Outcome.returned(out=from_tf(out), x=from_tf(a.x))


def _scatter(tf, a):
    grid_of, updates_of = _grid_functions(tf)
    dim, src_form = a.dim, a.src is not None

    def updates(input_, index, src):
        return updates_of(index, src) if src_form else tf.fill(tf.shape(index), tf.cast(src, input_.dtype))
    src = a.src if src_form else a.value
    if a.inplace:
        v = tf.Variable(a.input)

        def update(index, src):
            v.scatter_nd_update(grid_of(index, dim), updates(v, index, src))
        execution.call(update, a.index, src)
        return Outcome.returned(out=from_tf(v), input=from_tf(v))

    def scatter(input_, index, src):
        return tf.tensor_scatter_nd_update(input_, grid_of(index, dim), updates(input_, index, src))
    out = execution.call(scatter, a.input, a.index, src)
    return Outcome.returned(out=from_tf(out), input=from_tf(a.input))


def _scatter_nd_add(tf, a):
    if a.lock_given and not isinstance(a.use_locking, bool):
        return Outcome.not_applicable("tf.tensor_scatter_nd_add has no use_locking argument")
    out = execution.call(tf.tensor_scatter_nd_add, a.x, a.indices, a.updates)
    return Outcome.returned(out=from_tf(out), x=from_tf(a.x))


# ---- repro snippets in tensorflow's own syntax ----------------------------------------------

TO_NUMPY = ["def to_numpy(t):   # exact: bf16 through its 16 bits",
            "    t = tf.convert_to_tensor(t)",
            "    if t.dtype == tf.bfloat16:",
            "        import ml_dtypes",
            "        return tf.bitcast(t, tf.int16).numpy().view(ml_dtypes.bfloat16)",
            "    return t.numpy()"]


def _tensor_maker(expr, a):
    """The input expression, built as the adapter builds it (to_tf): tf.constant, bf16 through its bits."""
    if convert.is_bf16(a):
        return f"tf.bitcast(tf.constant({expr}.view(np.int16)), tf.bfloat16)"
    return f"tf.constant({expr})"


def _element(v, dt):
    return f"tf.constant({R.scalar_text(v)}, dtype=tf.{dt})"


def _setitem_repro(case, a):
    return (["target = tf.Variable(target)",
             f"target[{R.setitem_key_text(case)}].assign({R.value_text(case)})"], [],
            ["print(target)"], {"target": "to_numpy(target)"})


def _clip_repro(case, a):
    lo, hi = R.clip_bound_texts(case, _element)
    return ([f"out = tf.clip_by_value(x, {lo}, {hi})"], [], ["print(out, x)"],
            {"out": "to_numpy(out)", "x": "to_numpy(x)"})


def _scatter_repro(case, a):
    dim, _, src = R.scatter_arg_texts(case)
    updates = ("torch_style_updates(index, src)" if a.src is not None
               else f"tf.fill(tf.shape(index), tf.cast({src}, input.dtype))")
    call = [f"grid = torch_style_grid(index, {dim})", f"updates = {updates}"]
    if a.inplace:
        call += ["input = tf.Variable(input)", "input.scatter_nd_update(grid, updates)", "out = input"]
    else:
        call += ["out = tf.tensor_scatter_nd_update(input, grid, updates)"]
    return call, [], ["print(out, input)"], {"out": "to_numpy(out)", "input": "to_numpy(input)"}


def _scatter_nd_add_repro(case, a):
    return (["out = tf.tensor_scatter_nd_add(x, indices, updates)   # out of place: x keeps its values"], [],
            ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


# The one table: each op tensorflow maps, with its call, its native API and its repro (adapters/mapping.py).
TensorflowAdapter.TABLE = {
    "setitem": OpMap("tf.Variable.__getitem__(key).assign", _setitem, _setitem_repro),
    "clip": OpMap("tf.clip_by_value", _clip, _clip_repro),
    "scatter": OpMap("tf.tensor_scatter_nd_update (torch-style grid)", _scatter, _scatter_repro,
                     lambda a: ("tf.Variable.scatter_nd_update (torch-style grid)" if a.inplace
                                else "tf.tensor_scatter_nd_update (torch-style grid)")),
    "scatter_nd_add": OpMap("tf.tensor_scatter_nd_add", _scatter_nd_add, _scatter_nd_add_repro),
}
TensorflowAdapter.REPRO_SETUP = tuple(TO_NUMPY + [""] + GRID_SOURCE.splitlines())

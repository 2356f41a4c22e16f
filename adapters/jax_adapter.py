"""jax (CPU) as a candidate: four of the five ops through jax's own API, exactly as a user writes the call.

| op             | native API                                                                              |
|----------------|-----------------------------------------------------------------------------------------|
| setitem        | `target = target.at[key].set(value)`                                                    |
| clip           | `jnp.clip(x, min, max)`                                                                 |
| scatter        | `input.at[grid].set(src[tuple(map(slice, index.shape))])`, `grid = jnp.indices(index.shape, sparse=True)` with `grid[dim] = index` |
| scatter_nd_add | `x.at[tuple(indices[..., i] for i in range(indices.shape[-1]))].add(updates)`            |
| set_           | no row: a jax array has no storage to re-point (not applicable)                         |

jax runs on the CPU with `jax_enable_x64` on, so int64/float64 inputs stay 64-bit (without it jax
narrows them to 32 bits on creation, which would blame every op for the conversion).

JAX arrays are immutable.  An in-place contract maps to what a jax user writes instead: the result of
`.at[...]` rebound to the same name.  So
- setitem's `target`, scatter_'s `input` (inplace=True) and scatter_nd_add's `x` are the rebound names:
  the new array the call returned (`target = target.at[key].set(value)`, `input = input.at[...].set(...)`,
  `x = x.at[...].add(updates)`; `out` is that same array);
- the "input after the call" of an out-of-place contract (clip's `x`, scatter's `input` with
  inplace=False) is the original array object, read back after the call: immutable, so unchanged.
The in-place clauses (SC-INPLACE, SNA-RETURN) are thus met by the rebinding the user writes, not by jax.

scatter is torch-style scatter along `dim` (self[..., index[i,j,k], ...] = src[i,j,k], the index at
position `dim`): the natural jax port is one `.at[...].set` whose index is the open grid of index's own
positions, `jnp.indices(index.shape, sparse=True)`, with entry `dim` replaced by `index` itself (a
negative `dim` picks the grid entry from the end, as Python's list does); src is read at index's
positions (`src[:index.shape[0], :index.shape[1], ...]`), a scalar value as it is.  Like every jax
scatter, an index out of bounds is dropped, a negative one counts from the end, and for duplicate
positions jax does not say which update wins.

jax is imported in setup() only, in the worker's own environment (.venv-jax, adapters/environments.py).
"""
from __future__ import annotations

import os

import numpy as np

from . import convert, execution, frameworks, repro as R
from .base import Outcome
from .mapping import FrameworkAdapter, OpMap

PIN = frameworks.pin("jax")     # adapters/jax_framework.toml


class JaxAdapter(FrameworkAdapter):
    name = "jax"
    execution = "jax CPU (jax_enable_x64)"
    excludes = ("scatter_nd_add/not-applicable/* ~ jax's .at\\[\\].add has no use_locking argument :: "
                "Array.at[...].add takes no locking argument: a case about use_locking's type has no call to make",)
    package = "jax"
    pin = PIN
    # its own environment (scripts/setup.sh), where its worker runs (adapters/environments.py)
    where = f"bash scripts/setup.sh builds .venv-jax with jax {PIN} (CPU)"
    REPRO_IMPORTS = ("import jax", 'jax.config.update("jax_platforms", "cpu")',
                     'jax.config.update("jax_enable_x64", True)', "import jax.numpy as jnp")
    REPRO_SETUP = ("def to_numpy(t):   # jax arrays convert exactly, bfloat16 included (ml_dtypes)",
                   "    return np.array(t)")

    def __init__(self):
        self._jax = None

    def setup(self) -> None:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        self._jax = jnp

    def framework(self):
        if self._jax is None:
            self.setup()
        return self._jax

    def tensor(self, array):
        # jnp.array copies the NumPy array into a jax array, as jax's docs show users making one
        return self.framework().array(np.asarray(array))

    def tensor_maker(self, construction):
        return lambda expr, a: f"jnp.array({expr})"


class JaxJitAdapter(JaxAdapter):
    """The same rows, each framework call compiled with `jax.jit` (adapters/execution.py): the tensors are
    the jitted function's arguments, keys and Python scalars constants of its body.  A fresh function per
    call, as a user's jitted function of that key; its eager twin is `jax` (the mode-consistency gate)."""
    name = "jax-jit"
    execution = "jax CPU (jax_enable_x64), each call compiled with jax.jit"
    REPRO_COMPILE = "jax.jit"

    def compiler(self):
        import jax
        return jax.jit


def from_jax(t) -> np.ndarray:
    return np.array(t, copy=True)


# ---- one row per op: the call on jax arrays; an in-place contract is the rebound name ---------------------

def _setitem(jnp, a):
    key = a.key
    target = execution.call(lambda target, value: target.at[key].set(value), a.target, a.value)
    return Outcome.returned(target=from_jax(target))


def _clip(jnp, a):
    def element(v, dt):
        return jnp.array(v, dtype=dt)
    x = a.x
    out = execution.call(jnp.clip, x, convert.bound(a, "min", element), convert.bound(a, "max", element))
    return Outcome.returned(out=from_jax(out), x=from_jax(x))


def _scatter(jnp, a):
    dim, src_form = a.dim, a.src is not None

    def scatter(input_, index, src):
        grid = list(jnp.indices(index.shape, sparse=True))
        grid[dim] = index
        if src_form:
            src = src[tuple(map(slice, index.shape))]      # src read at index's positions
        return input_.at[tuple(grid)].set(src)
    input_ = a.input
    out = execution.call(scatter, input_, a.index, a.value if a.src is None else a.src)
    if a.inplace:
        input_ = out            # scatter_: `input = input.at[...].set(...)`, the name rebound
    return Outcome.returned(out=from_jax(out), input=from_jax(input_))


def _scatter_nd_add(jnp, a):
    if a.lock_given and not isinstance(a.use_locking, bool):
        return Outcome.not_applicable("jax's .at[].add has no use_locking argument")
    x = execution.call(lambda x, indices, updates: x.at[tuple(indices[..., i] for i in range(indices.shape[-1]))]
                       .add(updates), a.x, a.indices, a.updates)
    return Outcome.returned(out=from_jax(x), x=from_jax(x))     # `x = x.at[...].add(updates)`; out is x


# ---- repro snippets in jax's own syntax -----------------------------------------------------------

def _element(v, dt):
    return f"jnp.array({R.scalar_text(v)}, dtype=jnp.{dt})"


def _setitem_repro(case, a):
    key = R.setitem_key_text(case)
    return ([f"target = target.at[{key}].set({R.value_text(case)})"], [], ["print(target)"],
            {"target": "to_numpy(target)"})


def _clip_repro(case, a):
    lo, hi = R.clip_bound_texts(case, _element)
    return [f"out = jnp.clip(x, {lo}, {hi})"], [], ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"}


def _scatter_repro(case, a):
    dim, _, src = R.scatter_arg_texts(case)
    if "src" in case.inputs:
        src = "src[tuple(map(slice, index.shape))]"      # src read at index's positions
    call = ["grid = list(jnp.indices(index.shape, sparse=True))   # index's own positions",
            f"grid[{dim}] = index                                  # along dim: the index itself",
            f"out = input.at[tuple(grid)].set({src})"]
    if a.inplace:
        call.append("input = out   # scatter_: the name rebound (jax arrays are immutable)")
    return call, [], ["print(out, input)"], {"out": "to_numpy(out)", "input": "to_numpy(input)"}


def _scatter_nd_add_repro(case, a):
    return (["x = x.at[tuple(indices[..., i] for i in range(indices.shape[-1]))].add(updates)",
             "out = x   # the name rebound: x is the result (jax arrays are immutable)"],
            [], ["print(out)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"})


# The one table: each op jax maps, with its call, its native API and its repro (adapters/mapping.py).
JaxAdapter.TABLE = {
    "setitem": OpMap("jax.Array.at[key].set", _setitem, _setitem_repro),
    "clip": OpMap("jax.numpy.clip", _clip, _clip_repro),
    "scatter": OpMap("jax.Array.at[jnp.indices grid, index along dim].set", _scatter, _scatter_repro,
                     lambda a: "jax.Array.at[jnp.indices grid, index along dim].set (input rebound)" if a.inplace
                     else "jax.Array.at[jnp.indices grid, index along dim].set"),
    "scatter_nd_add": OpMap("jax.Array.at[tuple(indices[..., i])].add", _scatter_nd_add, _scatter_nd_add_repro),
}

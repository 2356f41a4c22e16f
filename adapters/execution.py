"""Execution modes: the same row of an adapter's table, run eagerly or compiled (docs/DESIGN.md, "Modes").

A row wraps exactly the framework call a user would compile in `call(fn, *args)`: eagerly that is
`fn(*args)`; inside `compiling(compiler)` it is `compiler(fn)(*args)`, a fresh compiled function per
call (jax.jit, tf.function(jit_compile=True)).  Building the inputs and reading the outputs back stay
outside, as in a user's program, so a mode differs from its eager twin only in how the call executes.

A compiled mode is an adapter of its own (`torch-compile`, `mindspore-graph`, `jax-jit`,
`tensorflow-function`), named with its eager twin in adapters/registry.py (MODES); the mode-consistency gate (suites/variants.py) compares the two case by
case.  A row that does not wrap its call runs eagerly in every mode: such a row is not ready for modes.
"""
from __future__ import annotations

import contextlib
import contextvars

_COMPILER = contextvars.ContextVar("compiler", default=None)


@contextlib.contextmanager
def compiling(compiler):
    """Rows called inside this block run their framework call through `compiler` (None: eagerly)."""
    token = _COMPILER.set(compiler)
    try:
        yield
    finally:
        _COMPILER.reset(token)


def call(fn, *args):
    """`fn(*args)`, compiled by the current mode's compiler where there is one.

    Compiled, the tensors among `args` (anything with a shape and a dtype) are the compiled function's
    arguments; the rest (a key, a Python scalar, None) are constants of its body, as in a user's
    `jax.jit(lambda t: t.at[key].set(3.0))(t)`."""
    compiler = _COMPILER.get()
    if compiler is None:
        return fn(*args)
    traced = [i for i, a in enumerate(args) if hasattr(a, "shape") and hasattr(a, "dtype")]

    def body(*tensors):
        full = list(args)
        for i, t in zip(traced, tensors):
            full[i] = t
        return fn(*full)
    return compiler(body)(*(args[i] for i in traced))


def functional(compiler):
    """`compiler` marked as compiling functions whose writes to a tensor argument reach the caller only
    through what the function returns (MindSpore's graph mode: a graph takes its arguments as values), so a
    user of the mode writes `t = compiled(t)`; see written()."""
    compiler.functional = True
    return compiler


def written(original, returned):
    """The tensor a program reads an in-place write from after a row's call: `original` eagerly and in a
    mode whose compiled calls write their arguments (torch.compile, which replays the mutation); in a
    functional() mode the compiled function's `returned` copy of it, the name rebound as a user of the mode
    writes it.  Rows of a framework with such a mode return their in-place operands from the call."""
    return returned if getattr(_COMPILER.get(), "functional", False) else original

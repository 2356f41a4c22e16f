"""Finding adapters: built-in names, the `tensor_conformance.adapters` entry point group, `module:Class`."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

from .base import Adapter

GROUP = "tensor_conformance.adapters"

# The built-in adapters, so they are found from a plain checkout that was never pip-installed.
BUILTIN = {
    "oracle": "adapters.oracle_adapter:OracleAdapter",
    "torch": "adapters.torch_adapter:TorchAdapter",
    "torch-compile": "adapters.torch_adapter:TorchCompileAdapter",
    "mindspore": "adapters.mindspore_adapter:MindsporeAdapter",
    "mindspore-variants": "adapters.mindspore_adapter:MindsporeVariantAdapter",
    "mindspore-graph": "adapters.mindspore_adapter:MindsporeGraphAdapter",
    "pypto": "adapters.pypto_adapter:PyptoAdapter",
    "jax": "adapters.jax_adapter:JaxAdapter",
    "jax-jit": "adapters.jax_adapter:JaxJitAdapter",
    # any array API namespace, named after the colon (a built-in name wins over module:Class in resolve())
    "array-api:numpy": "adapters.array_api_adapter:NumpyArrayApi",
    "array-api:array_api_strict": "adapters.array_api_adapter:StrictArrayApi",
    # tensorflow and paddle: each in its own environment (adapters/environments.py)
    "tensorflow": "adapters.tensorflow_adapter:TensorflowAdapter",
    "tensorflow-function": "adapters.tensorflow_adapter:TensorflowFunctionAdapter",
    "paddle": "adapters.paddle_adapter:PaddleAdapter",
    "paddle-variants": "adapters.paddle_adapter:PaddleVariantAdapter",
}

# The compiled execution modes among them, each with its eager twin: the mode-consistency gate
# (suites/modes.py) holds a mode to its twin's answer case by case.  Decided here, from the spec the
# harness was given, so no candidate can pick the adapter it is compared with.
MODES = {"torch-compile": "torch", "mindspore-graph": "mindspore", "jax-jit": "jax", "tensorflow-function": "tensorflow"}


def eager_twin(spec: str) -> str:
    """The eager adapter a shipped compiled mode must agree with ('' for any other spec)."""
    name = shipped_name(spec)
    return MODES.get(name, "") if name and not split_construction(spec)[1] else ""


class AdapterError(LookupError):
    """An adapter spec that names nothing loadable; the message says what is known."""


@dataclass
class AdapterInfo:
    """What a worker said about an adapter when asked (adapters.pool.probe, adapters.catalog)."""
    name: str
    spec: str               # what loads it: module:Class
    version: str
    available: bool
    reason: str
    ops: tuple = ()
    execution: str = ""     # the adapter's own words (the pool adds how it is isolated)
    python: str = ""        # the interpreter the worker ran under
    python_version: str = ""
    numpy: str = ""         # the NumPy version in that interpreter
    identity: dict = None   # conform certify: what the harness measured of it (adapters/identity.py)
    excludes: tuple = ()    # its declared exclusions (adapters.base.Adapter.excludes)
    constructions: tuple = ()   # the ways it builds its inputs, its default first (adapters.base.Adapter)
    layouts: tuple = ()         # the non-default memory layouts it builds natively (adapters/layouts.py)


def known() -> dict:
    """name -> module:Class for every adapter found by name (built-ins, then installed entry points)."""
    found = dict(BUILTIN)
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def split_construction(spec: str) -> tuple:
    """'torch@from_numpy' -> ('torch', 'from_numpy'); a spec without '@' -> (spec, '')."""
    base, at, how = spec.rpartition("@")
    return (base, how) if at and base else (spec, "")


def shipped_name(spec: str):
    """The BUILTIN name of a shipped adapter's spec (its name, or exactly its module:Class), else None.

    Decided from the spec the harness was given, before any candidate code runs: a subclass of a
    shipped adapter, or a candidate calling itself "torch", is not the shipped adapter."""
    base = split_construction(spec)[0]
    if base in BUILTIN:
        return base
    return next((name for name, target in BUILTIN.items() if target == base), None)


def resolve(spec: str) -> str:
    """A name or module:Class (optionally @construction) -> module:Class (with the same @construction).

    A built-in name wins over the module:Class reading, since some hold a colon ("array-api:numpy")."""
    base, how = split_construction(spec)
    if how:
        return f"{resolve(base)}@{how}"
    if spec in BUILTIN:
        return BUILTIN[spec]
    if ":" in spec:
        return spec
    table = known()
    if spec not in table:
        raise AdapterError(f"unknown adapter {spec!r}; known adapters: {', '.join(sorted(table))} "
                           "(or give package.module:Class)")
    return table[spec]


def load_class(spec: str):
    target = resolve(split_construction(spec)[0])
    module, _, attr = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except Exception as e:      # an ImportError, or whatever a vendor's module raises on import
        raise AdapterError(f"adapter {spec!r}: cannot import {module}: {type(e).__name__}: {e}") from e
    try:
        cls = getattr(mod, attr)
    except AttributeError:
        raise AdapterError(f"adapter {spec!r}: module {module} has no {attr}") from None
    return cls


def load(spec: str):
    """An adapter instance for a name, an entry point name or module:Class (setup() not yet called)."""
    cls = load_class(spec)
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise AdapterError(f"adapter {spec!r}: {cls!r} is not a subclass of adapters.base.Adapter")
    a = cls()
    a.construction = a.constructions[0] if a.constructions else ""
    how = split_construction(spec)[1]
    if how and how in getattr(a, "layouts", ()):
        a.layout = how
        a.name = f"{a.name}@{how}"      # a layout is reported as an adapter of its own, like a construction
    elif how:
        if how not in a.constructions:
            raise AdapterError(f"adapter {spec!r}: {a.name} builds its inputs "
                               f"{' or '.join(a.constructions) or 'one way only'}, not {how!r}")
        a.construction = how
        if how != a.constructions[0]:
            a.name = f"{a.name}@{how}"      # a second construction is reported as an adapter of its own
    return a

"""Finding adapters: built-in names, the `tensor_conformance.adapters` entry point group, `module:Class`."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

GROUP = "tensor_conformance.adapters"

# The built-in adapters, so they are found from a plain checkout that was never pip-installed.
BUILTIN = {
    "oracle": "adapters.oracle_adapter:OracleAdapter",
    "torch": "adapters.torch_adapter:TorchAdapter",
    "mindspore": "adapters.mindspore_adapter:MindsporeAdapter",
    "mindspore-variants": "adapters.mindspore_adapter:MindsporeVariantAdapter",
    "pypto": "adapters.pypto_adapter:PyptoAdapter",
}


class AdapterError(LookupError):
    """An adapter spec that names nothing loadable; the message says what is known."""


@dataclass
class AdapterInfo:
    name: str
    spec: str               # what loads it: module:Class
    version: str
    available: bool
    reason: str
    python: str = ""        # the interpreter that was asked, where it is not this one (adapters.environments)


def known() -> dict:
    """name -> module:Class for every adapter found by name (built-ins, then installed entry points)."""
    found = dict(BUILTIN)
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def resolve(spec: str) -> str:
    """A name or module:Class -> module:Class."""
    if ":" in spec:
        return spec
    table = known()
    if spec not in table:
        raise AdapterError(f"unknown adapter {spec!r}; known adapters: {', '.join(sorted(table))} "
                           "(or give package.module:Class)")
    return table[spec]


def load_class(spec: str):
    target = resolve(spec)
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
    from .base import Adapter
    cls = load_class(spec)
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise AdapterError(f"adapter {spec!r}: {cls!r} is not a subclass of adapters.base.Adapter")
    return cls()


def info(spec: str) -> AdapterInfo:
    """What `conform adapters` prints for one adapter; never raises for an adapter that is merely missing."""
    try:
        target = resolve(spec)
    except AdapterError as e:
        return AdapterInfo(spec, spec, "", False, str(e))
    try:
        a = load(spec)
        name = a.name if ":" in spec else spec
        ok, reason = a.available()
        version = _safe(a.version) if ok else ""
    except AdapterError as e:
        return AdapterInfo(spec, target, "", False, str(e))
    except Exception as e:      # a vendor adapter whose constructor or available() fails
        return AdapterInfo(spec, target, "", False, f"{type(e).__name__}: {e}")
    return AdapterInfo(name, target, version, bool(ok), reason or "")


def available_adapters() -> list:
    return [info(name) for name in sorted(known())]


def _safe(f):
    try:
        return str(f())
    except Exception as e:
        return f"unknown ({type(e).__name__}: {e})"

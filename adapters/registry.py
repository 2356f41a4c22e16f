"""Finding adapters: built-in names, the `tensor_conformance.adapters` entry point group, `module:Class`."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

from .base import Adapter
from .frameworks import FRAMEWORKS

GROUP = "tensor_conformance.adapters"

@dataclass(frozen=True)
class Shipped:
    """One shipped adapter: all the harness knows of it, decided here from the name it was given (never from what
    a candidate says of itself).  A view of its framework's declaration (adapters/frameworks.py)."""
    class_path: str                 # module:Class, found from a plain checkout that was never pip-installed
    frameworks: tuple = ()          # the distributions it wraps, whose versions a certificate records
    environment: str = ""           # the environment scripts/setup.sh builds for its workers ("": the main one)
    twin: str = ""                  # a compiled mode's eager twin: the mode-consistency gate (suites/variants.py)
                                    # holds it to the twin's answer case by case
    compile_cache: bool = False     # its framework keeps compiled kernels in a folder the harness gives it
    sampled: bool = False           # pytest runs it on the corpus's stratified sample (every new shape costs
                                    # a compile); `conform run` runs everything
    releases: tuple = ()            # the releases of `release_package` it runs (adapters/releases.py), its
                                    # default pin first; `conform run --release NAME=VERSION` runs another
    release_package: str = ""       # the distribution those releases are of
    release_needs: tuple = ()       # what else a release's environment gets (pip requirement strings)


def _rows() -> dict:
    """The oracle (the harness's own), then every declared framework's adapters (adapters/frameworks.py)."""
    rows = {"oracle": Shipped("adapters.oracle_adapter:OracleAdapter")}
    for fw in FRAMEWORKS.values():
        for a in fw.adapters:
            rows[a.name] = Shipped(a.class_path, fw.distributions, fw.environment, a.twin, a.compile_cache, a.sampled,
                                   fw.all_releases, fw.release_package if fw.releases else "", fw.release_needs)
    return rows


# The shipped adapters, one row each, derived from the frameworks' declarations (adapters/<name>_framework.toml).
# A built-in name wins over the module:Class reading in resolve(), since some hold a colon ("array-api:numpy").
SHIPPED = _rows()

# Views of the table, by what each reader asks.
BUILTIN = {name: row.class_path for name, row in SHIPPED.items()}
MODES = {name: row.twin for name, row in SHIPPED.items() if row.twin}


def eager_twin(target: str) -> str:
    """The eager adapter a shipped compiled mode must agree with ('' for any other target)."""
    name = shipped_name(target)
    return MODES.get(name, "") if name and not split_construction(target)[1] else ""


class AdapterError(LookupError):
    """An adapter target that names nothing loadable; the message says what is known."""


@dataclass
class AdapterInfo:
    """What a worker said about an adapter when asked (adapters.pool.probe, adapters.catalog)."""
    name: str
    class_path: str         # what loads it: module:Class
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
    crashes: tuple = ()     # its declared known framework crashes (adapters.base.Adapter.crashes)
    constructions: tuple = ()   # the ways it builds its inputs, its default first (adapters.base.Adapter)
    layouts: tuple = ()         # the non-default memory layouts it builds natively (adapters/layouts.py)


def known() -> dict:
    """name -> module:Class for every adapter found by name (built-ins, then installed entry points)."""
    found = dict(BUILTIN)
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def split_construction(target: str) -> tuple:
    """'torch@from_numpy' -> ('torch', 'from_numpy'); a target without '@' -> (target, '')."""
    base, at, how = target.rpartition("@")
    return (base, how) if at and base else (target, "")


def shipped_name(target: str):
    """The BUILTIN name of a shipped adapter's target (its name, or exactly its module:Class), else None.

    Decided from the target the harness was given, before any candidate code runs: a subclass of a
    shipped adapter, or a candidate calling itself "torch", is not the shipped adapter."""
    base = split_construction(target)[0]
    if base in BUILTIN:
        return base
    return next((name for name, class_path in BUILTIN.items() if class_path == base), None)


def resolve(target: str) -> str:
    """A name or module:Class (optionally @construction) -> module:Class (with the same @construction).

    A built-in name wins over the module:Class reading, since some hold a colon ("array-api:numpy")."""
    base, how = split_construction(target)
    if how:
        return f"{resolve(base)}@{how}"
    if target in BUILTIN:
        return BUILTIN[target]
    if ":" in target:
        return target
    table = known()
    if target not in table:
        raise AdapterError(f"unknown adapter {target!r}; known adapters: {', '.join(sorted(table))} "
                           "(or give package.module:Class)")
    return table[target]


def load_class(target: str):
    module, _, attr = resolve(split_construction(target)[0]).partition(":")
    try:
        mod = importlib.import_module(module)
    except Exception as e:      # an ImportError, or whatever a vendor's module raises on import
        raise AdapterError(f"adapter {target!r}: cannot import {module}: {type(e).__name__}: {e}") from e
    try:
        cls = getattr(mod, attr)
    except AttributeError:
        raise AdapterError(f"adapter {target!r}: module {module} has no {attr}") from None
    return cls


def load(target: str):
    """An adapter instance for a name, an entry point name or module:Class (setup() not yet called)."""
    cls = load_class(target)
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise AdapterError(f"adapter {target!r}: {cls!r} is not a subclass of adapters.base.Adapter")
    a = cls()
    a.construction = a.constructions[0] if a.constructions else ""
    how = split_construction(target)[1]
    if how and how in getattr(a, "layouts", ()):
        a.layout = how
        a.name = f"{a.name}@{how}"      # a layout is reported as an adapter of its own, like a construction
    elif how:
        if how not in a.constructions:
            raise AdapterError(f"adapter {target!r}: {a.name} builds its inputs "
                               f"{' or '.join(a.constructions) or 'one way only'}, not {how!r}")
        a.construction = how
        if how != a.constructions[0]:
            a.name = f"{a.name}@{how}"      # a second construction is reported as an adapter of its own
    return a

"""The op registry: every table about ops, derived from the OpSpec each op module declares.

`discover()` (run once, when the `oracle` package is imported) imports every module of the package
that assigns a module-level `SPEC` and registers it; an op defined outside the package registers with
`register(spec)`.  Ops are kept in registration order: the package's modules in name order, then
out-of-tree ones.  Nothing else in the project lists the ops.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from types import MappingProxyType

from .opspec import OpSpec

_SPECS: dict = {}
_CLAUSES: dict = {}
SPECS = MappingProxyType(_SPECS)        # op name -> OpSpec (live: follows register/unregister)
CLAUSES = MappingProxyType(_CLAUSES)    # clause id -> Clause, op by op in document order (live)


class UnknownOp(ValueError):
    """A case names an op no module declares."""


def register(spec: OpSpec) -> OpSpec:
    """Add an op; its name, clause ids and clause prefix must be new (registering the same spec again
    is a no-op)."""
    if not isinstance(spec, OpSpec):
        raise TypeError(f"register() takes an OpSpec, got {type(spec).__name__}")
    if _SPECS.get(spec.name) is spec:
        return spec
    if spec.name in _SPECS:
        raise ValueError(f"op {spec.name!r} is already registered")
    taken = clause_prefixes()
    if spec.prefix in taken:
        raise ValueError(f"op {spec.name!r}: clause prefix {spec.prefix} is {taken[spec.prefix]}'s")
    _SPECS[spec.name] = spec
    _CLAUSES.update((c.id, c) for c in spec.clauses)
    return spec


def unregister(name: str) -> None:
    """Remove an op registered with `register` (a test's toy op, at teardown)."""
    spec = _SPECS.pop(name)
    for c in spec.clauses:
        _CLAUSES.pop(c.id, None)


def discover() -> None:
    """Register the SPEC of every module of the oracle package, in module-name order."""
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        name = f"{__package__}.{info.name}"
        if info.name.startswith("_") or not _declares_spec(name):
            continue
        spec = getattr(importlib.import_module(name), "SPEC", None)
        if isinstance(spec, OpSpec):
            register(spec)


def _declares_spec(name: str) -> bool:
    # Only op modules are imported: importing the others here (spec_doc) would make
    # `python -m oracle.spec_doc` run a second copy of an already imported module.
    source = importlib.util.find_spec(name).loader.get_source(name) or ""
    return any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SPEC" for t in node.targets)
               for node in ast.parse(source).body)


def ops() -> tuple:
    return tuple(_SPECS)


def spec(op: str) -> OpSpec:
    try:
        return _SPECS[op]
    except (KeyError, TypeError):
        raise UnknownOp(f"unknown op {op!r}; ops are {', '.join(_SPECS)}") from None


def outputs(op: str) -> tuple:
    """The output names of an op's cases, primary first."""
    return spec(op).output_names


def documents() -> dict:
    """op -> the file name of its source document."""
    return {name: s.source for name, s in _SPECS.items()}


def clause_prefixes() -> dict:
    """clause id prefix -> op ("CL" -> "clip")."""
    return {s.prefix: name for name, s in _SPECS.items()}


def op_of_clause(cid: str) -> str:
    """The op a clause id belongs to: its registry entry, else its prefix; "" when neither is known."""
    c = _CLAUSES.get(cid)
    return c.op if c is not None else clause_prefixes().get(str(cid).split("-", 1)[0], "")


def __getattr__(name):
    # The derived tables as names too, computed at each access so an op registered later shows.
    derived = {"OPS": ops, "OUTPUTS": lambda: {op: s.output_names for op, s in _SPECS.items()},
               "DOCUMENTS": documents, "CLAUSE_PREFIX": clause_prefixes,
               "SOLVERS": lambda: {op: s.solve for op, s in _SPECS.items()}}
    if name in derived:
        return derived[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Mutant adapters: the oracle adapter with one small, realistic bug each, for `conform selftest`.

One module per op; each mutant is a small subclass of `base.Mutant` whose one-line
docstring names its bug and whose `witness()` is a case it must get wrong
(tests/test_mutants.py proves each one differs from the oracle there).  A mutant is
also an ordinary adapter: `conform run --adapter adapters.mutants.clip:NanBoundIgnored`.

MUTANTS is derived from the modules: every public Mutant subclass defined in one, in
definition order, so adding a mutant is adding a class.
"""
from __future__ import annotations

import importlib
import pkgutil
from fnmatch import fnmatchcase

from .base import Mutant


def _op_modules() -> tuple:
    # one module per op, found here, not listed (docs/ADDING_AN_OP.md): every module but the base
    return tuple(importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)
                 if info.name != "base" and not info.name.startswith("_"))


MODULES = _op_modules()


def _defined_in(module) -> list:
    return [v for k, v in vars(module).items()
            if isinstance(v, type) and issubclass(v, Mutant) and v.__module__ == module.__name__
            and not k.startswith("_")]


MUTANTS = tuple(cls for m in MODULES for cls in _defined_in(m))


def select(pattern: str = "*") -> list:
    """The mutant classes whose name (`op.bug-name`, e.g. `clip.nan-bound-ignored`) matches the glob."""
    return [m for m in MUTANTS if fnmatchcase(m.name, pattern)]


__all__ = ["Mutant", "MUTANTS", "MODULES", "select"]

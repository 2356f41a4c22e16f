"""Adapters put an implementation under test: `load(spec)` finds one by name, entry point or module:Class."""
from . import settings  # noqa: F401 - first: a bad limit in the environment stops here, once, in one line
from .registry import AdapterError, AdapterInfo, available_adapters, known, load, resolve

__all__ = ["AdapterError", "AdapterInfo", "available_adapters", "known", "load", "resolve"]

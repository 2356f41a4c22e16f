"""Adapters put an implementation under test: `load(spec)` finds one by name, entry point or module:Class."""
from . import settings  # noqa: F401 - first: a bad limit in the environment stops here, once, in one line
from .registry import AdapterError, AdapterInfo, known, load, resolve

# what every adapter says of itself (workers answer): adapters.catalog.available_adapters
__all__ = ["AdapterError", "AdapterInfo", "known", "load", "resolve"]

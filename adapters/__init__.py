"""Adapters put an implementation under test: `load(spec)` finds one by name, entry point or module:Class."""
from .registry import AdapterError, AdapterInfo, available_adapters, known, load, resolve

__all__ = ["AdapterError", "AdapterInfo", "available_adapters", "known", "load", "resolve"]

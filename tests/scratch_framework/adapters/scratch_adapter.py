"""A scratch framework for tests/test_adding_a_framework.py: NumPy's array API namespace under a name of its own.

It is copied into a scratch copy of the tree beside its declaration and its expectations file, and nothing else
changes there: that is all adding a framework takes."""
from __future__ import annotations

from .array_api_adapter import ArrayApiAdapter


class ScratchAdapter(ArrayApiAdapter):
    name = "scratch"
    namespace = "numpy"         # the namespace the array API calls go to (ArrayApiAdapter reads it off the name)

"""Limits the harness reads from its environment (CONFORM_MAX_REPLY_MB, CONFORM_WORKER_RSS_MB).

A module of its own, imported before the modules that read them: when a bad value stops one of those
imports, and another thread imports it again, the line saying why is still written once.
"""
from __future__ import annotations

import os
import sys

from contract.vocabulary import EXIT_USAGE

_TOLD = set()       # the names whose bad value was already reported

def mib_from_env(name: str, default: int) -> int:
    """The environment variable `name`, a whole number of MiB > 0 (`default` when unset), in MiB.  Any other
    value stops the process with one line naming it, exit 2: a bad setting, like a bad option."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    if name not in _TOLD:       # a module whose import failed is imported again (by another thread): one line
        _TOLD.add(name)
        sys.stderr.write(f"conform: error: {name} must be a whole number of MiB > 0, got {raw[:40]!r}\n")
    raise SystemExit(EXIT_USAGE)

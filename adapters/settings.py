"""Limits the harness reads from its environment: CONFORM_MAX_REPLY_MB, CONFORM_WORKER_RSS_MB.

Read once, when the adapters package is imported (adapters/__init__.py imports this first): a bad value
stops `conform` there, with one line, before any thread imports the modules that use them.
"""
from __future__ import annotations

import os
import sys

from contract.vocabulary import EXIT_USAGE


def mib_from_env(name: str, default: int) -> int:
    """The environment variable `name`, a whole number of MiB > 0 (`default` when unset), in MiB.  Any other
    value stops the process with one line naming it, exit 2: a bad setting, like a bad option."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    sys.stderr.write(f"conform: error: {name} must be a whole number of MiB > 0, got {raw[:40]!r}\n")
    raise SystemExit(EXIT_USAGE)


MAX_REPLY_MB = mib_from_env("CONFORM_MAX_REPLY_MB", 256)        # adapters.wire.MAX_REPLY_BYTES
WORKER_RSS_MB = mib_from_env("CONFORM_WORKER_RSS_MB", 8192)     # adapters.pool.RSS_LIMIT_MB

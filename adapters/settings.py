"""Limits the harness reads from its environment: CONFORM_MAX_REPLY_MB, CONFORM_WORKER_RSS_MB,
CONFORM_WORKER_THREADS.

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


def threads_from_env(name: str) -> int:
    """The environment variable `name`: a whole number of threads > 0 (1 when unset), or 0 for `default`
    (the frameworks' own choice).  Any other value stops the process with one line naming it, exit 2."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return 1
    if raw == "default":
        return 0
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    sys.stderr.write(f"conform: error: {name} must be a whole number > 0 or 'default', got {raw[:40]!r}\n")
    raise SystemExit(EXIT_USAGE)


WORKER_THREADS_ENV = "CONFORM_WORKER_THREADS"
WORKER_THREADS = threads_from_env(WORKER_THREADS_ENV)     # adapters.threads

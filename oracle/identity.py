"""Which oracle judged: the suite version and a digest of the oracle package's own sources.

A results header records it (`oracle`), and the history store (conform/history_store.py) records it for
every stored verdict, so a re-judged history says which oracle gave each verdict (docs/HISTORY.md)."""
from __future__ import annotations

import functools
import glob
import hashlib
import os


@functools.lru_cache(maxsize=1)
def oracle_id() -> str:
    from contract.vocabulary import SUITE_VERSION
    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        h.update(os.path.relpath(path, root).encode() + b"\0")
        with open(path, "rb") as f:
            h.update(f.read())
    return f"{SUITE_VERSION}+{h.hexdigest()[:12]}"

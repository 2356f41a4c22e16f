"""Emptying a folder a candidate may have written: links removed, never followed; folders it made unreadable
opened up first.  Standard library only (the pool and the compile cache use it before any framework)."""
from __future__ import annotations

import os
import shutil


def empty(path: str) -> list:
    """Remove everything in the folder `path`; what could not be removed (names), [] when it is empty."""
    def unlock(func, where, exc):
        try:
            os.chmod(os.path.dirname(where), 0o700)
            if os.path.isdir(where) and not os.path.islink(where):
                os.chmod(where, 0o700)
                shutil.rmtree(where, onerror=again)
            else:
                os.unlink(where)
        except OSError:
            pass

    def again(func, where, exc):
        try:
            os.chmod(where, 0o700)
            func(where)
        except OSError:
            pass
    os.chmod(path, 0o700)
    for entry in os.listdir(path):
        where = os.path.join(path, entry)
        if os.path.isdir(where) and not os.path.islink(where):
            shutil.rmtree(where, onerror=unlock)
        else:
            os.unlink(where)
    return os.listdir(path)

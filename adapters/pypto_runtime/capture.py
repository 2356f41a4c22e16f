"""Capture what pypto prints during a call, at the file-descriptor level.

pypto's parser prints a coloured diagnostic to stdout and its C++ side writes to
fds 1 and 2 directly; a worker whose protocol uses stdout must not see any of it.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Captured:
    text: str = ""


@contextlib.contextmanager
def capture_output(limit: int = 8000):
    """Redirect fds 1 and 2 into a temporary file for the block; `.text` holds it (ANSI colours removed)."""
    got = Captured()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield got
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            raw = sink.read().decode("utf-8", "replace")
            got.text = _ANSI.sub("", raw)[-limit:]

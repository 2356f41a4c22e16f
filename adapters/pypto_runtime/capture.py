"""Capture what pypto prints during a call: its Python prints and what its C++ writes to fds 1 and 2.

pypto's parser prints a coloured diagnostic with print() (to whatever sys.stdout
is: the worker's stderr, pytest's capture...) and its C++ side writes to fds 1
and 2 directly.  Both are pointed at one temporary file for the block, so none of
it reaches a worker protocol or a test's output, and the text becomes the
outcome's stderr.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Captured:
    text: str = ""


@contextlib.contextmanager
def capture_output(limit: int = 8000):
    """Redirect fds 1 and 2 and sys.stdout/sys.stderr into a temporary file; `.text` holds it, uncoloured."""
    got = Captured()
    _flush()
    saved_fds = [os.dup(1), os.dup(2)]
    saved_streams = sys.stdout, sys.stderr
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        stream = io.TextIOWrapper(io.FileIO(os.dup(sink.fileno()), "w"), encoding="utf-8",
                                  errors="replace", line_buffering=True)
        sys.stdout = sys.stderr = stream
        try:
            yield got
        finally:
            _flush()
            sys.stdout, sys.stderr = saved_streams
            stream.close()
            os.dup2(saved_fds[0], 1)
            os.dup2(saved_fds[1], 2)
            for fd in saved_fds:
                os.close(fd)
            sink.seek(0)
            got.text = _ANSI.sub("", sink.read().decode("utf-8", "replace"))[-limit:]


def _flush():
    for s in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            s.flush()

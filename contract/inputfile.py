"""Reading a file the suite did not write: bounded lines, strict JSON, one error type.

Every reader of a corpus, results or expectations file reads through here, so a
damaged or hostile file is refused the same way everywhere: `InputFileError`
naming the file, the line and the reason, which `conform` maps to exit 3
(EXIT_BAD_INPUT) and the pytest plugin to a usage error.

Each bound is checked before the work it bounds:
- a line is read with readline(cap + 2), so a longer one is refused without being held whole;
- its bytes must be UTF-8;
- a JSON line may hold at most MAX_CONTAINERS arrays and objects, nested at most
  MAX_DEPTH deep, counted on the bytes before anything is parsed;
- NaN, Infinity and numbers too large for a float, integers too, are refused (JSON has none, json.loads
  takes them);
- strings must be Unicode text: an escaped lone surrogate ("\\ud800") is refused,
  since no UTF-8 report or HTML page could hold it.
What one line may cost in memory is then a small multiple of the line cap.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys

MAX_DEPTH = 64              # nesting of arrays and objects; real records nest fewer than 10 deep
MAX_CONTAINERS = 1 << 16    # arrays and objects in one line; real records hold fewer than 300


class InputFileError(ValueError):
    """An input file the suite refuses: `path`, `line` (1-based; 0 for the whole file) and `reason`."""

    def __init__(self, path, line: int, reason: str):
        self.path, self.line, self.reason = os.fspath(path), int(line), reason
        super().__init__(f"{self.path}:{self.line}: {reason}" if self.line else f"{self.path}: {reason}")

    def __reduce__(self):       # so the error survives pickling (xdist, multiprocessing)
        return type(self), (self.path, self.line, self.reason)


def open_input(path, what: str = "file", error=InputFileError):
    """The file opened for reading in binary; a directory, a missing or an unreadable file is `error`."""
    p = os.fspath(path)
    if os.path.isdir(p):
        raise error(p, 0, f"is a directory, not a {what}")
    try:
        return open(p, "rb")
    except FileNotFoundError:
        raise error(p, 0, f"no such {what}") from None
    except OSError as e:
        raise error(p, 0, f"cannot read the {what}: {e.strerror or e}") from None


def read_lines(f, path, cap: int, error=InputFileError):
    """Yield (line number, bytes) of an open binary file; a line over `cap` bytes (newline excluded) is `error`.

    No line is ever read whole before its length is known: readline(cap + 2) holds at most cap + 2 bytes.
    """
    n = 0
    while True:
        raw = f.readline(cap + 2)
        if not raw:
            return
        n += 1
        body = len(raw) - (2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0)
        if body > cap:
            raise error(path, n, f"line longer than {cap} bytes, the limit of this file's format")
        yield n, raw


def text(raw: bytes, path, line: int, error=InputFileError) -> str:
    """The line decoded as UTF-8; anything else is `error` naming the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(path, line, f"not UTF-8: byte {e.start + 1} is {raw[e.start:e.start + 1]!r}") from None


class _Refused(ValueError):
    pass


def _refuse_constant(name):
    raise _Refused(f"{name} is not JSON (a number must be finite)")


def _finite_float(s):
    f = float(s)
    if not math.isfinite(f):
        raise _Refused(f"number {s[:30]}{'...' if len(s) > 30 else ''} is too large for a float")
    return f


def _float_sized_int(s):
    n = int(s)
    if abs(n) > _FLOAT_MAX:
        raise _Refused(f"number {s[:30]}... is too large for a float")
    return n


_FLOAT_MAX = sys.float_info.max
# parse_float costs a Python call per float literal: records hold a handful.  Integers are many (shapes,
# indices): only a line holding a digit run as long as the largest float's (309 digits) is decoded again
# with an int check; the run may be inside a string, then the second decode finds nothing to refuse.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_INT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float,
                                parse_int=_float_sized_int)
_LONG_DIGITS = re.compile(rb"[0-9]{309}")
_TOKENS = re.compile(rb'\\.|["\[\]{}]', re.S)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def parse_json(raw: bytes, path, line: int, error=InputFileError):
    """One JSON value from one line, strictly: see the module docstring for what is refused."""
    s = text(raw, path, line, error)
    _check_nesting(raw, path, line, error)
    try:
        obj = (_INT_DECODER if _LONG_DIGITS.search(raw) else _DECODER).decode(s)
    except _Refused as e:
        raise error(path, line, f"not JSON: {e}") from None
    except ValueError as e:     # JSONDecodeError, and ints of more than 4300 digits
        raise error(path, line, f"not JSON: {str(e)[:200]}") from None
    except RecursionError:      # not reached after _check_nesting; kept so no stack can ever escape
        raise error(path, line, f"not JSON: nested deeper than {MAX_DEPTH}") from None
    if (b"\\ud" in raw or b"\\uD" in raw) and _SURROGATE_ESCAPE.search(raw):
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as e:
            bad = e.object[e.start:e.end].encode("unicode_escape").decode("ascii")
            raise error(path, line, f"a string holds a lone surrogate {bad}: not Unicode text") from None
    return obj


def _check_nesting(raw: bytes, path, line: int, error) -> None:
    """Refuse more than MAX_DEPTH levels or MAX_CONTAINERS arrays/objects before parsing (the parser
    would recurse, and every container costs memory).  Brackets inside strings do not count, so text a
    candidate printed cannot make its own results unreadable."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return      # the common case: too few brackets to go deep or be many
    depth = containers = 0
    in_string = False
    for m in _TOKENS.finditer(raw):
        c = m.group()
        if in_string:
            in_string = c != b'"'
        elif c == b'"':
            in_string = True
        elif c in (b"[", b"{"):
            depth += 1
            containers += 1
            if depth > MAX_DEPTH:
                raise error(path, line, f"JSON nested deeper than {MAX_DEPTH} levels")
            if containers > MAX_CONTAINERS:
                raise error(path, line, f"more than {MAX_CONTAINERS} JSON arrays and objects on one line")
        elif c in (b"]", b"}"):
            depth -= 1

"""Framing between the harness and an adapter worker: a JSON header plus raw array bytes, never pickle.

A message is

    4 bytes   big-endian length H of the header
    H bytes   UTF-8 JSON object; its "arrays" entry lists {"name", "dtype", "shape"}
    then, per listed array, its little-endian bytes (C order), nbytes = prod(shape) * itemsize

Sizes are checked against limits before anything is read or allocated, so a
confused or hostile peer cannot make the other side allocate on a declared
size alone.  A reader given a deadline never waits past it: a partial message
or a few stray bytes end in WireTimeout, not in a read that blocks forever.  Array dtypes travel by the suite's names (contract.dtypes), which
covers bfloat16 where the .npy header format has no name for it.
"""
from __future__ import annotations

import json
import math
import os
import select
import struct
import time

import numpy as np

from contract.codec import MAX_ELEMENTS
from contract.dtypes import dtype_from_name, dtype_name

from . import settings

MAX_HEADER = 16 << 20          # a header is metadata: params, messages, stderr tails
MAX_ARRAYS = 64
MAX_ARRAY_BYTES = MAX_ELEMENTS * 8
# The most array bytes one reply may carry, counted from its header before any is read: a reply's arrays
# land in the harness's memory, which the worker's memory watchdog does not cover.  Far over any suite
# case's outputs (kilobytes); 64 arrays of MAX_ARRAY_BYTES would be 32 GiB.
MAX_REPLY_BYTES = settings.MAX_REPLY_MB << 20
_LEN = struct.Struct(">I")


class WireError(Exception):
    """The peer sent something that is not a valid message (or closed the pipe mid-message)."""


class PeerClosed(WireError):
    """The peer closed the pipe cleanly between messages (EOF at a message boundary)."""


class Truncated(WireError):
    """The pipe closed in the middle of a message (the peer died while sending)."""


class WireTimeout(WireError):
    """The deadline passed in the middle of a message: the peer sent part of one, or stray bytes."""


class OverCap(WireError):
    """A message whose header declares more array bytes than the reader allows (nothing of them was read)."""


class BadReply(WireError):
    """A whole message whose fields are not what the protocol says (the message says which)."""


def encode(header: dict, arrays=None) -> bytes:
    """One message as bytes: header dict plus a name -> ndarray mapping."""
    metas, blobs = [], []
    for name, a in (arrays or {}).items():
        a = np.asarray(a)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        metas.append({"name": name, "dtype": dtype_name(a.dtype), "shape": list(a.shape)})
        blobs.append(np.ascontiguousarray(a).tobytes())
    head = json.dumps({**header, "arrays": metas}, separators=(",", ":"), allow_nan=False).encode()
    return b"".join([_LEN.pack(len(head)), head, *blobs])


def send(fd: int, header: dict, arrays=None) -> None:
    send_bytes(fd, encode(header, arrays))


def send_bytes(fd: int, data: bytes) -> None:
    data = memoryview(data)
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)      # NaN and Infinity are no JSON


def recv(fd: int, deadline=None, max_bytes=None):
    """Read one message: (header dict, {name: ndarray}). Raises PeerClosed on EOF before a message.

    `deadline` (time.monotonic()): raise WireTimeout rather than wait past it for the rest of a message.
    `max_bytes`: raise OverCap, before reading any array, when the header declares more array bytes."""
    first = _read_exact(fd, 4, at_boundary=True, deadline=deadline)
    (hlen,) = _LEN.unpack(first)
    if hlen > MAX_HEADER:
        raise WireError(f"header declares {hlen} bytes, over the limit of {MAX_HEADER}")
    try:
        header = _DECODER.decode(_read_exact(fd, hlen, deadline=deadline).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:   # also NaN, 4300-digit ints, deep nesting
        raise WireError(f"header is not JSON: {str(e)[:200]}") from None
    if not isinstance(header, dict):
        raise WireError(f"header must be a JSON object, got {type(header).__name__}")
    metas = header.pop("arrays", [])
    if not isinstance(metas, list) or len(metas) > MAX_ARRAYS:
        raise WireError("header 'arrays' must be a list of at most %d entries" % MAX_ARRAYS)
    checked = [_check_meta(m) for m in metas]
    total = sum(math.prod(shape) * dt.itemsize for _, dt, shape in checked)
    if max_bytes is not None and total > max_bytes:
        raise OverCap(f"its header declares {total} bytes of arrays, over the cap of {max_bytes} bytes "
                      f"a reply may carry (CONFORM_MAX_REPLY_MB)")
    arrays = {}
    for name, dt, shape in checked:
        raw = _read_exact(fd, math.prod(shape) * dt.itemsize, deadline=deadline)
        arrays[name] = np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt, copy=False).reshape(shape)
    return header, arrays


def _check_meta(m):
    if not isinstance(m, dict) or not isinstance(m.get("name"), str):
        raise WireError(f"bad array entry {str(m)[:80]}")
    try:
        dt = dtype_from_name(m.get("dtype"))
    except (KeyError, TypeError):
        raise WireError(f"array {m['name']!r}: unknown dtype {str(m.get('dtype'))[:40]}") from None
    shape = m.get("shape")
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise WireError(f"array {m['name']!r}: shape must be a list of non-negative ints")
    if math.prod(shape) * dt.itemsize > MAX_ARRAY_BYTES:
        raise WireError(f"array {m['name']!r}: declared shape {shape} is over the limit")
    return m["name"], dt, shape


def _read_exact(fd: int, n: int, at_boundary: bool = False, deadline=None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            _wait_readable(fd, deadline, got, n)
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            if at_boundary and got == 0:
                raise PeerClosed("peer closed the pipe")
            raise Truncated(f"pipe closed after {got} of {n} bytes")
        chunks.append(b)
        got += len(b)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _wait_readable(fd, deadline, got, n):
    while True:
        left = deadline - time.monotonic()
        try:
            if select.select([fd], [], [], max(0.0, left))[0]:
                return
        except InterruptedError:
            continue
        if left <= 0:
            raise WireTimeout(f"{got} of {n} bytes came, then nothing before the deadline "
                              "(a partial message, or stray bytes on the pipe)")


# ---- the two payloads: a Case to run, an Outcome back -------------------------------------

def case_to_msg(case):
    head = {"type": "run", "id": case.id, "op": case.op, "origin": case.origin, "label": case.label,
            "clauses": list(case.clauses), "params": case.encoded_params}
    if case.aliases:
        head["aliases"] = case.encoded_aliases      # the worker rebuilds (and re-checks) each view
    return head, dict(case.inputs)


def case_from_msg(head, arrays):
    from contract.case import Case, decode_params
    from contract.codec import CodecError
    from oracle.registry import SPECS
    op = head.get("op")
    if not isinstance(op, str) or op not in SPECS:     # a case enters the worker here: a registered op only
        raise CodecError(f"unknown op {str(op)[:40]!r}; ops are {', '.join(SPECS)}")
    # The id travels with the case so the worker does not hash it again.
    return Case(op=head["op"], inputs=arrays, params=decode_params(head["params"]),
                clauses=tuple(head["clauses"]), origin=head["origin"], label=head["label"], id=head["id"],
                aliases=head.get("aliases", {}))


_EXPECTED = "expected:"     # prefix of the arrays of an Expectation (input names are identifiers)


def expectation_to_msg(exp):
    """(JSON-able dict, {array name: ndarray}) of a contract.expectation.Expectation, for a repro request."""
    head = {"kind": exp.kind, "clauses": list(exp.clauses), "error_clause": exp.error_clause,
            "error_classes": list(exp.error_classes), "message": exp.message, "outputs": []}
    arrays = {}
    for name, ea in exp.outputs.items():
        head["outputs"].append({"name": name, "rule": ea.rule, "zero_sign": ea.zero_sign,
                                "alternatives": len(ea.alternatives)})
        for part in ("value", "bound", "choices"):
            a = getattr(ea, part)
            if a is not None:
                arrays[f"{_EXPECTED}{name}:{part}"] = np.asarray(a)
        for i, a in enumerate(ea.alternatives):
            arrays[f"{_EXPECTED}{name}:alternative{i}"] = np.asarray(a)
    return head, arrays


def expectation_from_msg(head, arrays):
    """The Expectation expectation_to_msg encoded; its arrays are taken out of `arrays`."""
    from contract.expectation import Expectation, ExpectedArray
    outputs = {}
    for o in head.get("outputs") or ():
        parts = {p: arrays.pop(f"{_EXPECTED}{o['name']}:{p}", None) for p in ("value", "bound", "choices")}
        alternatives = tuple(arrays.pop(f"{_EXPECTED}{o['name']}:alternative{i}")
                             for i in range(int(o.get("alternatives") or 0)))
        outputs[o["name"]] = ExpectedArray(parts["value"], rule=o["rule"], bound=parts["bound"],
                                           choices=parts["choices"], zero_sign=o["zero_sign"],
                                           alternatives=alternatives)
    return Expectation(head["kind"], tuple(head.get("clauses") or ()), outputs, error_clause=head.get("error_clause"),
                       error_classes=tuple(head.get("error_classes") or ()), message=head.get("message") or "")


_OUTCOME_FIELDS = ("kind", "exc_type", "message", "stderr", "signal", "seconds", "native_api", "elapsed_s", "borrowed")


def outcome_to_msg(outcome):
    head = {"type": "outcome", **{f: getattr(outcome, f) for f in _OUTCOME_FIELDS},
            "exc_mro": list(outcome.exc_mro)}
    return head, dict(outcome.arrays)


def outcome_from_msg(head, arrays):
    """The Outcome in a reply; BadReply (saying which field, and what it held) when a field has the wrong type."""
    from .base import Outcome, outcome_problem
    fields = {f: head[f] for f in _OUTCOME_FIELDS if f in head}
    if "exc_mro" in head:
        fields["exc_mro"] = head["exc_mro"]
    problem = outcome_problem(fields)
    if problem:
        raise BadReply(problem)
    fields["exc_mro"] = tuple(fields.get("exc_mro", ()))
    return Outcome(arrays=arrays, **fields).clean()


# ---- a worker's stderr file, read by both sides ----------------------------------------------

STDERR_CAP = 64 << 10


def read_capped(fd: int) -> str:
    """What the file behind `fd` holds, at most STDERR_CAP bytes of it: head and tail of a flood."""
    size = os.fstat(fd).st_size
    if size == 0:
        return ""
    if size <= STDERR_CAP:
        raw = os.pread(fd, size, 0)
    else:
        head = os.pread(fd, 4096, 0)
        tail = os.pread(fd, STDERR_CAP - 4096, size - STDERR_CAP + 4096)
        raw = head + f"\n[... {size - STDERR_CAP} bytes cut ...]\n".encode() + tail
    return raw.decode("utf-8", errors="replace")

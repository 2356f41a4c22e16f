"""The worker wire: JSON header + raw array bytes; exact round trips; hostile frames refused early."""
import json
import math
import os
import struct
import threading

import numpy as np
import pytest

from adapters import wire
from adapters.base import Outcome
from contract.dtypes import ALL, dtype_from_name

from bad_adapters import clip_case


def _roundtrip(header, arrays):
    r, w = os.pipe()
    try:
        # A writer thread: messages bigger than the pipe buffer must not deadlock.
        t = threading.Thread(target=wire.send, args=(w, header, arrays))
        t.start()
        got = wire.recv(r)
        t.join()
        return got
    finally:
        os.close(r)
        os.close(w)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("name", ALL)
def test_every_dtype_round_trips_bit_for_bit(name):
    dt = dtype_from_name(name)
    a = (np.arange(12) - 6).astype(dt).reshape(3, 4)
    head, arrays = _roundtrip({"type": "x"}, {"a": a, "scalar": a[0, 0].reshape(()), "empty": a[:0]})
    for k, v in {"a": a, "scalar": a[0, 0].reshape(()), "empty": a[:0]}.items():
        assert arrays[k].dtype == v.dtype and arrays[k].shape == v.shape, (k, arrays[k].dtype, v.dtype)
        assert _bits(arrays[k]) == _bits(v)
    assert head == {"type": "x"}


def test_nan_payload_negative_zero_and_big_int64_survive():
    f = np.array([math.nan, -0.0, math.inf, -math.inf], dtype=np.float32)
    f.view(np.uint32)[0] = 0x7FC00123         # a NaN with a payload
    i = np.array([2**62 + 1, -(2**63), 2**32 + 5], dtype=np.int64)
    _, got = _roundtrip({}, {"f": f, "i": i})
    assert _bits(got["f"]) == _bits(f)
    assert got["i"].tolist() == i.tolist()


def test_big_message_larger_than_a_pipe_buffer():
    a = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    _, got = _roundtrip({}, {"a": a})
    assert np.array_equal(got["a"], a)


def test_big_endian_input_is_sent_little_endian():
    a = np.array([1.5, 2.5], dtype=">f8")
    _, got = _roundtrip({}, {"a": a})
    assert got["a"].dtype == np.float64 and got["a"].tolist() == [1.5, 2.5]


def _raw(fd_bytes):
    r, w = os.pipe()
    os.write(w, fd_bytes)
    os.close(w)
    return r


def _frame(header: dict, tail=b""):
    h = json.dumps(header).encode()
    return struct.pack(">I", len(h)) + h + tail


@pytest.mark.parametrize("data, match", [
    (struct.pack(">I", 1 << 30), "over the limit"),
    (struct.pack(">I", 3) + b"{x}", "not JSON"),
    (_frame([1, 2]), "must be a JSON object"),
    (_frame({"arrays": [{"name": "a", "dtype": "complex128", "shape": [1]}]}), "unknown dtype"),
    (_frame({"arrays": [{"name": "a", "dtype": "float32", "shape": [-1]}]}), "non-negative"),
    (_frame({"arrays": [{"name": "a", "dtype": "float64", "shape": [1 << 40, 1 << 40]}]}), "over the limit"),
    (_frame({"arrays": [{"name": "a", "dtype": "float32", "shape": [4]}]}, b"\0" * 7), "closed after 7 of 16"),
    (struct.pack(">I", 10) + b"{}", "closed after 2 of 10"),
])
def test_hostile_frames_are_refused_with_a_reason(data, match):
    r = _raw(data)
    try:
        with pytest.raises(wire.WireError, match=match):
            wire.recv(r)
    finally:
        os.close(r)


def test_clean_eof_between_messages_is_peer_closed():
    r = _raw(b"")
    try:
        with pytest.raises(wire.PeerClosed):
            wire.recv(r)
    finally:
        os.close(r)


def test_no_pickle_on_the_wire():
    case = clip_case("x")
    data = wire.encode(*wire.case_to_msg(case))
    (n,) = struct.unpack(">I", data[:4])
    json.loads(data[4:4 + n])                    # the header is plain JSON
    assert len(data) == 4 + n + case.inputs["x"].nbytes   # and the rest is exactly the raw array bytes


def test_case_and_outcome_messages_round_trip():
    case = clip_case("round trip", x=[math.nan, -0.0, 3.0], lo=-0.0, hi=math.inf)
    head, arrays = _roundtrip(*wire.case_to_msg(case))
    back = wire.case_from_msg(head, arrays)
    assert back.id == case.id and back.params == case.params and back.label == case.label
    assert back.clauses == case.clauses
    assert _bits(back.inputs["x"]) == _bits(case.inputs["x"])
    out = Outcome.raised(TypeError("bad"))
    out.native_api, out.elapsed_s = "torch.clamp", 0.5
    head, arrays = _roundtrip(*wire.outcome_to_msg(out))
    got = wire.outcome_from_msg(head, arrays)
    assert (got.kind, got.exc_type, got.exc_mro, got.message, got.native_api, got.elapsed_s) == \
        ("raised", "TypeError", ("TypeError", "Exception", "BaseException", "object"), "bad", "torch.clamp", 0.5)

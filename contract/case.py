"""Case: one call of one documented op, as pure data (docs/CASES.md; each op's fields: docs/SPEC.md)."""
from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping      # not typing.Mapping: isinstance on it costs ten times more
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .codec import CodecError, short, decode_array, decode_scalar, encode_array, encode_scalar

ORIGINS = ("doc-example", "error-case", "boundary", "generated", "regression")
# The JSON type of each field of Case.to_json(); from_json refuses any other.
_FIELD_TYPES = {"id": (str, "a string"), "op": (str, "a string"), "origin": (str, "a string"),
                "label": (str, "a string"), "clauses": (list, "a list of strings"),
                "inputs": (dict, "an object of encoded arrays"), "params": (dict, "an object")}


@dataclass(frozen=True, eq=False)
class Case:
    op: str
    inputs: Mapping[str, np.ndarray]
    params: Mapping
    clauses: tuple = ()
    origin: str = "generated"
    label: str = ""          # short human text used in test ids ("min>max -> max")
    id: str = field(default="", compare=False)

    def __post_init__(self):
        # The op name is checked where a case enters (corpus load, the worker wire) against the oracle's
        # registry: the contract knows no ops.
        if not isinstance(self.op, str) or not self.op:
            raise CodecError(f"a case's op must be a non-empty string, got {self.op!r}")
        if self.origin not in ORIGINS:
            raise CodecError(f"unknown origin {self.origin!r}; origins are {', '.join(ORIGINS)}")
        inputs = {k: np.asarray(v) for k, v in dict(self.inputs).items()}
        for a in inputs.values():
            a.setflags(write=False)   # a case is immutable; adapters must copy before writing
        object.__setattr__(self, "inputs", MappingProxyType(inputs))
        # Params stay plain dicts/lists for ease of use; encoding them once checks they are JSON-able, and
        # the encoding is kept for the id, to_json() and the worker wire (encoded_params).
        encoded = encode_params(self.params)
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "_encoded_params", encoded)
        object.__setattr__(self, "clauses", tuple(self.clauses))
        if not self.id:
            object.__setattr__(self, "id", content_id(self.op, inputs, encoded))

    def __eq__(self, other):
        return isinstance(other, Case) and self.id == other.id

    def __hash__(self):
        return hash(self.id)

    @property
    def encoded_params(self) -> dict:
        """encode_params(self.params), computed once when the case was made (do not modify it)."""
        return self._encoded_params

    def with_clauses(self, clauses) -> "Case":
        """The same call tagged with other clauses: its content, and so its id, unchanged, nothing re-checked."""
        tagged = copy.copy(self)
        object.__setattr__(tagged, "clauses", tuple(clauses))
        return tagged

    def to_json(self) -> dict:
        return {"id": self.id, "op": self.op, "origin": self.origin, "label": self.label,
                "clauses": list(self.clauses),
                "inputs": {k: encode_array(v) for k, v in sorted(self.inputs.items())},
                "params": encode_params(self.params)}

    @classmethod
    def from_json(cls, obj) -> "Case":
        """The Case of Case.to_json()'s data; any field of the wrong type, a bad array or an id that is
        not the content's hash raises CodecError saying which."""
        if not isinstance(obj, dict):
            raise CodecError(f"a case must be a JSON object, got {type(obj).__name__}")
        missing = {"id", "op", "inputs", "params"} - set(obj)
        if missing:
            raise CodecError(f"case lacks {', '.join(sorted(missing))}")
        for name, want in _FIELD_TYPES.items():
            if name in obj and not isinstance(obj[name], want[0]):
                raise CodecError(f"case field {name!r} must be {want[1]}; got {short(obj[name])}")
        clauses = obj.get("clauses", [])
        if not all(isinstance(c, str) for c in clauses):
            raise CodecError("case clauses must be a list of strings")
        try:
            params = decode_params(obj["params"])
        except RecursionError:
            raise CodecError("case params are nested too deeply") from None
        if not isinstance(params, dict):       # {"float": "nan"} decodes to a scalar, not params
            raise CodecError(f"case params must be an object, got {type(params).__name__}")
        inputs = {}
        for k, v in obj["inputs"].items():
            try:
                inputs[k] = decode_array(v)
            except CodecError as e:
                raise CodecError(f"case input {k!r}: {e}") from None
        case = cls(op=obj["op"], inputs=inputs, params=params, clauses=tuple(clauses),
                   origin=obj.get("origin", "generated"), label=obj.get("label", ""))
        if case.id != obj["id"]:
            raise CodecError(f"case id {short(obj['id'])} does not match its content (hash {case.id})")
        return case

    def dtypes(self) -> tuple:
        return tuple(sorted({str(a.dtype) for a in self.inputs.values()}))


def content_id(op, inputs, encoded_params) -> str:
    """The case id: a digest of the op, the inputs and the params as encode_params gives them."""
    payload = json.dumps({"op": op, "inputs": {k: encode_array(v) for k, v in sorted(inputs.items())},
                          "params": encoded_params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


_PLAIN = frozenset((int, str, type(None)))


def encode_params(p):
    """Params are JSON-able data; floats JSON cannot hold are tagged (codec.encode_scalar)."""
    if type(p) in _PLAIN:       # most of a key's leaves: what encode_scalar would return unchanged
        return p
    if isinstance(p, Mapping):
        return {str(k): encode_params(v) for k, v in p.items()}
    if isinstance(p, (list, tuple)):
        return [encode_params(v) for v in p]
    return encode_scalar(p)


def decode_params(p):
    if isinstance(p, dict):
        if set(p) == {"float"}:
            return decode_scalar(p)
        return {k: decode_params(v) for k, v in p.items()}
    if isinstance(p, list):
        return [decode_params(v) for v in p]
    return decode_scalar(p)


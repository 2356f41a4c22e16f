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
                "inputs": (dict, "an object of encoded arrays"), "params": (dict, "an object"),
                "aliases": (dict, "an object of input name -> {\"of\": base input, \"slices\": [[start, stop, step], ...]}")}


@dataclass(frozen=True)
class Alias:
    """An input that is a view of another input of the same case (docs/CASES.md, "Aliased inputs"):
    `inputs[name]` is `inputs[of][slices]`, one basic slice per leading axis, so every framework's own
    slicing builds it and the frameworks that have views share storage with the base.

    Basic slices only (no ints, no negative steps): torch refuses negative steps, and a slice of each
    axis keeps the view's rank, so the view is always a tensor the op accepts where its base is."""
    of: str
    slices: tuple            # ((start, stop, step), ...): start/stop an int or None, step an int >= 1

    def __post_init__(self):
        if not isinstance(self.of, str) or not self.of:
            raise CodecError(f"an alias's base ('of') must be an input name, got {short(self.of)}")
        if not isinstance(self.slices, (list, tuple)):
            raise CodecError(f"an alias's slices must be a list of [start, stop, step], got {short(self.slices)}")
        triples = []
        for s in self.slices:
            if not isinstance(s, (list, tuple)) or len(s) != 3:
                raise CodecError(f"an alias slice must be [start, stop, step], got {short(s)}")
            start, stop, step = s
            if not all(b is None or _plain_int(b) for b in (start, stop)) or not (_plain_int(step) and step >= 1):
                raise CodecError(f"an alias slice's bounds must be ints or null and its step an int >= 1, "
                                 f"got {short(s)}")
            triples.append((None if start is None else int(start), None if stop is None else int(stop), int(step)))
        object.__setattr__(self, "slices", tuple(triples))

    @property
    def key(self) -> tuple:
        """The Python key a user writes: base[key] is the view."""
        return tuple(slice(*s) for s in self.slices)

    def text(self) -> str:
        """The view as a user writes it: `target[0:2, 1:]`."""
        def one(start, stop, step):
            return ("" if start is None else str(start)) + ":" + ("" if stop is None else str(stop)) + \
                ("" if step == 1 else f":{step}")
        return f"{self.of}[{', '.join(one(*s) for s in self.slices) or '...'}]"

    def to_json(self) -> dict:
        return {"of": self.of, "slices": [list(s) for s in self.slices]}

    @classmethod
    def from_json(cls, obj) -> "Alias":
        if not isinstance(obj, dict) or set(obj) != {"of", "slices"}:
            raise CodecError(f"an alias must be an object with keys of, slices; got {short(obj)}")
        return cls(obj["of"], obj["slices"])


def _plain_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


@dataclass(frozen=True, eq=False)
class Case:
    op: str
    inputs: Mapping[str, np.ndarray]
    params: Mapping
    clauses: tuple = ()
    origin: str = "generated"
    label: str = ""          # short human text used in test ids ("min>max -> max")
    id: str = field(default="", compare=False)
    # input name -> Alias: that input is a view of another input (docs/CASES.md); a case without
    # aliases encodes, and so hashes, exactly as before the field existed.
    aliases: Mapping = field(default_factory=dict)

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
        aliases = _checked_aliases(self.aliases, inputs)
        object.__setattr__(self, "aliases", MappingProxyType(aliases))
        if not self.id:
            object.__setattr__(self, "id", content_id(self.op, inputs, encoded, aliases))

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

    @property
    def encoded_aliases(self) -> dict:
        """{input: Alias.to_json()}, sorted; {} for a case without aliases."""
        return encode_aliases(self.aliases)

    def to_json(self) -> dict:
        out = {"id": self.id, "op": self.op, "origin": self.origin, "label": self.label,
               "clauses": list(self.clauses),
               "inputs": {k: encode_array(v) for k, v in sorted(self.inputs.items())},
               "params": encode_params(self.params)}
        if self.aliases:        # absent, not empty, without aliases: old files stay byte for byte
            out["aliases"] = self.encoded_aliases
        return out

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
        aliases = {}
        for k, v in obj.get("aliases", {}).items():
            try:
                aliases[k] = Alias.from_json(v)
            except CodecError as e:
                raise CodecError(f"case alias {short(k)}: {e}") from None
        case = cls(op=obj["op"], inputs=inputs, params=params, clauses=tuple(clauses),
                   origin=obj.get("origin", "generated"), label=obj.get("label", ""), aliases=aliases)
        if case.id != obj["id"]:
            raise CodecError(f"case id {short(obj['id'])} does not match its content (hash {case.id})")
        return case

    def dtypes(self) -> tuple:
        return tuple(sorted({str(a.dtype) for a in self.inputs.values()}))


def content_id(op, inputs, encoded_params, aliases=None) -> str:
    """The case id: a digest of the op, the inputs, the params as encode_params gives them and, where the
    case has any, its aliases (left out of the digest otherwise, so a case without them keeps its id)."""
    content = {"op": op, "inputs": {k: encode_array(v) for k, v in sorted(inputs.items())},
               "params": encoded_params}
    if aliases:
        content["aliases"] = encode_aliases(aliases)
    payload = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def encode_aliases(aliases) -> dict:
    return {k: a.to_json() for k, a in sorted(aliases.items())}


def view_of(base: np.ndarray, alias: Alias) -> np.ndarray:
    """The data an aliased input must hold: its base input's slice (a NumPy view of `base`)."""
    return np.asarray(base)[alias.key]


def build_inputs(case, make, view) -> dict:
    """The case's inputs as a caller's own objects, by name: `make(array)` for each input, and for an
    aliased one `view(base object, alias.key)` over its base's object instead, so the alias is built the
    caller's own way (a torch view sharing storage, a NumPy view, an immutable framework's slice).
    The one place inputs become a framework's tensors (adapters/mapping.py, the oracle adapter)."""
    built = {k: make(v) for k, v in case.inputs.items() if k not in case.aliases}
    for name, alias in case.aliases.items():
        built[name] = view(built[alias.of], alias.key)
    return built


def _checked_aliases(aliases, inputs) -> dict:
    """{name: Alias} of a case's aliases; each must name an input, a base input that is not itself an
    alias, and hold exactly the base's slice (dtype, shape and bytes): a damaged file cannot pass."""
    if not isinstance(aliases, Mapping):
        raise CodecError(f"a case's aliases must map input names to aliases, got {short(aliases)}")
    out = {}
    for name, alias in dict(aliases).items():
        alias = alias if isinstance(alias, Alias) else Alias.from_json(alias)
        if name not in inputs:
            raise CodecError(f"alias {short(name)} names no input of the case")
        if alias.of == name or alias.of not in inputs or alias.of in aliases:
            raise CodecError(f"alias {name!r}: its base {short(alias.of)} must be another input that is no alias")
        base = inputs[alias.of]
        if len(alias.slices) > base.ndim:
            raise CodecError(f"alias {name!r}: {alias.text()} slices {len(alias.slices)} axes of a {base.ndim}-d input")
        want, got = view_of(base, alias), inputs[name]
        if (got.dtype != want.dtype or got.shape != want.shape
                or np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(want).tobytes()):
            raise CodecError(f"case input {name!r} is declared the view {alias.text()}, but its data is not "
                             f"exactly that slice ({got.dtype}{list(got.shape)} against "
                             f"{want.dtype}{list(want.shape)})")
        out[name] = alias
    return out


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


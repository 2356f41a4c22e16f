"""Any Python array API namespace as a candidate: the ops the standard has, called as its users write them.

One adapter, `ArrayApiAdapter`, for every namespace; the namespace is the part of its name after
"array-api:" (`array-api:numpy` imports `numpy`, `array-api:array_api_strict` imports
`array_api_strict`).  The worker loads an adapter by module:Class, so each shipped namespace is a
subclass that sets only its name (`NumpyArrayApi`, `StrictArrayApi`); another namespace is one more
three-line subclass.  Both shipped ones run in the main environment (.venv).

| op      | call (xp: the namespace)                                                   |
|---------|----------------------------------------------------------------------------|
| setitem | `target[key] = value` (`array.__setitem__`)                                 |
| clip    | `xp.clip(x, min, max)`                                                      |

The standard has no scatter, scatter_nd_add or set_: no rows for them (not applicable).  Inputs are
made with `xp.asarray(ndarray, copy=True)`, the standard's creation function; read back through DLPack
(`np.from_dlpack`), the standard's interchange.  A case whose input dtype the namespace does not name
(`xp.float16`, `xp.bfloat16`: the standard has neither) is not applicable: its user cannot make that
array.  A key or bound the standard does not allow (an integer-array index, a bound of another kind
than x) is passed as it is: the namespace raises or answers, as it does for its users.
"""
from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from contract.dtypes import dtype_name

from . import convert, repro as R
from .base import Outcome
from .mapping import FrameworkAdapter, OpMap, read_back

PREFIX = "array-api:"


class ArrayApiAdapter(FrameworkAdapter):
    """The array API standard's calls on the namespace named by `name` ("array-api:<module>")."""
    name = PREFIX           # a subclass names its namespace: "array-api:numpy"
    excludes = ("*/not-applicable/* ~ has no dtype :: the array API standard has no float16 and no bfloat16: "
                "a namespace that does not name the dtype (xp.float16, xp.bfloat16) gives its users no such array",)

    def __init__(self):
        self._xp = None

    @property
    def namespace(self) -> str:
        return self.name[len(PREFIX):] if self.name.startswith(PREFIX) else ""

    @property
    def package(self) -> str:
        return self.namespace.partition(".")[0]

    @property
    def execution(self) -> str:
        return f"array API namespace {self.namespace} (CPU)"

    @property
    def REPRO_IMPORTS(self) -> tuple:
        return (f"import {self.namespace} as xp",)

    REPRO_SETUP = ("def to_numpy(t):   # through DLPack, the standard's interchange (a NumPy scalar has none)",
                   "    return np.from_dlpack(t).copy() if hasattr(t, '__dlpack__') else np.asarray(t).copy()")

    def available(self) -> tuple:
        if not self.namespace:
            return False, f"no namespace: name the adapter {PREFIX}<module>, e.g. {PREFIX}numpy"
        if importlib.util.find_spec(self.package) is None:
            return False, f"package {self.package!r} is not installed (pip install {self.package})"
        return True, ""

    def version(self) -> str:
        ok, _ = self.available()
        if not ok:
            return "unavailable"
        try:
            v = version(self.package.replace("_", "-"))
        except PackageNotFoundError:
            v = getattr(self.framework(), "__version__", "unknown")
        api = getattr(self.framework(), "__array_api_version__", None)
        return f"{v} (array API {api})" if api else v

    def setup(self) -> None:
        self._xp = importlib.import_module(self.namespace)

    def framework(self):
        if self._xp is None:
            self.setup()
        return self._xp

    def tensor(self, array):
        # a copy of its own, as a user's array is (the case's arrays are read-only, and numpy's asarray
        # would hand one back as it is)
        xp = self.framework()
        try:
            return xp.asarray(np.asarray(array), copy=True)
        except TypeError as e:
            # NumPy < 2's main namespace predates the standard's `copy=`: a refusal of the adapter's own call,
            # not the framework's answer to the case; a copy made by NumPy is the same array for its users
            if "copy" not in str(e):
                raise
            return xp.asarray(np.array(array, copy=True))

    def tensor_maker(self, construction):
        if not self._takes_copy():      # as tensor() builds it there
            return lambda expr, a: f"xp.asarray(np.array({expr}, copy=True))"
        return lambda expr, a: f"xp.asarray({expr}, copy=True)"

    def _takes_copy(self) -> bool:
        try:
            self.framework().asarray(np.zeros(1), copy=True)
        except TypeError:
            return False
        return True

    def native_api(self, op: str, case=None) -> str:
        return super().native_api(op, case).replace("xp", self.namespace, 1)

    def run(self, case) -> Outcome:
        missing = self._missing_dtype(case)
        if missing and case.op in self.TABLE:
            # the reason names what is missing: NumPy 1.x names no `bool` (np.bool_ only), the standard no float16
            out = Outcome.not_applicable(f"{self.namespace} has no dtype {missing} ({self.namespace}.{missing} "
                                         f"does not exist)")
            out.native_api = self.native_api(case.op, case)
            return out
        return super().run(case)

    def _missing_dtype(self, case) -> str:
        """The first dtype of the case's inputs, or of an Element argument of its decoded call (a clip bound),
        that the namespace does not name ('' when it names them all)."""
        import dataclasses
        xp = self.framework()
        names = [dtype_name(np.asarray(a).dtype) for a in case.inputs.values()]
        try:
            call = convert.call_args(case)
        except ValueError:          # a malformed case: its run reports that
            call = None
        if dataclasses.is_dataclass(call):
            for f in dataclasses.fields(call):
                arg = getattr(call, f.name)
                if getattr(arg, "kind", None) == "element" and isinstance(getattr(arg, "dtype", None), str):
                    names.append(arg.dtype)
        return next((n for n in names if not hasattr(xp, n)), "")


class NumpyArrayApi(ArrayApiAdapter):
    name = PREFIX + "numpy"


class StrictArrayApi(ArrayApiAdapter):
    name = PREFIX + "array_api_strict"


def from_xp(t) -> np.ndarray:
    return read_back(_to_numpy, t)


def _to_numpy(t) -> np.ndarray:
    # NumPy hands a 0-d result back as a NumPy scalar (np.float32), which has no __dlpack__: reading it is the
    # adapter's business, and its value and dtype are the answer (never "the framework raised")
    if not hasattr(t, "__dlpack__") and isinstance(t, np.generic):
        return np.asarray(t).copy()
    return np.from_dlpack(t).copy()


# ---- one row per op: the call on the namespace's arrays, read back from the original objects ------------

def _setitem(xp, a):
    a.target[a.key] = a.value
    return Outcome.returned(target=from_xp(a.target))


def _clip(xp, a):
    def element(v, dt):
        return xp.asarray(v, dtype=getattr(xp, dt))
    out = xp.clip(a.x, convert.bound(a, "min", element), convert.bound(a, "max", element))
    return Outcome.returned(out=from_xp(out), x=from_xp(a.x))


def _element(v, dt):
    return f"xp.asarray({R.scalar_text(v)}, dtype=xp.{dt})"


def _setitem_repro(case, a):
    return [R.setitem_statement(case)], [], ["print(target)"], {"target": "to_numpy(target)"}


def _clip_repro(case, a):
    lo, hi = R.clip_bound_texts(case, _element)
    return [f"out = xp.clip(x, {lo}, {hi})"], [], ["print(out, x)"], {"out": "to_numpy(out)", "x": "to_numpy(x)"}


# The one table, every namespace's: the standard's two calls (adapters/mapping.py).
ArrayApiAdapter.TABLE = {
    "setitem": OpMap("xp array.__setitem__", _setitem, _setitem_repro),     # xp: the namespace (native_api)
    "clip": OpMap("xp.clip", _clip, _clip_repro),
}

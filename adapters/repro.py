"""Repro snippets: Python text that rebuilds a case's inputs exactly and makes the call.

Framework adapters write repros in their own syntax from these pieces, e.g.
`f"x = torch.from_numpy({array_literal(case.inputs['x'])})"` and then their
native call; `generic_repro` is the fallback for an adapter that writes none.
"""
from __future__ import annotations

import base64
import math

import numpy as np

from contract.dtypes import dtype_name

MAX_LITERAL = 256     # more elements than this: the snippet carries the exact bytes instead of a list


def scalar_text(v) -> str:
    """A Python literal for a params value; NaN, infinities and -0.0 spelled so they survive."""
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return 'float("nan")'
        if math.isinf(f):
            return 'float("inf")' if f > 0 else 'float("-inf")'
        return repr(f)
    if isinstance(v, (int, np.integer)):
        return repr(int(v))
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {scalar_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(scalar_text(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    return repr(v)


def values_text(a: np.ndarray) -> str:
    """The elements as a nested list literal (bf16 and f16 values are exact in float)."""
    a = np.asarray(a)
    if dtype_name(a.dtype) in ("bfloat16", "float16"):
        a = a.astype(np.float32)
    return scalar_text(a.tolist()) if a.ndim else scalar_text(a.item())


def numpy_dtype_text(dt) -> str:
    name = dtype_name(dt)
    if name == "bfloat16":
        return "ml_dtypes.bfloat16"
    return "np.bool_" if name == "bool" else f"np.{name}"      # np.bool exists only from NumPy 2


def array_literal(a: np.ndarray) -> str:
    """A NumPy expression that rebuilds `a` bit for bit (needs numpy as np; bf16 also ml_dtypes)."""
    a = np.asarray(a)
    dt = numpy_dtype_text(a.dtype)
    if a.size <= MAX_LITERAL:
        return f"np.array({values_text(a)}, dtype={dt})"
    le = a.astype(a.dtype.newbyteorder("<"), copy=False)
    b64 = base64.b64encode(np.ascontiguousarray(le).tobytes()).decode("ascii")
    return f'np.frombuffer(base64.b64decode("{b64}"), dtype={dt}).reshape({tuple(a.shape)!r})'


def imports_for(case) -> list:
    """The import lines the array literals of a case need."""
    lines = ["import numpy as np"]
    if any(a.size > MAX_LITERAL for a in case.inputs.values()):
        lines.insert(0, "import base64")
    if any(dtype_name(a.dtype) == "bfloat16" for a in case.inputs.values()):
        lines.append("import ml_dtypes")
    return lines


def header_comment(case) -> str:
    return f"# case {case.id} ({case.op}; {', '.join(case.clauses) or 'no clauses'})" + (
        f": {case.label}" if case.label else "")


def input_lines(case, wrap: str = "{}") -> list:
    """`name = <array>` per input; `wrap` puts the NumPy expression into a framework's constructor."""
    return [f"{name} = {wrap.format(array_literal(a))}" for name, a in sorted(case.inputs.items())]


def call_text(case, native_api: str) -> str:
    """The call with the case's arguments, inputs by name and params as keywords (docs/CASES.md)."""
    if case.op == "setitem":
        from contract.case import key_text
        p = dict(case.params)
        value = "value" if "value" in case.inputs else scalar_text(p.get("value"))
        return f"target[{key_text(p['key'])}] = {value}   # {native_api}"
    args = [n for n in sorted(case.inputs)]
    kwargs = [f"{k}={scalar_text(v)}" for k, v in sorted(case.params.items())]
    return f"result = {native_api}({', '.join(args + kwargs)})"


def generic_repro(case, native_api: str) -> str:
    lines = [header_comment(case), *imports_for(case), *input_lines(case), call_text(case, native_api)]
    return "\n".join(lines) + "\n"


def bound_text(case, which, element) -> str:
    """The text of clip's `min`/`max` argument: None, the tensor's name, an Element built by
    `element(value, dtype_name)` in the framework's own syntax, or a scalar literal."""
    spec = case.params.get(which)
    if spec is None:
        return "None"
    if spec["kind"] == "tensor":
        return which
    if spec["kind"] == "element":
        return element(spec["value"], spec["dtype"])
    return scalar_text(spec["value"])

"""Repro snippets: a Python script that rebuilds a case's inputs exactly, makes the call, and checks it.

Run as a script (`python repro.py`), a repro exits 0 when the call does what the
documents say and fails exactly when the case fails: with an AssertionError
naming the output and the first differing element (value-mismatch), with
"the call returned; the documents say it raises ..." (missing-error), or with
the framework's own exception (unexpected-error, wrong-error-class).  Only a
repro made with the case's Expectation checks anything; without one it makes
the call and prints what came back.

The pieces, so an adapter writes its repro in its own syntax:
- `array_literal` / `scalar_text`: exact literals (NaN, -0.0, bf16, base64 bytes of a large array);
- the call's arguments in the documented order (docs/SPEC.md), read through each op's one decoder
  (`convert.call_args`, the OpSpec's): `clip_bound_texts`, `scatter_arg_texts`,
  `scatter_nd_add_arg_texts`, `setitem_statement`, `set_arg_text`;
- `compose(...)`: header, imports, inputs, the call (inside try/except when the documents name an
  error), what came back printed, and the check against the Expectation.

`generic_repro` is the fallback of an adapter that writes none: it calls `native_api` as a
function with NumPy arrays.  `call_repro` calls an adapter's repro with the Expectation, or
without it for a vendor adapter written for the older `repro(case)`.
"""
from __future__ import annotations

import base64
import importlib.util
import inspect
import math

import numpy as np

from contract.dtypes import dtype_name
from contract.expectation import MAY_RETURN

from .convert import call_args

MAX_LITERAL = 256     # more elements than this: the snippet carries the exact bytes instead of a list


# ---- literals ----------------------------------------------------------------------------------

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
    if not _as_bytes(a):
        # an empty array's list literal ([] or [[], []]) loses the sizes after the first zero: its shape is explicit
        shape = f".reshape({tuple(a.shape)!r})" if a.size == 0 else ""
        return f"np.array({values_text(a)}, dtype={dt}){shape}"
    le = a.astype(a.dtype.newbyteorder("<"), copy=False)
    b64 = base64.b64encode(np.ascontiguousarray(le).tobytes()).decode("ascii")
    return f'np.frombuffer(base64.b64decode("{b64}"), dtype={dt}).reshape({tuple(a.shape)!r}).copy()'


def _as_bytes(a) -> bool:
    return a.size > MAX_LITERAL or _has_nan_payload(a)


def _has_nan_payload(a) -> bool:
    # float("nan") is the default quiet NaN: a NaN with another payload or sign travels as bytes
    if dtype_name(a.dtype) not in ("float16", "bfloat16", "float32", "float64") or not a.size:
        return False
    nan = np.isnan(a.astype(np.float64))
    if not nan.any():
        return False
    canonical = np.array(np.nan, dtype=a.dtype).tobytes()
    return any(x.tobytes() != canonical for x in a[nan])


def needed_imports(arrays) -> list:
    """The import lines array_literal's expressions of these arrays need."""
    arrays = [np.asarray(a) for a in arrays]
    lines = ["import numpy as np"]
    if any(_as_bytes(a) for a in arrays):
        lines.insert(0, "import base64")
    if any(dtype_name(a.dtype) == "bfloat16" for a in arrays):
        lines.append("import ml_dtypes")
    return lines


def header_comment(case) -> str:
    return f"# case {case.id} ({case.op}; {', '.join(case.clauses) or 'no clauses'})" + (
        f": {case.label}" if case.label else "")


def input_lines(case, wrap="{}", plans=None) -> list:
    """`name = <array>` per input; `wrap` puts the NumPy expression into a framework's constructor:
    a format string ("torch.from_numpy({})"), or a function (expression, array) -> text.  `plans`: {input
    name: adapters.layouts.Plan or None}: an input with a plan is its base, then the view taken of it,
    in the framework's own syntax (adapters.layouts.view_text), as the adapter built it."""
    from .layouts import view_text
    make = wrap if callable(wrap) else (lambda expr, a: wrap.format(expr))
    out = []
    for name, a in sorted(case.inputs.items()):
        p = (plans or {}).get(name)
        if name in case.aliases:
            continue
        if p is None:
            out.append(f"{name} = {make(array_literal(a), a)}")
        else:
            out.append(f"{name} = {make(array_literal(p.base), p.base)}{view_text(p)}   # layout {p.layout}")
    # an aliased input is the framework's own slice of its base, made after it (contract.case.Alias)
    return out + [f"{name} = {alias.text()}   # a view of {alias.of}, not a copy"
                  for name, alias in sorted(case.aliases.items())]


# ---- the call's arguments, in the documented order (docs/CASES.md) ---------------------------------

def bound_text(case, which, element) -> str:
    """The text of clip's `min`/`max` argument: None, the tensor's name, an Element built by
    `element(value, dtype_name)` in the framework's own syntax, or a scalar literal."""
    bound = getattr(call_args(case), which)
    return "None" if bound is None else bound.pass_as(lambda _: which, element, scalar_text)


def clip_bound_texts(case, element) -> tuple:
    """(min text, max text) of `clip(x, min, max)`."""
    return bound_text(case, "min", element), bound_text(case, "max", element)


def value_text(case, inputs_name="value") -> str:
    """setitem's value / scatter's src: the tensor's variable name, or the scalar literal."""
    if inputs_name in case.inputs:
        return inputs_name
    return scalar_text(call_args(case).value)     # setitem's and scatter's decoders both call it `value`


def setitem_key_text(case) -> str:
    from oracle.setitem import key_text
    return key_text(call_args(case).key_data)


def setitem_statement(case, target="target") -> str:
    """`target[key] = value`, the key as a user types it (tensor indices by their input's name)."""
    return f"{target}[{setitem_key_text(case)}] = {value_text(case)}"


def scatter_arg_texts(case) -> list:
    """[dim, index, src or value] of `input.scatter(dim, index, src)`."""
    return [scalar_text(call_args(case).dim), "index", value_text(case, "src")]


def scatter_nd_add_arg_texts(case) -> list:
    """[x, indices, updates(, use_locking)] of `scatter_nd_add(x, indices, updates, use_locking)`:
    use_locking passed iff the case gives it, exactly as given."""
    a = call_args(case)
    extra = [scalar_text(a.use_locking)] if a.lock_given else []
    return ["x", "indices", "updates", *extra]


def set_kwargs_text(case) -> str:
    """`, storage_offset=.., size=.., stride=..`: each passed iff present, exactly as given (wrong types too)."""
    return "".join(f", {k}={scalar_text(v)}" for k, v in call_args(case).kwargs.items())


def set_arg_text(case, source="source") -> str:
    """The arguments of `target.set_(...)`: the source (none for set_()), then the keywords."""
    kw = set_kwargs_text(case)
    return (source + kw) if call_args(case).kind != "none" else kw[2:]


# ---- the check against the Expectation ---------------------------------------------------------

# The judge's comparison (suites/judge.py compare), written out so a repro needs nothing but NumPy.
CHECK_FUNCTION = '''def _check(name, actual, expected, bound=None, choices=None, strict_zero_sign=True, alternatives=()):
    """Fail unless `actual` is the documents' answer: NaN equals NaN; the sign of zero counts where
    strict; `bound`: admissible absolute error per element; `choices`: the admissible values;
    `alternatives`: other whole arrays the documents' readings give (each admitted as it stands)."""
    if actual is None:
        print(f"{name}: not observable here; not compared")
        return
    actual = np.asarray(actual)
    for alt in alternatives:
        if str(actual.dtype) == str(alt.dtype) and actual.shape == alt.shape:
            try:
                return _check(name, actual, alt, strict_zero_sign=strict_zero_sign)
            except AssertionError:
                pass
    assert str(actual.dtype) == str(expected.dtype), f"{name}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{name}: shape {list(actual.shape)}, expected {list(expected.shape)}"
    if expected.dtype.kind in "biu":
        ok = (choices == actual[None]).any(axis=0) if choices is not None else actual == expected
    else:
        a = actual.astype(np.float64)
        e = (choices if choices is not None else expected).astype(np.float64)
        ok = (e == a) | (np.isnan(e) & np.isnan(a))
        if bound is not None:
            with np.errstate(invalid="ignore"):
                ok |= np.abs(a - e) <= bound.astype(np.float64)
        if strict_zero_sign:
            ok &= ~((e == 0) & (a == 0) & (np.signbit(e) != np.signbit(a)))
        if choices is not None:
            ok = ok.any(axis=0)
    ok = np.asarray(ok)
    if not ok.all():
        first = tuple(int(i) for i in np.argwhere(~ok)[0]) if ok.ndim else ()
        raise AssertionError(f"{name}: {np.count_nonzero(~ok)} of {ok.size} elements differ; first at {first}: "
                             f"{actual[first]!r}, expected {expected[first]!r}\\nactual:   {actual!r}\\n"
                             f"expected: {expected!r}")'''


def expected_arrays(expectation) -> list:
    """Every array a check of `expectation` writes as a literal (for the imports)."""
    if expectation is None or expectation.kind not in MAY_RETURN:
        return []
    out = []
    for ea in expectation.outputs.values():
        out += [ea.value] + [a for a in (ea.bound, ea.choices) if a is not None] + list(ea.alternatives)
    return out


def check_lines(expectation, outputs: dict) -> list:
    """The lines that compare each output with the documents' value (kinds "value" and "either").

    outputs: output name -> a Python expression giving that output as a NumPy array (or None when the
    adapter cannot observe it); only names the Expectation has are checked, in its order."""
    from contract.expectation import BOUND, CHOICES, ZERO_REPORT
    lines = [CHECK_FUNCTION, ""]
    for name, ea in expectation.outputs.items():
        if name not in outputs:
            continue
        args = [repr(name), outputs[name], array_literal(ea.value)]
        if ea.rule == BOUND and ea.bound is not None:
            args.append(f"bound={array_literal(np.asarray(ea.bound))}")
        if ea.rule == CHOICES and ea.choices is not None:
            args.append(f"choices={array_literal(np.asarray(ea.choices))}")
        if ea.zero_sign == ZERO_REPORT:
            args.append("strict_zero_sign=False")
        if ea.alternatives:
            args.append(f"alternatives=({''.join(array_literal(np.asarray(a)) + ', ' for a in ea.alternatives)})")
        lines.append(f"_check({', '.join(args)})")
    lines.append('print("conforms to the documents")')
    return lines


def expectation_comment(expectation) -> list:
    if expectation is None:
        return []
    clauses = ", ".join(expectation.clauses)
    lines = [f"# the documents: {expectation.summary()}" + (f" [{clauses}]" if clauses else "")]
    if expectation.kind == "unspecified":
        lines.append("# (unspecified input: any outcome but a crash conforms, so nothing is checked)")
    return lines


def raises_block(call, expectation, unwrap=None) -> list:
    """The call inside try/except: the script passes when the documented error (by class name, as the
    judge checks it: the class or one of its bases) is raised, and fails when the call returns."""
    return _try_call(call, expectation, unwrap) + [
        "else:", f"    raise AssertionError({('the call returned; the documents say it ' + expectation.raises_text())!r})"]


def _try_call(call, expectation, unwrap) -> list:
    """try: call / except: pass when the class is one the documents admit (or any, where they name none)."""
    want = list(expectation.error_classes)
    lines = ["try:", *(f"    {line}" for line in call), "except Exception as e:"]
    if unwrap:
        lines.append(f"    e = {unwrap}")
    if want:
        lines += [f"    if not set({want!r}) & {{c.__name__ for c in type(e).__mro__}}:",
                  "        raise e"]
    lines.append(f'    print(f"raised {{type(e).__name__}} as documented ({expectation.error_clause}): {{e}}")')
    return lines


def compose(case, expectation=None, *, imports=(), setup=(), inputs=None, call=(), after=(), show=(),
            outputs=None, title="", unwrap=None) -> str:
    """A whole repro script.

    imports: the adapter's import lines (numpy, base64 and ml_dtypes are added as the literals need);
    setup: lines before the inputs (helpers such as to_numpy); inputs: the input lines (default: NumPy
    arrays); call: the lines that make the call (inside try/except when the documents name an error);
    after: lines that read back what the call left (not run when an error is documented: the script
    has failed by then if the call returned); show: lines printing it; outputs: output name -> NumPy
    expression for the check; unwrap: an expression of `e` giving the exception the framework means
    (pypto wraps it in its parser's).
    """
    arrays = list(case.inputs.values()) + expected_arrays(expectation)
    lines = [header_comment(case) + (f" via {title}" if title else ""), *expectation_comment(expectation)]
    lines += _unique([*needed_imports(arrays), *imports])
    lines += [*setup, *(input_lines(case) if inputs is None else inputs)]
    if expectation is not None and expectation.kind == "error":
        lines += raises_block(list(call), expectation, unwrap)
    elif expectation is not None and expectation.kind == "either":
        # raising an admitted class conforms; returning does only with the documents' exact value
        checks = check_lines(expectation, outputs or {})
        lines += [checks[0], "", *_try_call(list(call), expectation, unwrap), "else:",
                  *(f"    {line}" for line in [*after, *show, *checks[2:]])]
    elif expectation is not None and expectation.kind == "unspecified":
        # rejecting unsupported input conforms too (the judge's pass); only a crash does not
        lines += ["try:", *(f"    {line}" for line in call), "except Exception as e:",
                  '    print(f"raised {type(e).__name__}: {e} (admissible: the documents leave this input '
                  'unspecified)")', "else:", *(f"    {line}" for line in [*after, *show] or ["pass"])]
    else:
        if unwrap:      # the framework's own exception, not its wrapper, ends the traceback
            call = ["try:", *(f"    {line}" for line in call), "except Exception as e:", f"    raise {unwrap}"]
        lines += [*call, *after, *show]
        if expectation is not None and expectation.kind == "value":
            lines += ["", *check_lines(expectation, outputs or {})]
    return "\n".join(lines) + "\n"


def _unique(lines) -> list:
    return list(dict.fromkeys(line for line in lines if line))


# ---- calling an adapter's repro ------------------------------------------------------------------

def accepts_expectation(repro) -> bool:
    """Whether `repro` takes (case, expectation): adapters written before it took (case) only."""
    try:
        params = list(inspect.signature(repro).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2


def call_repro(repro, case, expectation=None) -> str:
    """repro(case, expectation), or repro(case) for an adapter whose repro takes the case only."""
    if expectation is not None and accepts_expectation(repro):
        return repro(case, expectation)
    return repro(case)


# ---- the fallback: the native API as a function of NumPy arrays ------------------------------------

def generic_repro(case, native_api: str, expectation=None) -> str:
    """The native API called as a function of NumPy arrays with the documented arguments in order.

    An adapter that converts inputs to its own tensors, or calls a method, writes its own repro
    (override Adapter.repro); this one is right for a function that takes NumPy arrays."""
    module = importable_module(native_api)
    imports = [f"import {module}"] if module else []
    note = [] if module else [f"# {native_api!r} names no importable module: import what defines it"]
    from oracle.registry import spec
    op = spec(case.op)      # each op's call text and output names are its OpSpec's (generic_call, generic_outputs)
    call = op.generic_call(case, native_api, scalar_text,
                           lambda v, dt: f"np.array({scalar_text(v)}, dtype={numpy_dtype_text(dt)})")
    names = dict(op.generic_outputs)
    outputs = {k: f"np.asarray({v})" for k, v in names.items()}
    show = [f"print({', '.join(names.values())})"]
    return compose(case, expectation, imports=imports, setup=note, call=call, show=show, outputs=outputs,
                   title=native_api)


def importable_module(dotted: str) -> str:
    """The longest prefix of `dotted` that is an importable module ('' if none): `vendor_clip.clip`
    -> `vendor_clip`, `pkg.ops.clip` -> `pkg.ops`."""
    parts = dotted.split("(", 1)[0].strip().split(".")
    for n in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:n])
        if not all(p.isidentifier() for p in parts[:n]):
            continue
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except (ImportError, ValueError, AttributeError):
            continue
    return ""


def set_readback(a) -> tuple:
    """(read-back lines, outputs) after `target.set_(...)` for a framework whose tensors have `fill_`: self's
    values, then the probe (ST-ALIAS): a write through self must show in the source."""
    after = ["self_ = to_numpy(target).copy()   # self's values right after set_"]
    outputs = {"self": "self_"}
    if a.kind != "none" and a.probe is not None:
        after += ["source_after_fill = None",
                  "try:",
                  f"    target.fill_({scalar_text(a.probe)})",
                  "    source_after_fill = to_numpy(source)",
                  "except Exception as e:   # e.g. a zero stride makes self overlap itself: self's values still count",
                  '    print("the probe write failed:", type(e).__name__, e)']
        outputs["source_after_fill"] = "source_after_fill"
    return after, outputs

"""The judge: (Case, Expectation, Outcome) -> Verdict, as docs/RESULTS.md defines the verdicts.

Pure: it reads its arguments and asks nothing of the adapter (no call, no process).  The call made, where the
outcome does not carry it, and a failing verdict's repro are asked of the adapter afterwards (suites/describe.py).
"""
from __future__ import annotations

import hashlib
import signal as _signal
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from adapters.base import CRASHED, NOT_APPLICABLE, RAISED, RETURNED, TIMED_OUT
from contract.codec import shape_problem
from contract.expectation import BOUND, CHOICES, EITHER, ERROR, MAY_RAISE, UNSPECIFIED, ZERO_REPORT, ExpectedArray
from contract.vocabulary import DIVERGENT, VERDICTS  # noqa: F401  (re-exported for the judge's users)
from contract.vocabulary import READ_RAISES, READ_RETURNS  # noqa: F401  (Verdict.reading; docs/RESULTS.md)
from contract.vocabulary import BORROWED_NOTE

MAX_VALUES = 4096       # arrays larger than this are not copied into a verdict (docs/RESULTS.md)
MAX_INDICES = 10


@dataclass
class Verdict:
    verdict: str
    case_id: str
    op: str
    adapter: str
    adapter_version: str = ""
    native_api: str = ""
    clauses: tuple = ()
    decided_by: tuple = ()              # the clauses the oracle's answer rests on (Expectation.clauses)
    dtypes: tuple = ()                  # the case's input dtypes, so a pattern can name one (bfloat16)
    ranks: tuple = ()                   # "name:Nd" per input, so a pattern can name a rank (x:1d)
    expected: str = ""                  # summary of the Expectation
    outcome: str = ""                   # summary of what the adapter did
    notes: list = field(default_factory=list)
    error: Optional[dict] = None        # expected_class, actual_class, message, stderr
    mismatch: Optional[dict] = None     # output, count, total, indices
    expected_values: Optional[dict] = None   # name -> ndarray (failing verdicts, small arrays)
    actual_values: Optional[dict] = None
    repro: str = ""
    elapsed_s: float = 0.0
    expected_divergence: Optional[str] = None
    reading: str = ""                   # expectation "either": the admitted reading the outcome took
    #                                     (READ_RAISES / READ_RETURNS), "" otherwise
    answer: str = ""                    # answer_of(outcome): what was answered, comparable across adapters
    mode: Optional[dict] = None         # a compiled mode's agreement with its eager twin (suites/variants.py)
    layout: Optional[dict] = None       # a layout variant's agreement with its default layout (suites/variants.py)

    @property
    def divergent(self) -> bool:
        return self.verdict in DIVERGENT

    def evidence(self) -> str:
        """What an expectations line's `~ regex` is searched in: outcome, exception message, stderr."""
        err = self.error or {}
        return "\n".join((self.outcome, str(err.get("message", "")), str(err.get("stderr", ""))))

    def key(self) -> str:
        """What an expectations-file glob matches: op/verdict/clauses/dtypes/ranks/case id."""
        return divergence_key(self.op, self.verdict, self.clauses, self.dtypes, self.ranks, self.case_id)


def divergence_key(op, verdict, clauses, dtypes, ranks, case_id) -> str:
    return (f"{op}/{verdict}/{','.join(sorted(clauses))}/{','.join(sorted(set(dtypes)))}/"
            f"{','.join(sorted(ranks))}/{case_id}")


def input_ranks(shapes) -> tuple:
    """{input name: shape} -> ("index:2d", "input:2d", ...)."""
    return tuple(sorted(f"{name}:{len(shape)}d" for name, shape in shapes.items()))


def record_evidence(rec) -> str:
    """Verdict.evidence() of a results record."""
    err = rec.get("error") or {}
    return "\n".join((str(rec.get("outcome", "")), str(err.get("message", "")), str(err.get("stderr", ""))))


def record_key(rec) -> str:
    """Verdict.key() of a results record (dtypes and ranks read from its encoded case)."""
    inputs = rec["case"]["inputs"]
    return divergence_key(rec["op"], rec["verdict"], rec["clauses"], {a["dtype"] for a in inputs.values()},
                          input_ranks({k: a["shape"] for k, a in inputs.items()}), rec["case_id"])


def judge(case, expectation, outcome, adapter) -> Verdict:
    """`adapter`: anything with a name and a version (an Adapter or a handle); only those are read of it."""
    verdict, outcome_text, notes, extra = _decide(expectation, outcome)
    if getattr(outcome, "borrowed", ""):
        notes = [*notes, f"{BORROWED_NOTE}{outcome.borrowed}"]
    v = Verdict(verdict=verdict, case_id=case.id, op=case.op, adapter=adapter.name,
                adapter_version=_text(getattr(adapter, "version", "")),
                native_api=outcome.native_api,
                clauses=tuple(sorted(set(case.clauses) | set(expectation.clauses))),
                decided_by=tuple(expectation.clauses), dtypes=case.dtypes(),
                ranks=input_ranks({k: a.shape for k, a in case.inputs.items()}),
                expected=expectation.summary(), outcome=outcome_text, notes=notes,
                elapsed_s=outcome.elapsed_s, answer=answer_of(outcome), **extra)
    return v


def _one_nan(a: np.ndarray) -> np.ndarray:
    """`a` with every NaN the same NaN: the judge compares NaN as NaN, whatever its sign or payload."""
    if a.dtype.kind not in "fcV" or a.dtype.names:
        return a
    try:
        nan = np.isnan(a)
    except TypeError:           # a void dtype that is no float
        return a
    return np.where(nan, np.array(np.nan, a.dtype), a) if nan.any() else a


def _text(v):
    return v() if callable(v) else str(v)


def answer_of(outcome) -> str:
    """A digest of what an adapter answered, whatever the documents say of it: the outcome's kind, the
    exception class (raised), the signal (crashed), and every output's name, dtype, shape and bytes
    (returned).  Two adapters answered the same exactly when their digests are equal: bit for bit as the
    judge compares values (a zero's sign counts; every NaN is one NaN, its sign and payload do not), on
    inputs the documents leave open too.  The one digest every variant is compared by (suites/variants.py)
    and the report's agreement reads (the record's `answer`)."""
    h = hashlib.sha256(f"{outcome.kind}|{outcome.exc_type}|{outcome.signal}".encode())
    for name in sorted(outcome.arrays or {}):
        a = np.asarray(outcome.arrays[name])
        shape = a.shape     # before ascontiguousarray, which makes a 0-d array 1-d: 5 and [5] are two answers
        a = _one_nan(np.ascontiguousarray(a))
        h.update(f"|{name}:{a.dtype}:{shape}|".encode())
        h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
    return h.hexdigest()[:16]


def _decide(exp, out):
    """(verdict, outcome summary, notes, extra Verdict fields)."""
    if out.kind == CRASHED:
        what = f"crashed: signal {out.signal} ({_signame(out.signal)})" if out.signal else f"crashed: {out.message}"
        if out.signal and "resident memory" in out.message:     # the pool's watchdog, not the candidate
            what = f"crashed: {out.message}"
        return "crash", what, [], {"error": _error(exp, out)}
    if out.kind == TIMED_OUT:
        return "timeout", f"timed out after {out.seconds:g} s", [], {"error": _error(exp, out)}
    if out.kind == NOT_APPLICABLE:
        return "not-applicable", f"not applicable: {out.message}", [], {}
    if out.kind == RAISED:
        return _judge_raised(exp, out)
    if out.kind == RETURNED:
        return _judge_returned(exp, out)
    return "crash", f"unknown outcome kind {out.kind!r}", [], {}


def _judge_raised(exp, out):
    text = f"raised {out.exc_type}: {_first_line(out.message)}"
    err = _error(exp, out)
    if exp.kind in MAY_RAISE:
        read = {"reading": READ_RAISES} if exp.kind == EITHER else {}
        if exp.admits_class(out.exc_mro):
            return "pass", text, ([f"took the reading that raises ({exp.error_clause})"] if read else []), read
        return "wrong-error-class", text, [], {"error": err, **read}
    if exp.kind == UNSPECIFIED:
        return "pass", text, [f"rejected unsupported input ({', '.join(exp.clauses)})"], {}
    return "unexpected-error", text, [], {"error": err}


def _judge_returned(exp, out):
    names = ", ".join(f"{k}: {_describe(a)}" for k, a in out.arrays.items()) or "nothing"
    text = f"returned {names}"
    if out.message:     # e.g. an output the worker could not carry
        text += f" ({_first_line(out.message)})"
    if exp.kind == ERROR:
        return "missing-error", text, [], {"error": {"expected_class": _classes(exp), "actual_class": None,
                                                     "message": exp.message, "stderr": out.stderr[-4000:]}}
    if exp.kind == UNSPECIFIED:
        return "extension", text, [_extension_note(exp, out)], {}
    if exp.kind == EITHER and not exp.outputs:
        # the reading that accepts the input states no value: any value is an extension
        return "extension", text, [f"took the reading that returns ({exp.error_clause}); the documents give "
                                   "no value to compare"], {"reading": READ_RETURNS}
    # kind "value", or "either" and the call returned: the value is the documents' exactly
    read = {"reading": READ_RETURNS} if exp.kind == EITHER else {}
    notes, failures = ([f"took the reading that returns ({exp.error_clause}); the value is compared"]
                       if read else []), []
    for i, (name, ea) in enumerate(exp.outputs.items()):
        if name not in out.arrays:
            if i == 0:
                failures.append((name, {"output": name, "count": None, "total": None, "indices": []},
                                 f"primary output {name!r} missing"))
            else:
                notes.append(f"output {name!r} not reported by the adapter; not compared")
            continue
        fail, detail, more = compare(name, ea, np.asarray(out.arrays[name]))
        notes.extend(more)
        if fail:
            failures.append((name, detail, fail))
    if not failures:
        return "pass", text, notes, read
    name, detail, why = failures[0]
    extra = {**read, "mismatch": detail,
             "expected_values": _small({n: e.value for n, e in exp.outputs.items()}),
             "actual_values": _small(dict(out.arrays))}
    notes = [f[2] for f in failures[1:]] + notes
    return "value-mismatch", f"{text}; {why}", notes, extra


def _extension_note(exp, out) -> str:
    if not exp.natural:
        return f"returned where unsupported ({', '.join(exp.clauses)}); no NumPy natural value to check against"
    bad = []
    for name, ea in exp.natural.items():
        if name in out.arrays:
            fail, _, _ = compare(name, ea, np.asarray(out.arrays[name]))
            if fail:
                bad.append(fail)
    if bad:
        return f"extension differs from the NumPy natural value: {bad[0]}"
    return "extension matches the NumPy natural value"


# ---- comparing one output ----------------------------------------------------------------

def compare(name, ea, actual):
    """(failure text or "", mismatch detail dict or None, notes) for one output array."""
    exp = np.asarray(ea.value)
    if any(_same_whole(ea, np.asarray(alt), actual) for alt in ea.alternatives):
        return "", None, []
    if ea.alternatives and (str(actual.dtype) != str(exp.dtype) or actual.shape != exp.shape):
        return (f"{name}: {actual.dtype}{list(actual.shape)} is none of the admissible arrays "
                f"({', '.join(f'{a.dtype}{list(a.shape)}' for a in (exp, *ea.alternatives))})"), _whole(name, exp), []
    if str(actual.dtype) != str(exp.dtype):
        return f"{name}: dtype {actual.dtype} != {exp.dtype}", _whole(name, exp), []
    if actual.shape != exp.shape:
        return f"{name}: shape {list(actual.shape)} != {list(exp.shape)}", _whole(name, exp), []
    ok, sign_diff = _elementwise(ea, exp, actual)
    notes = []
    if sign_diff is not None:
        n_sign = int(np.count_nonzero(sign_diff))
        if n_sign:
            if ea.zero_sign == ZERO_REPORT:
                notes.append(f"{name}: sign of zero differs at {n_sign} element{'s' if n_sign > 1 else ''}")
            else:
                ok = ok & ~sign_diff
    if ok.all():
        return "", None, notes
    bad = np.argwhere(~ok)
    first = tuple(int(i) for i in bad[0])
    a0, e0 = actual[first] if actual.ndim else actual[()], exp[first] if exp.ndim else exp[()]
    detail = {"output": name, "count": int(len(bad)), "total": int(ok.size),
              "indices": [[int(i) for i in idx] for idx in bad[:MAX_INDICES]]}
    why = f"{name}: {len(bad)} of {ok.size} elements differ; first at {first}: {_fmt(a0)} != {_fmt(e0)}"
    if ea.rule == BOUND:
        why += f" (bound {_fmt(np.asarray(ea.bound)[first] if np.ndim(ea.bound) else ea.bound)})"
    elif ea.rule == CHOICES:
        why += " (admissible: " + ", ".join(_fmt(c[first] if exp.ndim else c[()]) for c in ea.choices) + ")"
    return why, detail, notes


def _same_whole(ea, alt, actual) -> bool:
    """`actual` is the whole array `alt` (dtype, shape, every element as EXACT compares it)."""
    if str(actual.dtype) != str(alt.dtype) or actual.shape != alt.shape:
        return False
    ok, sign_diff = _elementwise(ExpectedArray(alt, zero_sign=ea.zero_sign), alt, actual)
    if sign_diff is not None and ea.zero_sign != ZERO_REPORT:
        ok = ok & ~sign_diff
    return bool(np.all(ok))


def _elementwise(ea, exp, actual):
    """(ok mask with NaN == NaN and zeros equal, mask of zero-sign differences or None)."""
    if exp.dtype.kind not in "fV" and not _is_ml_float(exp.dtype):
        if ea.rule == CHOICES:
            return (np.asarray(ea.choices) == actual[None]).any(axis=0), None
        return exp == actual, None
    a = actual.astype(np.float64)
    if ea.rule == CHOICES:
        choices = np.asarray(ea.choices).astype(np.float64)
        same = (choices == a[None]) | (np.isnan(choices) & np.isnan(a)[None])
        strict_sign = ea.zero_sign != ZERO_REPORT
        if strict_sign:
            same &= ~((choices == 0) & (a[None] == 0) & (np.signbit(choices) != np.signbit(a)[None]))
        ok = same.any(axis=0)
        return ok, None
    e = exp.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(e)
    if ea.rule == BOUND:
        with np.errstate(invalid="ignore"):
            ok = (a == e) | both_nan | (np.abs(a - e) <= np.asarray(ea.bound, dtype=np.float64))
    else:
        ok = (a == e) | both_nan
    sign_diff = (a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e))
    return ok, sign_diff


def _is_ml_float(dt) -> bool:
    return str(dt) == "bfloat16"


def _whole(name, exp):
    return {"output": name, "count": int(exp.size), "total": int(exp.size), "indices": []}


def _small(arrays):
    # and of a shape the results reader takes back (an empty [0, 2**40] has a dim over its limit)
    return {k: np.asarray(v) for k, v in arrays.items()
            if np.asarray(v).size <= MAX_VALUES and not shape_problem(list(np.shape(v)))}


def _describe(a) -> str:
    a = np.asarray(a)
    return f"{a.dtype}{list(a.shape)}"


def _fmt(v) -> str:
    v = np.asarray(v)
    if v.dtype.kind == "f" or _is_ml_float(v.dtype):
        return repr(float(v))
    return repr(v.item())


def _classes(exp):
    """The error's expected_class field: the admitted class names joined by ' or ', None for any class."""
    return " or ".join(exp.error_classes) or None


def _error(exp, out) -> dict:
    return {"expected_class": _classes(exp) if exp.kind in MAY_RAISE else None,
            "actual_class": out.exc_type or None, "message": out.message[:4000],
            "stderr": out.stderr[-4000:]}


def _first_line(s: str) -> str:
    s = (s or "").strip()
    line = s.splitlines()[0] if s else ""
    return line[:300]


def _signame(sig) -> str:
    try:
        return _signal.Signals(sig).name
    except (ValueError, TypeError):
        return "unknown"

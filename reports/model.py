"""Streaming aggregation of results records into the report model.

One pass over any number of results files (docs/RESULTS.md).  Memory stays
bounded by the number of distinct (op, adapter, verdict, clause) groups, the
clause table and one short answer signature per (case, adapter), never by the
records themselves: only the minimal case and a capped list of examples of
each failure group are kept.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

VERDICTS = ("pass", "value-mismatch", "missing-error", "unexpected-error", "wrong-error-class",
            "crash", "timeout", "extension", "not-applicable")
FAILING = frozenset(("value-mismatch", "missing-error", "unexpected-error", "wrong-error-class",
                     "crash", "timeout"))
# A verdict that is not a failure and not "no answer": the spec's answer or an admissible extension.
CONFORMING = frozenset(("pass", "extension"))
OPS = ("setitem", "clip", "scatter", "scatter_nd_add", "set_")
CLAUSE_PREFIX_OP = {"SI": "setitem", "CL": "clip", "SC": "scatter", "SNA": "scatter_nd_add", "ST": "set_"}

EXAMPLES_CAP = 5          # examples kept per failure group besides its minimal case
DISAGREE_CAP = 20         # differing cases listed per adapter pair


class ReportInputError(ValueError):
    """A results file the report cannot use; the message names the file and line."""


try:   # the harness's streaming reader (reports/results.py) is the one source of truth when present
    from .results import ResultsError, iter_records as _iter_records
except ImportError:    # pragma: no cover - exercised only before reports/results.py exists
    ResultsError = ReportInputError
    _iter_records = None

INPUT_ERRORS = (ResultsError, ReportInputError)


def iter_records(path):
    """Yield the records of one results file; a truncated last line is dropped, other damage raises."""
    if _iter_records is None:
        yield from _fallback_iter_records(path)
        return
    for lineno, rec in enumerate(_iter_records(path), 1):
        # The report counts by verdict: one it does not know would silently vanish from every table.
        if rec.get("record") == "case" and rec.get("verdict") not in VERDICTS:
            raise ReportInputError(f"{path}:{lineno}: unknown verdict {str(rec.get('verdict'))[:40]!r}")
        yield rec


def _fallback_iter_records(path):
    with open(path, "rb") as f:
        prev = None
        for lineno, raw in enumerate(f, 1):
            if prev is not None:
                yield _parse_line(path, *prev)
            prev = (lineno, raw)
        if prev is not None:
            lineno, raw = prev
            if not raw.endswith(b"\n"):
                try:
                    rec = json.loads(raw)
                except ValueError:
                    return          # a killed run's last line: accepted, dropped
                yield _check(path, lineno, rec)
            else:
                yield _parse_line(path, lineno, raw)


def _parse_line(path, lineno, raw):
    try:
        rec = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise ReportInputError(f"{path}:{lineno}: not valid JSON ({e})") from None
    return _check(path, lineno, rec)


def _check(path, lineno, rec):
    where = f"{path}:{lineno}"
    if not isinstance(rec, dict):
        raise ReportInputError(f"{where}: a record must be a JSON object")
    if rec.get("schema") != 1:
        raise ReportInputError(f"{where}: results schema {rec.get('schema')!r}; this reader knows schema 1")
    kind = rec.get("record")
    if kind not in ("run", "case", "end"):
        raise ReportInputError(f"{where}: unknown record kind {kind!r}")
    if kind == "run" and lineno != 1:
        raise ReportInputError(f"{where}: a run header after line 1 (files concatenated? use `conform merge`)")
    if kind != "run" and lineno == 1:
        raise ReportInputError(f"{where}: the first line must be the run header")
    if kind == "case":
        for key, typ in (("case_id", str), ("op", str), ("adapter", str), ("verdict", str), ("clauses", list)):
            if not isinstance(rec.get(key), typ):
                raise ReportInputError(f"{where}: case record lacks {key} ({typ.__name__})")
        if rec["verdict"] not in VERDICTS:
            raise ReportInputError(f"{where}: unknown verdict {rec['verdict']!r}")
    return rec


# ---- clause catalogue ----------------------------------------------------------------------

@dataclass(frozen=True)
class ClauseInfo:
    id: str
    op: str
    kind: str       # sem | err | uns | ex | gap | "" (unknown: seen only in results)
    rule: str


def clause_catalogue() -> dict:
    """Every documented clause id -> ClauseInfo, from oracle.CLAUSES when the oracle provides it."""
    try:
        import oracle
        raw = getattr(oracle, "CLAUSES", None)
        if raw is None:
            from oracle.clauses import CLAUSES as raw
    except ImportError:
        return {}
    items = raw.items() if hasattr(raw, "items") else ((getattr(c, "id", None), c) for c in raw)
    out = {}
    for cid, c in items:
        get = c.get if isinstance(c, dict) else (lambda k, d="", c=c: getattr(c, k, d))
        cid = cid or get("id")
        out[cid] = ClauseInfo(cid, get("op", "") or clause_op(cid), get("kind", "") or _kind_from_id(cid),
                              get("rule", "") or get("statement", "") or get("text", ""))
    return out


def clause_op(cid: str) -> str:
    return CLAUSE_PREFIX_OP.get(cid.split("-", 1)[0], "")


def _kind_from_id(cid: str) -> str:
    return "gap" if "-GAP-" in cid else ""


# ---- the model -----------------------------------------------------------------------------

@dataclass
class FailureGroup:
    op: str
    adapter: str
    verdict: str
    clause: str
    count: int = 0
    expected_divergences: int = 0
    minimal: dict = None              # the whole record of the smallest case
    minimal_size: tuple = None
    examples: list = field(default_factory=list)   # (case_id, label, outcome) of further cases, capped

    @property
    def key(self) -> str:
        return slug(f"{self.op}-{self.adapter}-{self.verdict}-{self.clause}")


@dataclass
class Model:
    headers: list = field(default_factory=list)
    adapters: dict = field(default_factory=dict)          # name -> header entry (+ version seen in records)
    records: int = 0
    matrix: dict = field(default_factory=lambda: defaultdict(Counter))    # (op, adapter) -> verdict counts
    native_apis: dict = field(default_factory=lambda: defaultdict(set))  # (op, adapter) -> native calls
    clause_stats: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> counts
    clause_ops: dict = field(default_factory=dict)
    gap_outcomes: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> kind counts
    gap_examples: dict = field(default_factory=dict)       # (clause, adapter, kind) -> first outcome text
    groups: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)            # case_id -> {adapter: signature}
    case_ops: dict = field(default_factory=dict)           # case_id -> op
    catalogue: dict = field(default_factory=dict)
    duplicates: int = 0

    # -- derived views, computed once after the pass --
    @property
    def ops(self):
        seen = {op for op, _ in self.matrix}
        return [op for op in OPS if op in seen] + sorted(seen - set(OPS))

    @property
    def adapter_names(self):
        seen = {a for _, a in self.matrix} | set(self.adapters)
        return sorted(seen, key=lambda a: (a != "oracle", a))

    def totals(self, adapter=None, op=None) -> Counter:
        c = Counter()
        for (o, a), v in self.matrix.items():
            if (adapter is None or a == adapter) and (op is None or o == op):
                c.update(v)
        return c

    def clause_ids(self):
        ids = set(self.catalogue) | {c for c, _ in self.clause_stats}
        return sorted(ids, key=lambda c: (_op_rank(self.clause_op(c)), c))

    def clause_op(self, cid):
        info = self.catalogue.get(cid)
        return (info.op if info else "") or self.clause_ops.get(cid) or clause_op(cid)

    def clause_kind(self, cid):
        info = self.catalogue.get(cid)
        return (info.kind if info else "") or _kind_from_id(cid)

    def coverage_gaps(self):
        """Documented clauses that no case of any adapter exercised."""
        hit = {c for c, _ in self.clause_stats}
        return [c for c in self.clause_ids() if c not in hit and not _is_range_id(c)]

    def agreement(self):
        """{(a, b): {"shared", "same", "differ": [(case_id, op, sig_a, sig_b)...capped]}} for a < b."""
        names = self.adapter_names
        out = {(a, b): {"shared": 0, "same": 0, "differ_count": 0, "differ": []}
               for i, a in enumerate(names) for b in names[i + 1:]}
        for cid, per in self.answers.items():
            present = [a for a in names if a in per]
            for i, a in enumerate(present):
                for b in present[i + 1:]:
                    cell = out[(a, b)]
                    cell["shared"] += 1
                    if per[a][0] == per[b][0]:
                        cell["same"] += 1
                    else:
                        cell["differ_count"] += 1
                        if len(cell["differ"]) < DISAGREE_CAP:
                            cell["differ"].append((cid, self.case_ops.get(cid, ""), per[a][1], per[b][1]))
        return out

    def sorted_groups(self):
        return sorted(self.groups.values(), key=lambda g: (_op_rank(g.op), g.op, g.adapter, -g.count, g.verdict, g.clause))


def _op_rank(op):
    return OPS.index(op) if op in OPS else len(OPS)


def _is_range_id(cid):
    # "SI-EX-1..6" or "CL-EX-1, CL-EX-2" in the clause list names a family; results cite its members.
    return ".." in cid or "," in cid


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)


def build_model(paths, catalogue=None) -> Model:
    """One streaming pass over the results files; catalogue defaults to oracle.CLAUSES."""
    m = Model(catalogue=clause_catalogue() if catalogue is None else catalogue)
    seen_keys = set()
    for path in paths:
        for rec in iter_records(path):
            kind = rec.get("record")
            if kind == "run":
                _add_header(m, rec, path)
            elif kind == "case":
                key = (rec["case_id"], rec["adapter"])
                if key in seen_keys:      # a resumed run or overlapping shards: count each answer once
                    m.duplicates += 1
                    continue
                seen_keys.add(key)
                add_record(m, rec)
    return m


def _add_header(m: Model, rec, path):
    m.headers.append({"path": str(path), **{k: v for k, v in rec.items() if k != "adapters"}})
    for a in rec.get("adapters") or []:
        if isinstance(a, dict) and a.get("name"):
            m.adapters.setdefault(a["name"], dict(a))


def add_record(m: Model, rec: dict):
    op, adapter, verdict = rec["op"], rec["adapter"], rec["verdict"]
    m.records += 1
    m.matrix[(op, adapter)][verdict] += 1
    if rec.get("native_api"):
        m.native_apis[(op, adapter)].add(rec["native_api"])
    m.adapters.setdefault(adapter, {"name": adapter, "version": rec.get("adapter_version", ""),
                                    "execution": "", "available": True, "reason": ""})
    clauses = [c for c in rec["clauses"] if isinstance(c, str)]
    blamed = blamed_clause(rec)
    for c in clauses:
        m.clause_ops.setdefault(c, op)
        stats = m.clause_stats[(c, adapter)]
        stats["cases"] += 1
        stats[clause_outcome(verdict, c, blamed)] += 1
        if m.clause_kind(c) == "gap":
            bucket = f"{verdict}: {outcome_kind(rec)}"
            m.gap_outcomes[(c, adapter)][bucket] += 1
            m.gap_examples.setdefault((c, adapter, bucket), short_outcome(rec, 140))
    if verdict != "not-applicable":
        m.answers.setdefault(rec["case_id"], {})[adapter] = (answer_signature(rec), f"{verdict}: {short_outcome(rec)}")
        m.case_ops[rec["case_id"]] = op
    if verdict in FAILING:
        _add_failure(m, rec, blamed)


def blamed_clause(rec) -> str:
    """The clause a failing record is attributed to.

    A record cites every clause its case touches (sorted), so the first one is
    not the rule that was broken.  The documented error's clause decides for an
    error expectation ("raises TypeError (SNA-IDX-DTYPE)"); otherwise the case's
    own first tag, the rule its strategy or doc example was written for.
    """
    m = _ERROR_CLAUSE.search(str(rec.get("expected") or ""))
    if m:
        return m.group(1)
    own = [c for c in ((rec.get("case") or {}).get("clauses") or []) if isinstance(c, str)]
    if own:
        return own[0]
    cited = [c for c in rec.get("clauses") or [] if isinstance(c, str)]
    return cited[0] if cited else "(no clause)"


_ERROR_CLAUSE = re.compile(r"^raises .*\(([A-Z]+-[A-Z0-9-]+)\)\s*$")


def clause_outcome(verdict, clause, blamed) -> str:
    """How one record counts for one clause it cites: 'pass' (conforming), 'fail', or 'other'.

    A failure counts against the clause it is attributed to only; for the other
    clauses it cites it is 'other' (the case neither confirms nor refutes them).
    """
    if verdict in CONFORMING:
        return "pass"
    if verdict in FAILING and clause == blamed:
        return "fail"
    return "other"


def _add_failure(m: Model, rec, clause):
    key = (rec["op"], rec["adapter"], rec["verdict"], clause)
    g = m.groups.get(key)
    if g is None:
        g = m.groups[key] = FailureGroup(*key)
    g.count += 1
    if rec.get("expected_divergence"):
        g.expected_divergences += 1
    size = case_size(rec)
    if g.minimal is None or size < g.minimal_size:
        if g.minimal is not None:
            _add_example(g, g.minimal)
        g.minimal, g.minimal_size = rec, size
    else:
        _add_example(g, rec)


def _add_example(g: FailureGroup, rec):
    if len(g.examples) < EXAMPLES_CAP:
        g.examples.append({"case_id": rec["case_id"], "label": (rec.get("case") or {}).get("label", ""),
                           "outcome": short_outcome(rec)})


def case_size(rec) -> tuple:
    """Smallest first: total input elements, then params size, then id (deterministic tie-break)."""
    case = rec.get("case") or {}
    n = 0
    for arr in (case.get("inputs") or {}).values():
        shape = arr.get("shape") if isinstance(arr, dict) else None
        if isinstance(shape, list) and all(isinstance(s, int) for s in shape):
            n += math.prod(shape)
    return (n, len(json.dumps(case.get("params", {}), sort_keys=True)), rec["case_id"])


def outcome_kind(rec) -> str:
    """What an adapter did, coarse enough to count: 'raised RuntimeError', 'returned', 'crashed'..."""
    if rec["verdict"] == "not-applicable":
        return "no mapping"
    err = rec.get("error") or {}
    if err.get("actual_class"):
        return "raised " + err["actual_class"]
    text = str(rec.get("outcome") or "")
    if text.startswith("raised "):
        return text.split(":", 1)[0][:60]
    return (text.split(" ", 1)[0] or rec["verdict"])[:40]


def short_outcome(rec, n=160) -> str:
    text = str(rec.get("outcome") or "").split("\n", 1)[0]
    return text if len(text) <= n else text[: n - 1] + "…"


def answer_signature(rec) -> str:
    """What the adapter answered, comparable across adapters: 'pass', the error class, or a hash of the values.

    Two adapters agree on a case when their signatures are equal.  Returned values
    are compared by their encoded bytes, so two wrong-but-identical answers agree.
    """
    verdict = rec["verdict"]
    if verdict == "pass":
        return "pass"
    if rec["verdict"] == "not-applicable":
        return "no mapping"
    err = rec.get("error") or {}
    if err.get("actual_class"):
        return "raised " + err["actual_class"]
    if rec.get("actual_values"):
        blob = json.dumps(rec["actual_values"], sort_keys=True).encode()
        return "returned " + hashlib.sha1(blob).hexdigest()[:12]
    return f"{verdict} {rec.get('outcome', '')}"

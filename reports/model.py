"""Streaming aggregation of results records into the report model.

One pass over any number of results files (docs/RESULTS.md).  Memory stays
bounded by the number of distinct (op, adapter, verdict, clause) groups, the
clause table, one short answer signature per (case, adapter) and one short
row per failing record (id, label, outcome: so the report can list every
failing case), never by the records themselves: only the minimal case of each
failure group is kept whole.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from contract.vocabulary import CONFORMING, DIVERGENT, VERDICTS
from contract.vocabulary import EXIT_DIVERGED, EXIT_OK

from contract.results import ResultsError, iter_records as _iter_records   # the one results reader (docs/RESULTS.md)

OPS = ("setitem", "clip", "scatter", "scatter_nd_add", "set_")
CLAUSE_PREFIX_OP = {"SI": "setitem", "CL": "clip", "SC": "scatter", "SNA": "scatter_nd_add", "ST": "set_"}

DISAGREE_CAP = 20         # differing cases listed per adapter pair
ROW_TEXT_CAP = 200        # characters of outcome / message kept per failing row


class ReportInputError(ValueError):
    """A results file the report cannot use; the message names the file and line."""


INPUT_ERRORS = (ResultsError, ReportInputError)


def iter_records(path):
    """Yield the records of one results file; a truncated last line is dropped, other damage raises.

    On top of the results reader's checks, the optional fields the report shows
    are type-checked here, once, so a damaged one is named with file and line
    instead of failing somewhere inside the rendering.
    """
    for lineno, rec in enumerate(_iter_records(path), 1):
        if rec.get("record") == "case":
            problem = case_record_problem(rec)
            if problem:
                raise ReportInputError(f"{path}:{lineno}: {problem}")
        yield rec


_STR_FIELDS = ("native_api", "adapter_version", "expected", "outcome", "repro")


def case_record_problem(rec) -> str:
    """'' for a case record the report can use; else what is wrong with it."""
    # The report counts by verdict: one it does not know would silently vanish from every table.
    if rec.get("verdict") not in VERDICTS:
        return f"unknown verdict {str(rec.get('verdict'))[:40]!r}"
    if not all(isinstance(c, str) for c in rec["clauses"]):
        return "clauses must be a list of strings"
    for k in _STR_FIELDS:
        if k in rec and not isinstance(rec[k], str):
            return f"field {k!r} must be a string"
    if rec.get("expected_divergence") is not None and not isinstance(rec["expected_divergence"], str):
        return "field 'expected_divergence' must be a string"
    if "notes" in rec and not (isinstance(rec["notes"], list) and all(isinstance(n, str) for n in rec["notes"])):
        return "field 'notes' must be a list of strings"
    for k in ("error", "mismatch"):
        if k in rec and not isinstance(rec[k], dict):
            return f"field {k!r} must be an object"
    if isinstance(rec.get("error"), dict) and not all(v is None or isinstance(v, str) for v in rec["error"].values()):
        return "field 'error' must map to strings"
    for k in ("expected_values", "actual_values"):
        if k in rec and not (isinstance(rec[k], dict) and all(isinstance(v, dict) for v in rec[k].values())):
            return f"field {k!r} must map output names to encoded arrays"
    case = rec["case"] if isinstance(rec.get("case"), dict) else {}
    if not isinstance(case.get("inputs", {}), dict) or not all(isinstance(v, dict) for v in case.get("inputs", {}).values()):
        return "case.inputs must map names to encoded arrays"
    if not isinstance(case.get("label", ""), str):
        return "case.label must be a string"
    if not (isinstance(case.get("clauses", []), list) and all(isinstance(c, str) for c in case.get("clauses", []))):
        return "case.clauses must be a list of strings"
    return ""


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

class FailingRow(NamedTuple):
    """One failing record, short enough to keep for every one of them (the report lists them all)."""
    case_id: str
    label: str
    outcome: str
    message: str         # the exception message's first line, where there is one
    clauses: tuple       # every clause the record cites
    reason: str          # the expectations line's reason; "" when unlisted


@dataclass
class FailureGroup:
    op: str
    adapter: str
    verdict: str
    clause: str
    listed: bool = False              # all its cases are expected (listed) divergences, or none is
    count: int = 0
    minimal: dict = None              # the whole record of the smallest case
    minimal_size: tuple = None
    rows: list = field(default_factory=list)    # a FailingRow per case, the minimal one included

    @property
    def expected_divergences(self) -> int:
        return self.count if self.listed else 0

    @property
    def key(self) -> str:
        return slug(f"{self.op}-{self.adapter}-{self.verdict}-{self.clause}-{'listed' if self.listed else 'unlisted'}")


@dataclass
class Model:
    headers: list = field(default_factory=list)
    adapters: dict = field(default_factory=dict)          # name -> header entry (+ version seen in records)
    records: int = 0
    matrix: dict = field(default_factory=lambda: defaultdict(Counter))    # (op, adapter) -> verdict counts
    listed: Counter = field(default_factory=Counter)      # (op, adapter) -> expected (listed) divergences
    native_apis: dict = field(default_factory=lambda: defaultdict(set))  # (op, adapter) -> native calls
    clause_stats: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> counts
    clause_ops: dict = field(default_factory=dict)
    gap_outcomes: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> kind counts
    gap_examples: dict = field(default_factory=dict)       # (clause, adapter, kind) -> first outcome text
    groups: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)            # case_id -> {adapter: signature}
    case_ops: dict = field(default_factory=dict)           # case_id -> op
    catalogue: dict = field(default_factory=dict)
    citations: Counter = field(default_factory=Counter)   # clause -> case records citing it
    pending: dict = field(default_factory=dict)           # failures not yet attributed to a clause
    ends: list = field(default_factory=list)              # end records (a finished run has one per file)
    verdict_lines: list = None
    kinds: dict = field(default_factory=dict)             # clause -> kind, from the catalogue
    duplicates: int = 0
    domain_hits: Counter = field(default_factory=Counter)  # (op, param, class) -> distinct cases hitting it
    domain_cases: dict = field(default_factory=dict)       # case id -> op, for the cases counted there

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

    def gate(self, adapter=None, op=None) -> dict:
        """The CI gate over these records: divergences no expectations line lists, the listed ones, the exit code.

        `conform run` exits 1 when a divergence is unlisted, else 0 (docs/CLI.md);
        the records carry the expectations verdict of their run (`expected_divergence`).
        """
        t = self.totals(adapter=adapter, op=op)
        expected = sum(n for (o, a), n in self.listed.items()
                       if (adapter is None or a == adapter) and (op is None or o == op))
        unlisted = sum(t[v] for v in DIVERGENT) - expected
        return {"unlisted": unlisted, "expected": expected, "exit_code": EXIT_DIVERGED if unlisted else EXIT_OK}

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
        """{(a, b): {"shared", "same", "differ_count", "differ_conforming", "differ": [(case_id, op, text_a, text_b)...capped]}}.

        For a < b.  Agreement compares answers, not verdicts: an adapter that
        extends unsupported input (extension) and one that rejects it (pass)
        differ, although both conform; differ_conforming counts those differences.
        """
        names = self.adapter_names
        out = {(a, b): {"shared": 0, "same": 0, "differ_count": 0, "differ_conforming": 0, "differ": []}
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
                        if per[a][2] in CONFORMING and per[b][2] in CONFORMING:
                            cell["differ_conforming"] += 1
                        if len(cell["differ"]) < DISAGREE_CAP:
                            cell["differ"].append((cid, self.case_ops.get(cid, ""), per[a][1], per[b][1]))
        return out

    def sorted_groups(self):
        # unlisted first: they are what fails the gate
        return sorted(self.groups.values(),
                      key=lambda g: (_op_rank(g.op), g.op, g.adapter, g.listed, -g.count, g.verdict, g.clause))


def _op_rank(op):
    return OPS.index(op) if op in OPS else len(OPS)


def _is_range_id(cid):
    # "SI-EX-1..6" or "CL-EX-1, CL-EX-2" in the clause list names a family; results cite its members.
    return ".." in cid or "," in cid


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)


def build_model(paths, catalogue=None, keep_verdicts=False) -> Model:
    """One streaming pass over the results files; catalogue defaults to oracle.CLAUSES.

    keep_verdicts: also keep one "case_id<TAB>adapter<TAB>verdict" line per record
    (m.verdict_lines, for the certificate's digest).
    """
    m = Model(catalogue=clause_catalogue() if catalogue is None else catalogue)
    m.verdict_lines = [] if keep_verdicts else None
    m.kinds = {c: i.kind for c, i in m.catalogue.items()}
    seen_keys = set()
    for path in paths:
        for rec in iter_records(path):
            kind = rec.get("record")
            if kind == "run":
                _add_header(m, rec, path)
            elif kind == "end":
                m.ends.append(rec)
            elif kind == "case":
                key = (rec["case_id"], rec["adapter"])
                if key in seen_keys:      # a resumed run or overlapping shards: count each answer once
                    m.duplicates += 1
                    continue
                seen_keys.add(key)
                add_record(m, rec)
                if m.verdict_lines is not None:
                    m.verdict_lines.append(f"{key[0]}\t{key[1]}\t{rec['verdict']}")
    attribute_failures(m)
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
    clauses = tuple(rec["clauses"])
    m.citations.update(clauses)
    if rec["case_id"] not in m.domain_cases:          # each case once, however many adapters ran it
        m.domain_cases[rec["case_id"]] = op
        m.domain_hits.update((op, *k) for k in domain_hits(rec))
    for c in clauses:
        m.clause_ops.setdefault(c, op)
        stats = m.clause_stats[(c, adapter)]
        stats["cases"] += 1
        if verdict not in DIVERGENT:    # failures are counted once attributed (attribute_failures)
            stats["pass" if verdict in CONFORMING else "other"] += 1
        if m.clause_kind(c) == "gap":
            bucket = f"{verdict}: {outcome_kind(rec)}"
            m.gap_outcomes[(c, adapter)][bucket] += 1
            m.gap_examples.setdefault((c, adapter, bucket), short_outcome(rec, 140))
    if verdict != "not-applicable":
        m.answers.setdefault(rec["case_id"], {})[adapter] = (answer_signature(rec), f"{verdict}: {short_outcome(rec)}",
                                                             verdict)
        m.case_ops[rec["case_id"]] = op
    if verdict in DIVERGENT:
        listed = bool(rec.get("expected_divergence"))
        if listed:
            m.listed[(op, adapter)] += 1
        err = _ERROR_CLAUSE.search(str(rec.get("expected") or ""))
        # the oracle's deciding clauses, where the record has them, narrow the blame to the rule that broke
        decided = tuple(c for c in rec.get("decided_by") or () if c in clauses) or clauses
        _add_failure(m.pending, (op, adapter, verdict, clauses, err.group(1) if err else None, decided, listed), rec)


def domain_hits(rec) -> list:
    """(param, class) of each boundary class of the op's documented domain (oracle.domains) the record's
    case hits; none for a case the report cannot decode (a results file is data, not trusted)."""
    try:
        from contract.case import Case
        from oracle.domains import hits
        return hits(Case.from_json(rec["case"]))
    except Exception:       # noqa: BLE001  a damaged case, or no oracle: nothing to count
        return []


def attribute_failures(m: Model) -> None:
    """Give each failing record its clause, now that every clause's citation count is known.

    Failures wait in m.pending grouped by everything attribution depends on
    (op, adapter, verdict, cited clauses, documented error clause, listed), so this
    costs one step per distinct group, not per record.
    """
    for (op, adapter, verdict, clauses, err, decided, listed), pg in m.pending.items():
        blamed = blame(decided, err, m.citations, m.kinds)
        for c in clauses:
            m.clause_stats[(c, adapter)]["fail" if c == blamed else "other"] += pg.count
        key = (op, adapter, verdict, blamed, listed)
        g = m.groups.get(key)
        if g is None:
            g = m.groups[key] = FailureGroup(*key)
        _merge_group(g, pg)
    m.pending.clear()


def blame(cited, error_clause=None, citations=None, kinds=None) -> str:
    """The clause a failure is attributed to: the most specific rule it cites.

    A record cites every clause its case touches (the general formula and dtype
    rules included) and does not say which one broke.  The documented error's
    clause decides for an error expectation ("raises TypeError (SNA-IDX-DTYPE)");
    otherwise the cited clause the fewest records cite, gap clauses last, ties by id.
    """
    if error_clause:
        return error_clause
    if not cited:
        return "(no clause)"
    citations, kinds = citations or {}, kinds or {}
    return min(cited, key=lambda c: (kinds.get(c) == "gap" or "-GAP-" in c, citations.get(c, 0), c))


_ERROR_CLAUSE = re.compile(r"^raises .*\(([A-Z]+-[A-Z0-9-]+)\)\s*$")


def _add_failure(groups: dict, key, rec):
    g = groups.get(key)
    if g is None:
        g = groups[key] = FailureGroup(*key[:4], listed=key[-1])
    g.count += 1
    g.rows.append(failing_row(rec))
    size = case_size(rec)
    if g.minimal is None or size < g.minimal_size:
        g.minimal, g.minimal_size = rec, size


def _merge_group(g: FailureGroup, other: FailureGroup):
    g.count += other.count
    g.rows.extend(other.rows)
    if g.minimal is None or other.minimal_size < g.minimal_size:
        g.minimal, g.minimal_size = other.minimal, other.minimal_size


def failing_row(rec) -> FailingRow:
    err = rec.get("error") or {}
    message = str(err.get("message") or "").strip().split("\n", 1)[0]
    return FailingRow(rec["case_id"], (rec.get("case") or {}).get("label", ""), short_outcome(rec, ROW_TEXT_CAP),
                      message[:ROW_TEXT_CAP], tuple(rec["clauses"]), rec.get("expected_divergence") or "")


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

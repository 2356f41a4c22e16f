"""Streaming aggregation of results records into the report model.

One pass over any number of results files (docs/RESULTS.md).  Memory stays
bounded by the number of distinct (op, adapter, verdict, clause) groups, the
clause table, one answer digest per (case, adapter) and one short
row per failing record (id, label, outcome: so the report can list every
failing case), never by the records themselves: only the minimal case of each
failure group is kept whole.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from contract.inputfile import InputFileError
from contract.results import ResultsError, record_problem, iter_records as _iter_records   # noqa: F401  the one results reader
from contract.vocabulary import CONFORMING, DIVERGENT, FRAMEWORK_BUG, VERDICTS  # noqa: F401  (VERDICTS: for summary.py)
from contract.vocabulary import EXIT_DIVERGED, EXIT_OK, READINGS


DISAGREE_CAP = 20         # differing cases listed per adapter pair
ROW_TEXT_CAP = 200        # characters of outcome / message kept per failing row


class ReportInputError(ValueError):
    """A results file the report cannot use as a whole (no header, several adapters for one certificate)."""


# What a report command refuses with exit 3: the results reader's errors (ResultsError, an
# InputFileError naming file and line) and the report's own whole-file ones.
INPUT_ERRORS = (InputFileError, ReportInputError)


def iter_records(path):
    """Yield the records of one results file; a truncated last line is dropped, other damage raises.

    The results reader checks every field the report shows (contract.results.record_problem), once,
    so a damaged one is named with file and line instead of failing somewhere inside the rendering.
    """
    return _iter_records(path)


# ---- clause catalogue ----------------------------------------------------------------------

@dataclass(frozen=True)
class ClauseInfo:
    id: str
    op: str
    kind: str           # sem | err | uns | ex | gap | "" (unknown: seen only in results)
    rule: str
    section: str = ""   # the part of the source document the rule comes from (docs/SPEC.md)
    source: str = ""    # the source document's file name


def clause_catalogue() -> dict:
    """Every documented clause id -> ClauseInfo, op by op in the oracle registry's order (docs/SPEC.md)."""
    from oracle.registry import CLAUSES
    return {cid: ClauseInfo(cid, c.op, c.kind, c.statement, c.section, c.source) for cid, c in CLAUSES.items()}


@dataclass(frozen=True)
class ConflictInfo:
    """Two sentences of one document that disagree, with every reading admitted (oracle/readings)."""
    id: str
    op: str
    clause: str         # the clause whose expectation admits every reading: the cases it touches cite it
    inputs: str         # which inputs, in words
    readings: tuple     # one text per admissible reading
    sentences: tuple    # ((sentence id, section, what it says), ...)


def conflict_catalogue() -> tuple:
    """Every contradiction the second reading records, op by op in the registry's order."""
    from oracle.registry import SPECS
    out = []
    for spec in SPECS.values():
        r = spec.reading
        if r is None:
            continue
        said = {x.id: x for x in r.sentences}
        out += [ConflictInfo(c.id, spec.name, c.clause, c.inputs, tuple(c.readings),
                             tuple((sid, said[sid].section, said[sid].says) for sid in c.sentences if sid in said))
                for c in r.conflicts]
    return tuple(out)


def clause_op(cid: str) -> str:
    """The op of a clause id the registry knows, by id or by prefix; "" otherwise."""
    from oracle.registry import op_of_clause
    return op_of_clause(cid)


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
    why: str = ""                     # why the failures are charged to `clause` (attribution_reason)

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
    # (example clause, adapter) -> its failing cases not listed: a documented example's own case fails it
    # whatever rule the failure is charged to (attribute_failures), so the example shows its own verdict
    example_unlisted: Counter = field(default_factory=Counter)
    clause_ops: dict = field(default_factory=dict)
    gap_outcomes: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> kind counts
    gap_examples: dict = field(default_factory=dict)       # (clause, adapter, kind) -> first outcome text
    conflicts: tuple = ()                                  # ConflictInfo, from the oracle's second reading
    # (adapter, op, reason) -> FrameworkBug: listed divergences whose reason says the framework is wrong
    framework_bugs: dict = field(default_factory=dict)
    conflict_clauses: frozenset = frozenset()              # their clauses (each record is checked against them)
    conflict_outcomes: dict = field(default_factory=lambda: defaultdict(Counter))  # (clause, adapter) -> counts
    readings: dict = field(default_factory=lambda: defaultdict(Counter))  # (op, adapter) -> {raises, returns}: n
    groups: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)            # case_id -> {adapter: signature}
    case_ops: dict = field(default_factory=dict)           # case_id -> op
    case_clauses: dict = field(default_factory=dict)       # case_id -> the clauses its records cite
    catalogue: dict = field(default_factory=dict)
    citations: Counter = field(default_factory=Counter)   # clause -> case records citing it
    failing_citations: Counter = field(default_factory=Counter)   # (clause, adapter) -> failing records citing it
    pending: dict = field(default_factory=dict)           # failures not yet attributed to a clause
    ends: list = field(default_factory=list)              # end records (a finished run has one per file)
    incomplete: list = field(default_factory=list)        # why the results do not cover the corpus ([]: they do)
    verdict_lines: list = None
    kinds: dict = field(default_factory=dict)             # clause -> kind, from the catalogue
    duplicates: int = 0
    duplicate_conflicts: list = field(default_factory=list)   # FirstRecords.conflicts
    duplicate_unlisted: Counter = field(default_factory=Counter)  # (op, adapter) -> conflicting duplicates
    domain_hits: Counter = field(default_factory=Counter)  # (op, param, class) -> distinct cases hitting it
    domain_cases: dict = field(default_factory=dict)       # case id -> op, for the cases counted there
    # the mode-consistency gate (suites/variants.py): compiled mode -> its eager twin, its counts
    # (compared, agree, differ, unlisted), each disagreement; (op, mode) -> unlisted disagreements
    mode_twins: dict = field(default_factory=dict)
    mode_stats: dict = field(default_factory=lambda: defaultdict(Counter))
    mode_cases: list = field(default_factory=list)
    mode_unlisted: Counter = field(default_factory=Counter)
    # layout variants (suites/variants.py): (adapter, op, layout) -> Counter(compared, agree, differ, unlisted)
    layout_stats: dict = field(default_factory=lambda: defaultdict(Counter))
    layout_cases: list = field(default_factory=list)
    layout_unlisted: Counter = field(default_factory=Counter)      # (op, variant name) -> unlisted differences

    # -- derived views, computed once after the pass --
    @property
    def complete(self) -> bool:
        """Whether the results cover their corpus: every file finished (has its end record), the shards
        join up, and every adapter has a record of every case (completeness_problems)."""
        return not self.incomplete

    @property
    def ops(self):
        """The ops the results hold, in the catalogue's order (the registry's), then any others by name."""
        return self.op_order({op for op, _ in self.matrix})

    def op_order(self, ops) -> list:
        known = self.catalogue_ops()
        return [op for op in known if op in ops] + sorted(set(ops) - set(known))

    def catalogue_ops(self) -> list:
        return list(dict.fromkeys(i.op for i in self.catalogue.values() if i.op))

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
        # a compiled mode answering otherwise than its eager twin, unlisted, fails the gate as well
        unlisted += sum(n for (o, a), n in self.mode_unlisted.items()
                        if (adapter is None or a == adapter) and (op is None or o == op))
        # and so does an answer that changes with its inputs' layout (counted on the variant, NAME@LAYOUT),
        # and a case answered twice with different verdicts (FirstRecords)
        for counts in (self.layout_unlisted, self.duplicate_unlisted):
            unlisted += sum(n for (o, a), n in counts.items()
                            if (adapter is None or a == adapter) and (op is None or o == op))
        return {"unlisted": unlisted, "expected": expected, "exit_code": EXIT_DIVERGED if unlisted else EXIT_OK}

    def clause_ids(self):
        ids = set(self.catalogue) | {c for c, _ in self.clause_stats}
        rank = {op: i for i, op in enumerate(self.catalogue_ops())}
        return sorted(ids, key=lambda c: (rank.get(self.clause_op(c), len(rank)), c))

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

    def camps_by_clause(self, threshold: float = 0.95) -> list:
        """Per clause, the adapters grouped by who answers alike on the cases citing it: [(clause, op, cases,
        [[adapter, ...], ...])], only clauses where more than one camp forms.  An adapter joins the first camp
        whose first member it agrees with on at least `threshold` of their shared cases (answers, as in
        agreement()); camps are listed largest first."""
        names = self.adapter_names
        per_clause = {}
        for cid, per in self.answers.items():
            for c in self.case_clauses.get(cid, ()):
                per_clause.setdefault(c, []).append(per)
        out = []
        for clause in sorted(per_clause, key=lambda c: (self.clause_op(c), c)):
            rows = per_clause[clause]
            present = [a for a in names if any(a in per for per in rows)]
            if len(present) < 2:
                continue

            def alike(a, b):
                shared = [per for per in rows if a in per and b in per]
                return not shared or sum(per[a][0] == per[b][0] for per in shared) >= threshold * len(shared)
            camps = []
            for a in present:
                home = next((camp for camp in camps if alike(camp[0], a)), None)
                (home.append(a) if home is not None else camps.append([a]))
            if len(camps) > 1:
                out.append((clause, self.clause_op(clause), len(rows), sorted(camps, key=lambda c: -len(c))))
        return out

    def sorted_groups(self):
        # unlisted first: they are what fails the gate
        rank = {op: i for i, op in enumerate(self.catalogue_ops())}
        return sorted(self.groups.values(), key=lambda g: (rank.get(g.op, len(rank)), g.op, g.adapter, g.listed,
                                                           -g.count, g.verdict, g.clause))


def _is_range_id(cid):
    # "SI-EX-1..6" or "CL-EX-1, CL-EX-2" in the clause list names a family; results cite its members.
    return ".." in cid or "," in cid


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)


def build_model(paths, catalogue=None, keep_verdicts=False) -> Model:
    """One streaming pass over the results files; catalogue defaults to clause_catalogue() (the oracle's).

    keep_verdicts: also keep one "case_id<TAB>adapter<TAB>verdict" line per record
    (m.verdict_lines, for the certificate's digest).
    """
    m = Model(catalogue=clause_catalogue() if catalogue is None else catalogue)
    m.conflicts = conflict_catalogue() if catalogue is None else ()
    m.conflict_clauses = frozenset(c.clause for c in m.conflicts)
    m.verdict_lines = [] if keep_verdicts else None
    m.kinds = {c: i.kind for c, i in m.catalogue.items()}
    first = FirstRecords()
    files = []
    for path in paths:
        files.append([str(path), {}, None])
        for rec in iter_records(path):
            kind = rec.get("record")
            if kind == "run":
                _add_header(m, rec, path)
                files[-1][1] = rec
            elif kind == "end":
                m.ends.append(rec)
                files[-1][2] = rec
            elif kind == "case":
                key = (rec["case_id"], rec["adapter"])
                if not first.keep(rec, path):   # a resumed run or overlapping shards: count each answer once
                    continue
                add_record(m, rec)
                if m.verdict_lines is not None:
                    m.verdict_lines.append(f"{key[0]}\t{key[1]}\t{rec['verdict']}")
    attribute_failures(m)
    m.duplicates, m.duplicate_conflicts, m.duplicate_unlisted = first.duplicates, first.conflicts, first.conflicting
    per_adapter = Counter()
    for (_, a), c in m.matrix.items():
        per_adapter[a] += sum(c.values())
    m.incomplete = completeness_problems(files, per_adapter)
    return m


class FirstRecords:
    """The first record of each (case_id, adapter) counts (the report, merge); a later one is a duplicate (a
    resumed run, overlapping shards), and a duplicate whose verdict differs is a conflict (a
    non-deterministic candidate, a shard run on another build): named, never hidden, and it fails the gate.
    Memory: one key and one verdict per record, and at most CONFLICTS_LISTED conflicts listed."""

    CONFLICTS_LISTED = 100

    def __init__(self):
        self.verdicts, self.duplicates, self.conflicts = {}, 0, []
        self.conflicting = Counter()        # (op, adapter) -> conflicting duplicates, all of them

    def keep(self, rec, path) -> bool:
        """Whether `rec` is the first of its (case_id, adapter)."""
        key = (rec["case_id"], rec["adapter"])
        kept = self.verdicts.get(key)
        if kept is None:
            self.verdicts[key] = rec["verdict"]
            return True
        self.duplicates += 1
        if kept != rec["verdict"]:
            self.conflicting[(rec["op"], key[1])] += 1
            if len(self.conflicts) < self.CONFLICTS_LISTED:
                self.conflicts.append({"case_id": key[0], "adapter": key[1], "kept": kept,
                                       "dropped": rec["verdict"], "file": str(path)})
        return False


def completeness_problems(files, cases_per_adapter) -> list:
    """Why a set of results files does not cover its corpus, one line each ([] when it does).

    files: (path, run header, end record or None) per file; cases_per_adapter: adapter -> distinct
    (case, adapter) records.  Checks: every file has its end record (else the run was interrupted) and
    none says `complete: false` (a merge of an incomplete set); the shards K/N join up to the whole
    corpus; and, where every header declares the corpus's case count and no run was limited to some
    ops, each adapter has that many records (a case the oracle failed on, or a -k in pytest, leaves one out).
    """
    problems, slices = [], set()
    for path, header, end in files:
        if end is None:
            problems.append(f"{path}: no end record (an interrupted run; `conform run --resume` finishes it)")
        elif end.get("complete") is False:
            why = "; ".join(str(x) for x in end.get("incomplete") or ()) or "its end record says complete: false"
            problems.append(f"{path}: merged from an incomplete set ({why})")
        shard = str(header.get("shard") or "1/1")
        if shard == "merged":
            slices.add((1, 1))      # a merge stands for the whole corpus; its own end record says if it is not
            continue
        try:
            k, n = (int(x) for x in shard.split("/"))
        except ValueError:
            problems.append(f"{path}: shard {shard!r} is not K/N")
            continue
        slices.add((k, n))
    splits = {n for _, n in slices}
    if splits and not any(all((k, n) in slices for k in range(1, n + 1)) for n in splits):
        for n in sorted(splits):
            missing = [f"{k}/{n}" for k in range(1, n + 1) if (k, n) not in slices]
            problems.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing: "
                            "the shards do not cover the corpus")
    declared = {h.get("corpus_cases") for _, h, _ in files}
    limited = any(h.get("ops") for _, h, _ in files)
    if len(declared) == 1 and not limited:
        total = declared.pop()
        names = {a.get("name") for _, h, _ in files for a in h.get("adapters") or () if isinstance(a, dict)}
        if isinstance(total, int) and not isinstance(total, bool):
            for a in sorted((names | set(cases_per_adapter)) - {None}):
                if cases_per_adapter.get(a, 0) < total:
                    problems.append(f"adapter {a}: {cases_per_adapter.get(a, 0)} of the corpus's {total} cases "
                                    "have a record")
    return problems


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
    reading = rec.get("reading")
    if reading in READINGS and verdict in CONFORMING:
        m.readings[(op, adapter)][reading] += 1
    for c in m.conflict_clauses.intersection(clauses):
        m.conflict_outcomes[(c, adapter)][f"{verdict}: {reading or outcome_kind(rec)}"] += 1
    if verdict in DIVERGENT:
        m.failing_citations.update((c, adapter) for c in clauses)
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
    mode = rec.get("mode")
    if isinstance(mode, dict):
        add_mode(m, rec, mode)
    layout = rec.get("layout")
    if isinstance(layout, dict):
        add_layout(m, rec, layout)
    if verdict != "not-applicable":
        m.answers.setdefault(rec["case_id"], {})[adapter] = (record_answer(rec), f"{verdict}: {short_outcome(rec)}",
                                                             verdict)
        m.case_ops[rec["case_id"]] = op
        m.case_clauses.setdefault(rec["case_id"], tuple(clauses))
    if verdict in DIVERGENT:
        listed = bool(rec.get("expected_divergence"))
        if listed:
            m.listed[(op, adapter)] += 1
            reason = str(rec["expected_divergence"])
            if reason.startswith(FRAMEWORK_BUG):
                bug = m.framework_bugs.setdefault((adapter, op, reason), FrameworkBug(adapter, op, reason))
                bug.add(rec, clauses)
        err = _ERROR_CLAUSE.search(str(rec.get("expected") or ""))
        # the oracle's deciding clauses, where the record has them, narrow the blame to the rule that broke
        decided = tuple(c for c in rec.get("decided_by") or () if c in clauses) or clauses
        _add_failure(m.pending, (op, adapter, verdict, clauses, err.group(1) if err else None, decided,
                                 edge_case(rec), listed), rec)


def counted(stats: Counter, finding: dict):
    """Count one comparison of two answers to a case (a mode with its twin, a layout with the default) in
    `stats` (compared, agree, differ, unlisted); None where they agree, else the listing reason ("": none)."""
    stats["compared"] += 1
    if finding.get("agrees"):
        stats["agree"] += 1
        return None
    stats["differ"] += 1
    listed = str(finding.get("listed") or "")
    if not listed:
        stats["unlisted"] += 1
    return listed


def add_mode(m: Model, rec: dict, mode: dict) -> None:
    """A compiled mode's record compared with its eager twin's answer (docs/RESULTS.md, `mode`)."""
    adapter = rec["adapter"]
    m.mode_twins[adapter] = str(mode.get("twin", ""))
    listed = counted(m.mode_stats[adapter], mode)
    if listed is None:
        return
    if not listed:
        m.mode_unlisted[(rec["op"], adapter)] += 1
    m.mode_cases.append({"adapter": adapter, "twin": m.mode_twins[adapter], "case_id": rec["case_id"], "op": rec["op"],
                         "verdict": rec["verdict"], "outcome": short_outcome(rec, 200),
                         "twin_verdict": str(mode.get("twin_verdict", "")),
                         "twin_outcome": str(mode.get("twin_outcome", ""))[:200], "listed": listed})


def add_layout(m: Model, rec: dict, layout: dict) -> None:
    """A layout variant's record compared with its default layout's answer (docs/RESULTS.md, `layout`)."""
    base, name = str(layout.get("of", "")), str(layout.get("layout", ""))
    listed = counted(m.layout_stats[(base, rec["op"], name)], layout)
    if listed is None:
        return
    if not listed:
        m.layout_unlisted[(rec["op"], rec["adapter"])] += 1
    m.layout_cases.append({"adapter": base, "layout": name, "case_id": rec["case_id"], "op": rec["op"],
                           "verdict": rec["verdict"], "outcome": short_outcome(rec, 200),
                           "default_verdict": str(layout.get("default_verdict", "")),
                           "default_outcome": str(layout.get("default_outcome", ""))[:200], "listed": listed})


@dataclass
class FrameworkBug:
    """A framework's own bug the corpus found: the listed divergences one expectations line calls so."""
    adapter: str
    op: str
    reason: str
    cases: int = 0
    clauses: set = field(default_factory=set)
    example: str = ""           # the smallest case's id
    example_outcome: str = ""
    _size: tuple = None

    def add(self, rec, clauses) -> None:
        self.cases += 1
        self.clauses.update(clauses)
        size = case_size(rec)
        if self._size is None or size < self._size:
            self._size, self.example, self.example_outcome = size, rec["case_id"], short_outcome(rec, 300)

    def to_json(self) -> dict:
        return {"adapter": self.adapter, "op": self.op, "reason": self.reason[len(FRAMEWORK_BUG):].strip(),
                "cases": self.cases, "clauses": sorted(self.clauses), "example_case": self.example,
                "example_outcome": self.example_outcome}


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
    (op, adapter, verdict, cited clauses, documented error clause, edge case, listed), so this
    costs one step per distinct group, not per record.
    """
    for (op, adapter, verdict, clauses, err, decided, edge, listed), pg in m.pending.items():
        rates = {c: m.failing_citations[(c, adapter)] / max(m.clause_stats[(c, adapter)]["cases"], 1)
                 for c in decided}
        blamed = blame(decided, err, m.citations, m.kinds, edge, rates)
        for c in clauses:
            own = c == blamed or m.clause_kind(c) == "ex"     # a documented example: its case's own verdict
            m.clause_stats[(c, adapter)]["fail" if own else "other"] += pg.count
            if c != blamed and m.clause_kind(c) == "ex" and not listed:
                m.example_unlisted[(c, adapter)] += pg.count
        key = (op, adapter, verdict, blamed, listed)
        g = m.groups.get(key)
        if g is None:
            g = m.groups[key] = FailureGroup(*key)
            g.why = attribution_reason(blamed, decided, err, edge, rates)
        _merge_group(g, pg)
    m.pending.clear()


# A failure on a case with an input that has no elements (a zero-length dimension: an empty x, or
# indices.shape[-1] == 0 in scatter_nd_add) is charged here, not to a clause: such a case cites the op's
# general rules (SNA-RULE, SNA-DUP...) because the oracle applies them, but what fails there is the
# edge case, and charging it to the general rule would mark a rule failed that every ordinary case meets.
EDGE_EMPTY = "(edge case: an input with no elements)"


def edge_case(rec) -> str:
    """EDGE_EMPTY when some input of the record's case has a zero-length dimension, else ''."""
    inputs = (rec.get("case") or {}).get("inputs") or {}
    for a in inputs.values():
        shape = a.get("shape") if isinstance(a, dict) else None
        if isinstance(shape, list) and 0 in shape:
            return EDGE_EMPTY
    return ""


def blame(cited, error_clause=None, citations=None, kinds=None, edge="", fail_rates=None) -> str:
    """The clause a failure is attributed to (attribution_reason says why; docs/SUMMARY.md "Attribution").

    A record cites every clause its case touches (the general formula and dtype
    rules included) and does not say which one broke.  The documented error's
    clause decides for an error expectation ("raises TypeError (SNA-IDX-DTYPE)");
    then an edge case (`edge`: EDGE_EMPTY) takes the failure; otherwise the cited
    clause whose cases fail most often for this adapter (`fail_rates`: failing
    records citing it / records citing it): the rule the failures go with, so a
    min>max failure with tensor bounds is CL-MIN-GT-MAX's and not CL-BROADCAST's
    when broadcasting alone works.  Ties: the clause the fewest records cite (the
    most specific), gap clauses last, then by id.
    """
    if error_clause:
        return error_clause
    if edge:
        return edge
    if not cited:
        return "(no clause)"
    citations, kinds, rates = citations or {}, kinds or {}, fail_rates or {}
    return min(cited, key=lambda c: (kinds.get(c) == "gap" or "-GAP-" in c, -round(rates.get(c, 0.0), 9),
                                     citations.get(c, 0), c))


def attribution_reason(blamed, cited, error_clause=None, edge="", fail_rates=None) -> str:
    """One sentence: why a failure is charged to `blamed` (shown with every failure group)."""
    if error_clause:
        return (f"the documents say this call raises ({error_clause}); a failure of a documented error is "
                f"charged to the clause that documents it")
    if edge:
        return ("an input has no elements (a zero-length dimension, e.g. indices.shape[-1] == 0): the failure "
                f"is charged to that edge case, not to the general rules the case cites ({', '.join(cited)})")
    if blamed == "(no clause)":
        return "the case cites no clause"
    rates = fail_rates or {}
    others = [c for c in cited if c != blamed]
    if not others:
        return f"{blamed} is the only clause the oracle's answer rests on"
    pct = ", ".join(f"{c} {100 * rates.get(c, 0):.0f}%" for c in sorted(cited, key=lambda c: -rates.get(c, 0)))
    return (f"of the clauses the oracle's answer rests on, {blamed}'s cases fail most often for this adapter "
            f"({pct} of the cases citing each fail); a heuristic: docs/SUMMARY.md, Attribution")


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
    outcome = short_outcome(rec, ROW_TEXT_CAP)
    mode = rec.get("mode")
    if isinstance(mode, dict) and mode.get("agrees") is False:      # the per-case note of the mode gate
        outcome = f"{outcome} · eager {mode.get('twin', '')}: {str(mode.get('twin_outcome', ''))[:ROW_TEXT_CAP]}"
    return FailingRow(rec["case_id"], (rec.get("case") or {}).get("label", ""), outcome,
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


def record_answer(rec) -> str:
    """What the adapter answered, comparable across adapters: the record's `answer` (suites/judge.answer_of,
    docs/RESULTS.md), equal exactly where the two answers are bit for bit; a record written before the judge
    wrote `answer` stands for its verdict and outcome."""
    return str(rec.get("answer") or f"{rec['verdict']}: {rec.get('outcome', '')}")

"""`conform expectations draft RESULTS [--file FILE]`: the expectations lines that would list every divergence of
a results file that FILE (default: none) leaves unlisted, one per cause, for the vendor to give each its reason.

A cause is (op, verdict, the clause the failure is charged to, the inputs' dtypes): the clause is the report's
(reports/model.py blame: a documented error's clause, the edge case of an empty input, else the cited clause
whose cases fail most often), so a line reads as the report's failure group does.  Each line is preceded by a
comment with the number of cases it lists and an example case, and carries the placeholder reason
suites.known_divergences.DRAFT_REASON, which `conform certify` refuses: a draft is not a file until every line
says why.  Matching is the run's own (first line wins), and the counts printed are what each line matches
after FILE's lines and the lines above it.

Exit codes: 0 (a draft, possibly empty, on stdout); 2 usage; 3 a missing or malformed file.
"""
from __future__ import annotations

import sys
from collections import defaultdict

from contract.vocabulary import EXIT_OK

from .expectations_check import results_command


def register(sub) -> None:
    d = results_command(sub, "draft", "propose the lines that list every unlisted divergence, one per cause",
                        "a results.jsonl (conform run or certify)", "drafted", cmd_draft)
    d.add_argument("--file", metavar="FILE", help="an expectations file whose lines are taken as written: only "
                   "the divergences it leaves unlisted are drafted")


def glob_of(op, verdict, clause, dtypes) -> str:
    """A glob over record keys (suites.judge.divergence_key: op/verdict/clauses/dtypes/ranks/id) for a cause.
    `clause` is the charged clause, or (cause_clauses) the record's whole clause list where the charged
    clause cannot stand alone in a glob; the dtypes part matches exactly."""
    if "," in clause or not clause:
        return f"{op}/{verdict}/{clause}/{dtypes}/*"
    return f"{op}/{verdict}/*{clause}*/{dtypes}/*"


def cause_clause(charged: str, cited: str) -> str:
    """What a cause's glob names: the charged clause where `*CLAUSE*` finds only it (no other clause id holds
    its text, e.g. SC-RANGE in SC-RANGE-NEG), else the record's whole clause list (an edge case or no clause
    names none)."""
    from oracle.registry import ops, spec
    ids = {c.id for op in ops() for c in spec(op).clauses}
    if charged in ids and not any(charged in other and other != charged for other in ids):
        return charged
    return cited


def draft(path, results, adapter=None) -> dict:
    """{"adapter", "unlisted": n, "lines": [(glob, count, example record)]}: one line per cause of the
    divergences `path`'s lines leave unlisted, counted as a run would match them (first line wins)."""
    from reports.model import build_model
    from suites.known_divergences import DRAFT_REASON, KnownDivergences
    from suites.judge import record_evidence, record_key
    from .expectations_check import check
    r = check(path, results, adapter)
    m = build_model([str(results)])
    charged = {}
    for g in m.groups.values():
        if g.adapter == r["adapter"]:
            charged.update((row.case_id, g.clause) for row in g.rows)
    causes = defaultdict(list)
    for key, rec in r["unlisted"]:
        _, _, cited, dtypes = key.split("/")[:4]
        clause = cause_clause(charged.get(rec["case_id"], ""), cited)
        causes[(rec["op"], rec["verdict"], clause, dtypes)].append(rec)
    globs = [glob_of(*cause) for cause in sorted(causes, key=lambda c: (c[0], c[1], -len(causes[c]), c[2], c[3]))]
    proposed = KnownDivergences.from_lines([f"{g} :: {DRAFT_REASON}" for g in globs], "draft")
    hits = defaultdict(list)
    for _, rec in r["unlisted"]:
        key = record_key(rec)
        before = [p.hits for p in proposed.patterns]
        if proposed.match(key, record_evidence(rec)) is not None:
            line = next(p for p, b in zip(proposed.patterns, before) if p.hits != b)
            hits[line.glob].append(rec)
    return {"adapter": r["adapter"], "unlisted": len(r["unlisted"]),
            "lines": [(g, len(hits[g]), hits[g][0]) for g in globs if hits[g]]}


def cmd_draft(args) -> int:
    from reports.model import short_outcome
    from suites.known_divergences import DRAFT_REASON
    from .expectations_check import answer
    d = answer(draft, args.file, args.results, args.adapter)
    if isinstance(d, int):
        return d
    print(f"# drafted by `conform expectations draft` from {args.results} (adapter {d['adapter']}"
          + (f", after {args.file}" if args.file else "") + f"): {d['unlisted']} unlisted divergences, "
          f"{len(d['lines'])} lines, one per cause (op/verdict/clause/dtypes).")
    print(f"# Replace each {DRAFT_REASON!r} with the reason (a bug id, a release note); `conform certify` refuses "
          f"a file where one is left.")
    for glob, count, rec in d["lines"]:
        print(f"# {count} case{'s' if count != 1 else ''}, e.g. case {rec['case_id']}: {short_outcome(rec, 120)}")
        print(f"{glob} :: {DRAFT_REASON}")
    return EXIT_OK

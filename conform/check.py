"""`conform check-op OP` and `conform check-adapter NAME`: what a complete op or adapter has, and what this one
lacks (docs/ADDING_AN_OP.md, docs/CERTIFY.md "Writing an adapter").

check-op reads the op's modules, the shipped corpus and the generated docs (suites.completeness).
check-adapter asks the adapter's worker what it is, runs a sample of each op's cases through the harness as
`conform run` does (the candidate's code runs in workers only), and runs one repro script per op under the
adapter's interpreter: a repro must exit 0 where its case passes and fail where it fails.

Exit codes: 0 every requirement met, 1 something is missing (each line says what and where to fix it),
2 an unknown op, 5 an adapter that cannot be loaded or is unavailable.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from contract.vocabulary import CONFORMING, EXIT_ADAPTER, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE, UNDECLARED
from suites.completeness import Need

ROOT = Path(__file__).resolve().parent.parent
# the verdicts a repro script reproduces: exit 0 for a pass, an assertion or the framework's error otherwise
REPRODUCIBLE = ("pass", "value-mismatch", "unexpected-error", "missing-error", "wrong-error-class")
# verdicts that say the adapter itself is broken, not that the framework diverges from the documents
ADAPTER_FAULTS = ("crash", "timeout", UNDECLARED)


def register(subparsers) -> None:
    p = subparsers.add_parser("check-op", help="list what a complete op needs and what OP lacks")
    p.add_argument("op", help="a registered op (oracle.registry)")
    p.add_argument("--json", action="store_true", help="print the requirements as JSON")
    p.set_defaults(func=cmd_check_op)

    p = subparsers.add_parser("check-adapter", help="list which ops an adapter maps, its constructions, and "
                                                    "whether its calls and repros run")
    p.add_argument("adapter", help="a name, an entry point or module:Class")
    p.add_argument("--cases-per-op", type=int, default=3, metavar="N",
                   help="corpus cases per mapped op run through the harness (default 3, plus its doc examples)")
    p.add_argument("--python", action="append", metavar="NAME=PATH",
                   help="run adapter NAME's worker under the interpreter PATH (docs/CLI.md)")
    p.add_argument("--json", action="store_true", help="print the requirements as JSON")
    p.set_defaults(func=cmd_check_adapter)


def _print(title: str, needs, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"subject": title, "complete": all(n.ok for n in needs),
                          "needs": [n.__dict__ for n in needs]}, indent=2))
    else:
        from suites.completeness import text
        print(text(title, needs))
    return EXIT_OK if all(n.ok for n in needs) else EXIT_DIVERGED


def cmd_check_op(args) -> int:
    from oracle import registry
    from suites.completeness import check_op
    if args.op not in registry.ops():
        print(f"conform: error: unknown op {args.op!r}; registered: {', '.join(registry.ops())}", file=sys.stderr)
        return EXIT_USAGE
    return _print(args.op, check_op(args.op), args.json)


def cmd_check_adapter(args) -> int:
    from adapters.environments import InterpreterError, parse_option
    try:
        pythons = parse_option(args.python)
        needs = check_adapter(args.adapter, pythons=pythons, per_op=args.cases_per_op)
    except InterpreterError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    except Unavailable as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_ADAPTER
    return _print(args.adapter, needs, args.json)


class Unavailable(RuntimeError):
    """The adapter cannot be loaded, or says it is unavailable here."""


# The shapes a repro must rebuild exactly (adapters/repro.py array_literal, input_lines): each is one
# case per op in check-adapter's sample, where the corpus holds one.
SHAPE_KINDS = {
    "empty input": lambda case: any(a.size == 0 for a in case.inputs.values()),
    "0-d input": lambda case: any(a.ndim == 0 for a in case.inputs.values()),
    "large input (written as bytes)": lambda case: any(a.size > _max_literal() for a in case.inputs.values()),
    "aliased input (a view)": lambda case: bool(case.aliases),
    "documented error": lambda case: _expected_kind(case) == "error",
}


def _max_literal() -> int:
    from adapters.repro import MAX_LITERAL
    return MAX_LITERAL


def _expected_kind(case) -> str:
    import oracle
    try:
        return oracle.expect(case).kind
    except Exception:       # a malformed case: its run says so
        return ""


def sample_cases(ops, per_op: int) -> list:
    """Per op: its document's worked examples, its first `per_op` other cases of the shipped corpus, and the
    first case of each SHAPE_KINDS kind (empty, 0-d, large, aliased inputs, a documented error)."""
    from suites.corpus import iter_corpus
    taken, out = {op: 0 for op in ops}, []
    kinds = {op: dict(SHAPE_KINDS) for op in ops}
    for case in iter_corpus():
        if case.op not in taken:
            continue
        wanted = [k for k, test in kinds[case.op].items() if test(case)]
        for k in wanted:
            del kinds[case.op][k]
        if case.origin == "doc-example" or wanted:
            out.append(case)
        elif taken[case.op] < per_op:
            taken[case.op] += 1
            out.append(case)
    return out


def _mode_text(target: str) -> str:
    from adapters.registry import MODES, eager_twin
    twin = eager_twin(target)
    if twin:
        return f"compiled, held to {twin}'s answer on every case (the mode-consistency gate)"
    modes = [m for m, t in MODES.items() if t == target]
    return "eager" + (f"; its compiled mode{'s' if len(modes) > 1 else ''}: {', '.join(modes)}" if modes else "")


def check_adapter(target: str, pythons=None, per_op: int = 3, timeout: float = 120.0) -> list:
    from adapters.catalog import info
    from adapters.environments import interpreter_for
    from oracle import registry
    from suites.known_divergences import KnownDivergences, KnownDivergencesError
    from suites.judge import record_evidence, record_key
    python = interpreter_for(target, pythons)
    i = info(target, python)
    if not i.available:
        raise Unavailable(f"adapter {target!r} is unavailable: {i.reason}")
    known, mapped = registry.ops(), [op for op in i.ops if op in registry.ops()]
    stray = [op for op in i.ops if op not in known]
    needs = [Need("ops: maps at least one registered op", bool(mapped),
                  f"maps {', '.join(mapped) or 'none'}; not-applicable: "
                  f"{', '.join(op for op in known if op not in i.ops) or 'none'}", "its `ops` (or TABLE rows)"),
             Need("ops: names only registered ops", not stray, ", ".join(stray) or "all registered",
                  "ops the oracle registers (oracle.registry)"),
             Need("constructions: its documented way first", True,
                  ", ".join(i.constructions) or "one way only (no `constructions`)", ""),
             Need("layouts: those it builds natively beside the contiguous default", True,
                  ", ".join(i.layouts) or "contiguous only (no `layouts`)", ""),
             Need("execution: says how values are computed", bool(i.execution), i.execution or "empty",
                  "its `execution`"),
             Need("mode: eager, or a compiled mode gated against its eager twin", True,
                  _mode_text(target), ""),
             Need("exclusions: each a line with its reason", all(" :: " in x for x in i.excludes),
                  f"{len(i.excludes)} declared", "its `excludes` (docs/CERTIFY.md)")]
    try:
        crashes = KnownDivergences.from_lines(i.crashes, f"{target} crashes")
        bad = ""
    except KnownDivergencesError as e:
        crashes, bad = KnownDivergences(), str(e)
    needs.append(Need("known framework crashes: each a line with its reason", not bad,
                      bad or f"{len(i.crashes)} declared", "its `crashes` (docs/CERTIFY.md)"))
    if not mapped:
        return needs
    with tempfile.TemporaryDirectory(prefix="conform-check-adapter-") as tmp:
        records = _run_sample(target, sample_cases(mapped, per_op), Path(tmp), pythons)
        repro_needs = _repro_needs(mapped, records, target, python, Path(tmp), timeout)
        for op in mapped:
            mine = [r for r in records if r["op"] == op]
            faults, known = [], []
            for r in mine:
                if r["verdict"] not in ADAPTER_FAULTS:
                    continue
                why = crashes.match(record_key(r), record_evidence(r)) if r["verdict"] != UNDECLARED else None
                line = f"{r['case_id']}: {r['verdict']} ({r['outcome'][:120]})"
                (known if why is not None else faults).append(line + (f": known, {why}" if why else ""))
            counts = {}
            for r in mine:
                counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
            needs.append(Need(f"{op}: its cases run (no crash, hang, malformed or undeclared not-applicable answer)",
                              bool(mine) and not faults,
                              ", ".join(f"{v} {n}" for v, n in sorted(counts.items())) + (
                                  f"; faults: {'; '.join(faults[:3])}" if faults else "") + (
                                  f"; known framework crashes ({len(known)}): {'; '.join(known[:3])}" if known else ""),
                              f"its mapping of {op}, or a `crashes` line for the framework's own crash"))
            needs.append(repro_needs[op])
    return needs


def _run_sample(target, cases, tmp: Path, pythons) -> list:
    from conform import runner
    from contract.results import iter_records
    from suites.corpus import write_corpus
    corpus = tmp / "sample.jsonl"
    write_corpus(corpus, cases)
    result = runner.run([target], corpus=str(corpus), out_dir=str(tmp / "out"), pythons=pythons, profile="ci")
    if result.exit_code not in (EXIT_OK, EXIT_DIVERGED):
        raise Unavailable(f"adapter {target!r}: the sample run stopped: {result.message}")
    return [r for r in iter_records(result.results_path) if r["record"] == "case"]


def repro_sample(records) -> list:
    """The records whose repro check-adapter runs: every failing one with a reproducible verdict, one of each
    SHAPE_KINDS kind whatever its verdict, and one passing case."""
    from contract.case import Case
    chosen, kinds = {}, dict(SHAPE_KINDS)
    for r in records:
        if r["verdict"] not in REPRODUCIBLE:
            continue
        if r["verdict"] not in CONFORMING:
            chosen[r["case_id"]] = r
        case = Case.from_json(r["case"])
        for k in [k for k, test in kinds.items() if test(case)]:
            del kinds[k]
            chosen.setdefault(r["case_id"], r)
    passing = next((r for r in records if r["verdict"] in CONFORMING and r["verdict"] in REPRODUCIBLE), None)
    if passing is not None:
        chosen.setdefault(passing["case_id"], passing)
    return list(chosen.values())


def _repro_needs(ops, records, target, python, where: Path, timeout) -> dict:
    """op -> the Need that its sampled cases' repro scripts fail exactly where their cases fail.  The repros
    the records lack are asked of one worker; the scripts run side by side, one per core (each starts the
    framework anew: tensorflow's import alone takes seconds)."""
    from concurrent.futures import ThreadPoolExecutor
    samples = {op: repro_sample([r for r in records if r["op"] == op]) for op in ops}
    # a failing case's record carries its repro; a passing one's is asked of the worker
    texts = _asked_repros(target, python, [r for op in ops for r in samples[op] if not r.get("repro")])
    jobs = [(op, n, rec) for op in ops for n, rec in enumerate(samples[op])]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        ran = list(pool.map(lambda j: run_repro(j[2].get("repro") or texts[j[2]["case_id"]], python,
                                                where / f"repro-{j[0]}" / str(j[1]), timeout), jobs))
    out = {}
    for op in ops:
        what = f"{op}: its repro scripts run and fail exactly where their cases fail"
        if not samples[op]:
            out[op] = Need(what, False, "no sampled case has a reproducible verdict", f"its repro() of {op}")
            continue
        wrong = []
        for (o, _, rec), (code, tail) in zip(jobs, ran):
            want_ok = rec["verdict"] in CONFORMING
            if o == op and ((code == 0) != want_ok or code in (None, -9)):
                wrong.append(f"case {rec['case_id']} ({rec['verdict']}): the repro exited {code}, expected "
                             f"{'0' if want_ok else 'non-zero'}: {tail}")
        failing = sum(r["verdict"] not in CONFORMING for r in samples[op])
        found = f"{len(samples[op])} repros run ({failing} of failing cases)"
        out[op] = Need(what, not wrong, found + (f"; {len(wrong)} wrong: " + "; ".join(wrong[:3]) if wrong else ""),
                       f"its repro() of {op} (docs/CERTIFY.md, \"The repro\")")
    return out


def _asked_repros(target, python, records) -> dict:
    """case id -> the repro the adapter's worker writes for it, with the oracle's Expectation."""
    if not records:
        return {}
    import oracle
    from adapters.pool import WorkerHandle
    from contract.case import Case
    handle = WorkerHandle(target, python=python)
    try:
        out = {}
        for rec in records:
            case = Case.from_json(rec["case"])
            out[rec["case_id"]] = handle.repro(case, oracle.expect(case))
        return out
    finally:
        handle.close()


def run_repro(text: str, python: str, where: Path, timeout: float) -> tuple:
    """(exit status or None on a timeout, the last line it wrote) of `python repro.py` in an empty folder."""
    where.mkdir(parents=True, exist_ok=True)
    script = where / "repro.py"
    script.write_text(text, encoding="utf-8")
    cwd = where / "cwd"
    cwd.mkdir(exist_ok=True)
    # the repro imports what the harness's workers see: this project, and the caller's own sys.path
    path = os.pathsep.join([str(ROOT), *(p for p in sys.path if p)])
    try:
        r = subprocess.run([python, str(script)], cwd=cwd, env=dict(os.environ, PYTHONPATH=path), text=True,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"did not finish within {timeout:g} s"
    lines = (r.stderr or r.stdout).strip().splitlines()
    return r.returncode, lines[-1][:300] if lines else ""

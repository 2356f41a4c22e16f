"""Every op's documented domain (the `DOMAIN` list of each op module, oracle/boundary.py) in one place.

    DOMAINS[op] -> [Boundary]        hits(case) -> [(param, class)]        coverage(cases) -> counts

docs/CASES.md ("Domain coverage") lists the rows, written by `python -m oracle.domains --write`
(tests/test_domain_coverage.py fails while it is stale, and when the shipped corpus has no case for a
row); the report shows the same counts for the cases of a run.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import MappingProxyType

from . import registry
from .boundary import BOUNDARY_KINDS, Boundary, hit


def _domains() -> dict:
    # the module of each registered op (its reference function's): the package binds oracle.clip etc. to
    # the functions; an op whose module lists no DOMAIN (a test's toy op) has no table
    out = {}
    for op, spec in registry.SPECS.items():
        rows = getattr(importlib.import_module(spec.reference.__module__), "DOMAIN", None)
        if rows is not None:
            out[op] = tuple(rows)
    return out


DOMAINS = MappingProxyType(_domains())


def _check():
    for op, rows in DOMAINS.items():
        keys = [(b.param, b.cls) for b in rows]
        dup = {k for k in keys if keys.count(k) > 1}
        assert not dup, f"{op}: boundary rows named twice: {sorted(dup)}"


_check()


def hits(case) -> list:
    """(param, class) of every row of the case's op that the case hits."""
    return [(b.param, b.cls) for b in DOMAINS.get(case.op, ()) if hit(b, case)]


def coverage(cases) -> dict:
    """{op: {(param, class): number of cases that hit it}}, every row present (0 when none does)."""
    out = {op: {(b.param, b.cls): 0 for b in rows} for op, rows in DOMAINS.items()}
    for case in cases:
        counts = out.get(case.op)
        if counts is not None:
            for key in hits(case):
                counts[key] += 1
    return out


DOC = Path(__file__).resolve().parent.parent / "docs" / "CASES.md"
BEGIN = "<!-- domain tables: written by `python -m oracle.domains --write`; do not edit by hand -->"
END = "<!-- end of domain tables -->"


def markdown() -> str:
    """The tables of docs/CASES.md: per op, one row per boundary class."""
    out = [BEGIN]
    for op, rows in DOMAINS.items():
        out += ["", f"### {op} ({len(rows)} classes)", "", "| parameter | boundary class | kind | a case that hits it holds |",
                "|---|---|---|---|"]
        out += [f"| {b.param} | {b.cls} | {b.kind} | {_cell(b.text)} |" for b in rows]
    return "\n".join(out + ["", END])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*")


def write_doc(path: Path = DOC) -> bool:
    """Put markdown() between the markers of `path` (or at its end); True when the file changed."""
    old = path.read_text(encoding="utf-8")
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + markdown() + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n" + markdown() + "\n"
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m oracle.domains", description="print the domain tables, or "
                                "write them into docs/CASES.md")
    p.add_argument("--write", action="store_true", help=f"rewrite the tables in {DOC}")
    args = p.parse_args(argv)
    if args.write:
        print(f"{DOC}: {'rewritten' if write_doc() else 'up to date'}")
    else:
        print(markdown())
    return 0


__all__ = ["DOMAINS", "BOUNDARY_KINDS", "Boundary", "hits", "coverage", "markdown"]

if __name__ == "__main__":
    sys.exit(main())

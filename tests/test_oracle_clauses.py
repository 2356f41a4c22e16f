"""The clause registry against ../shared/spec/CLAUSES.md, and every clause the oracle cites is registered."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import oracle
from oracle.clauses import KINDS, SEEDS

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TC_SHARED") or Path(__file__).resolve().parents[2] / "shared")
CLAUSES_MD = SHARED / "spec" / "CLAUSES.md"
ID = r"[A-Z]+(?:-[A-Z0-9]+)+"
_OP_OF_SEED = {v: k for k, v in SEEDS.items()}


def _expand(cell: str) -> list:
    """'SI-EX-1..6' -> SI-EX-1 .. SI-EX-6; 'CL-EX-1, CL-EX-2' -> both."""
    out = []
    for part in (p.strip() for p in cell.split(",")):
        m = re.fullmatch(rf"({ID}-)(\d+)\.\.(\d+)", part)
        if m:
            out += [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
        elif re.fullmatch(ID, part):
            out.append(part)
    return out


def _documented():
    """[(id, kind, op)] from the tables of CLAUSES.md; the op from the section's seed file."""
    rows, op = [], None
    for line in CLAUSES_MD.read_text(encoding="utf-8").splitlines():
        seed = re.search(r"seed: ([\w.]+\.txt)", line)
        if line.startswith("## ") and seed:
            op = _OP_OF_SEED[seed.group(1)]
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and cells[1] in KINDS:
            rows += [(cid, cells[1], op) for cid in _expand(cells[0])]
    return rows


needs_md = pytest.mark.skipif(not CLAUSES_MD.is_file(), reason=f"{CLAUSES_MD} is absent (set TC_SHARED)")


@needs_md
def test_clauses_md_parses_into_many_ids():
    rows = _documented()
    assert len(rows) >= 80, f"actual {len(rows)} clause ids parsed from {CLAUSES_MD}, expected the full table"


@needs_md
def test_every_documented_clause_is_registered_with_its_kind_and_op():
    wrong = [(cid, kind, op, oracle.CLAUSES.get(cid)) for cid, kind, op in _documented()
             if cid not in oracle.CLAUSES or (oracle.CLAUSES[cid].kind, oracle.CLAUSES[cid].op) != (kind, op)]
    assert not wrong, "actual registry entry differs from CLAUSES.md (id, kind, op, registered):\n" + \
        "\n".join(map(str, wrong))


@needs_md
def test_added_clauses_are_marked_and_documented_ones_are_not():
    documented = {cid for cid, _, _ in _documented()}
    wrong = [cid for cid, c in oracle.CLAUSES.items() if c.added == (cid in documented)]
    assert not wrong, f"actual 'added' flag wrong for {wrong}; expected added == not in CLAUSES.md"


def test_registry_entries_are_complete():
    for cid, c in oracle.CLAUSES.items():
        assert c.id == cid and c.kind in KINDS and c.statement and (Path(SHARED / "seeds" / c.source).name ==
                                                                     c.source), cid
        if c.added:
            assert c.kind in ("gap", "ex"), f"actual added {cid} of kind {c.kind}, expected a finding or example"


def test_gap_clauses_are_findings():
    assert {c.id for c in oracle.clauses.findings()} == {cid for cid, c in oracle.CLAUSES.items() if c.kind == "gap"}


def test_every_clause_the_oracle_cites_is_registered():
    cited = set()
    for path in (ROOT / "oracle").glob("*.py"):
        if path.name != "clauses.py":
            cited |= set(re.findall(r"\b(?:SI|CL|SC|SNA|ST)-[A-Z0-9]+(?:-[A-Z0-9]+)*\b", path.read_text()))
    unknown = sorted(cited - set(oracle.CLAUSES))
    assert not unknown, f"actual: oracle cites unregistered {unknown}; expected every cited id in oracle.CLAUSES"
    assert len(cited) > 50, f"actual {len(cited)} distinct ids cited by the oracle modules"

"""The clause registry: complete, derived from the op modules, every cited id registered; and, where the
developers' tree has it, cross-checked against ../shared/spec/CLAUSES.md."""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

import oracle
from oracle import registry
from oracle.clauses import CLAUSE_KINDS

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TC_SHARED") or ROOT.parent / "shared")
CLAUSES_MD = SHARED / "spec" / "CLAUSES.md"
ID = r"[A-Z]+(?:-[A-Z0-9]+)+"


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
    if not CLAUSES_MD.is_file():
        pytest.skip("../shared/spec/CLAUSES.md is not beside this checkout: the clause registry is cross-checked "
                    "only in the developers' tree")
    op_of_document = {v: k for k, v in registry.documents().items()}
    rows, op = [], None
    for line in CLAUSES_MD.read_text(encoding="utf-8").splitlines():
        seed = re.search(r"seed: ([\w.]+\.txt)", line)
        if line.startswith("## ") and seed:
            op = op_of_document[seed.group(1)]
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and cells[1] in CLAUSE_KINDS:
            rows += [(cid, cells[1], op) for cid in _expand(cells[0])]
    return rows


# ---- the extra cross-check, in the developers' tree only -------------------------------------------

def test_clauses_md_parses_into_many_ids():
    rows = _documented()
    assert len(rows) >= 80, f"actual {len(rows)} clause ids parsed from {CLAUSES_MD}, expected the full table"


# Where the seed wins over CLAUSES.md: "must" sentences whose seed states no consequence are
# preconditions, `uns` (docs/SPEC.md, "Preconditions"); CLAUSES.md lists them as errors.
RECLASSIFIED = {"CL-BOUND-DTYPE": ("err", "uns"), "CL-SAME-KIND": ("err", "uns"), "SC-NDIM": ("err", "uns"),
                "SI-MIXED-N": ("err", "uns"), "SC-SIZE-SELF": ("err", "uns")}


def test_every_documented_clause_is_registered_with_its_kind_and_op():
    kind_of = lambda cid, kind: RECLASSIFIED[cid][1] if RECLASSIFIED.get(cid, ("",))[0] == kind else kind
    wrong = [(cid, kind, op, oracle.CLAUSES.get(cid)) for cid, kind, op in _documented()
             if cid not in oracle.CLAUSES or (oracle.CLAUSES[cid].kind, oracle.CLAUSES[cid].op) != (kind_of(cid, kind), op)]
    assert not wrong, "actual registry entry differs from CLAUSES.md (id, kind, op, registered):\n" + \
        "\n".join(map(str, wrong))


def test_added_clauses_are_marked_and_documented_ones_are_not():
    documented = {cid for cid, _, _ in _documented()}
    wrong = [cid for cid, c in oracle.CLAUSES.items() if c.added == (cid in documented)]
    assert not wrong, f"actual 'added' flag wrong for {wrong}; expected added == not in CLAUSES.md"


def test_every_source_document_is_a_seed_of_the_developers_tree():
    _documented()
    missing = sorted(s for s in registry.documents().values() if not (SHARED / "seeds" / s).is_file())
    assert not missing, f"actual: no seed file for {missing} in {SHARED / 'seeds'}; expected every op's source"


# ---- the registry itself: no ../shared needed -------------------------------------------------------

def test_registry_entries_are_complete():
    documents = registry.documents()
    for cid, c in oracle.CLAUSES.items():
        where = f"{cid}: {c}"
        assert c.id == cid and c.kind in CLAUSE_KINDS and c.statement and c.section, where
        assert c.op in documents and c.source == documents[c.op], f"{where}: source {c.source!r}, op's {documents.get(c.op)!r}"
        assert cid.split("-", 1)[0] == registry.spec(c.op).prefix, where
        if c.added:
            assert c.kind in ("gap", "ex"), f"actual added {cid} of kind {c.kind}, expected a finding or example"


def test_clauses_are_the_op_modules_own_rows():
    from_specs = [c.id for s in registry.SPECS.values() for c in s.clauses]
    assert from_specs == list(oracle.CLAUSES), "actual registry order differs from the op modules' rows"
    assert len(from_specs) == len(set(from_specs)), "a clause id is declared twice"


def test_gap_clauses_are_findings():
    gaps = {cid for cid, c in oracle.CLAUSES.items() if c.kind == "gap"}
    assert gaps and {c.id for c in oracle.clauses.findings()} == gaps


def _code_without_spec(path) -> str:
    """A module's text with its `SPEC = OpSpec(...)` declaration (the clause rows) cut out."""
    text = path.read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SPEC" for t in node.targets):
            text = text.replace(ast.get_source_segment(text, node), "")
    return text


def test_every_clause_the_oracle_cites_is_registered():
    prefixes = "|".join(registry.clause_prefixes())
    cited = set()
    for path in (ROOT / "oracle").glob("*.py"):
        cited |= set(re.findall(rf"\b(?:{prefixes})-[A-Z0-9]+(?:-[A-Z0-9]+)*\b", _code_without_spec(path)))
    unknown = sorted(cited - set(oracle.CLAUSES))
    assert not unknown, f"actual: oracle cites unregistered {unknown}; expected every cited id in oracle.CLAUSES"
    assert len(cited) > 50, f"actual {len(cited)} distinct ids cited by the oracle modules"

"""The documented domain as data: every boundary class of every op has corpus cases (oracle/*.DOMAIN).

For each op the table (parameter, boundary class) -> number of shipped corpus
cases that hit it; a class with no case fails (docs/CASES.md, "Domain
coverage").  The predicates themselves are checked against values derived
from the dtypes' definitions, so a table cannot pass by predicates that
never look.
"""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from contract.case import Case
from contract.dtypes import BFLOAT16, to_dtype
from oracle import boundary as bd
from oracle import registry
from oracle.domains import DOMAINS, coverage, hits
from suites import completeness

OPS = tuple(DOMAINS)      # every op the oracle registers has its table (test_every_registered_op_has_a_domain)
from suites import corpus as C
from suites.strategies.boundary import float_edges, payload_nan


@pytest.fixture(scope="module")
def shipped():
    return C.load_corpus()[0]


@pytest.fixture(scope="module")
def table(shipped):
    return coverage(shipped)


def _text(op, counts) -> str:
    return "\n".join(f"  {param:20} {cls:40} {n}" for (param, cls), n in counts.items())


@pytest.mark.parametrize("op", OPS)
def test_every_boundary_class_has_corpus_cases(op, table):
    counts = table[op]
    missing = [k for k, n in counts.items() if n == 0]
    assert not missing, (
        f"actual: no corpus case hits {len(missing)} boundary class(es) of {op}: {missing}; expected: at least one "
        f"each. Add a case to the op's boundary_cases() in suites/strategies/<op>.py, then python -m suites.corpus build.\n{_text(op, counts)}")


@pytest.mark.parametrize("op", OPS)
def test_no_class_is_hit_by_every_case(op, shipped, table):
    """A predicate every case satisfies tells nothing apart: it is a check that cannot fail."""
    n = sum(1 for c in shipped if c.op == op)
    always = [k for k, hit in table[op].items() if hit == n]
    assert not always, f"actual: every one of the {n} {op} cases hits {always}; expected: a class some case misses"


def test_every_registered_op_has_a_domain():
    from oracle.registry import ops
    assert set(ops()) == set(DOMAINS), f"actual: tables for {sorted(DOMAINS)}; expected: one per op, {sorted(ops())}"


def test_every_row_is_well_formed():
    for op, rows in DOMAINS.items():
        quota = completeness.domain_quota(registry.spec(op))
        assert len(rows) >= quota, f"actual: {len(rows)} rows for {op}; expected: the whole documented domain, {quota}+"
        kinds = {b.kind for b in rows}
        want = completeness.domain_kinds_wanted(op)      # less the kinds its module's DOMAIN_WITHOUT explains
        assert kinds == want, f"{op}: actual kinds {sorted(kinds)}; expected {sorted(want)}"
        for b in rows:
            assert b.param and b.cls and b.text and callable(b.hits), (op, b)


def test_a_case_the_predicates_cannot_read_hits_nothing():
    odd = [Case(op="set_", inputs={}, params={"size": "x", "stride": 3, "probe": "p"}),
           Case(op="clip", inputs={"x": np.zeros(0, np.int8)}, params={"min": [1], "max": {"kind": 5}}),
           Case(op="setitem", inputs={"target": np.zeros(2)}, params={"key": {"tuple": [{"slice": ["a"]}]}}),
           Case(op="scatter", inputs={}, params={"dim": "0"}),
           Case(op="scatter_nd_add", inputs={"indices": np.zeros((2, 9), np.int32)}, params={})]
    for case in odd:
        assert isinstance(hits(case), list)


# ---- the predicates against the dtypes' definitions -----------------------------------------

def _midpoint(dt, a, b):
    return (Fraction(float(np.asarray(a).astype(np.float64))) + Fraction(float(np.asarray(b).astype(np.float64)))) / 2


def _bits(dt, v):
    """The bit pattern of v in dt, as a 1-element unsigned array (add 1: the next value up)."""
    return np.array([v], dtype=np.float64).astype(dt).view(np.uint16 if np.dtype(dt).itemsize == 2 else np.uint32)


@pytest.mark.parametrize("name,dt", [("float16", np.float16), ("bfloat16", BFLOAT16), ("float32", np.float32)])
def test_ties_are_the_midpoints_of_adjacent_values(name, dt):
    """Adjacent values come from the bit patterns (k, k+1); their midpoint is a tie, even toward the even pattern."""
    for start in (1.0, 3.0, 0.75, 1000.0):
        k = _bits(dt, start)
        a, b = k.view(dt)[0], (k + 1).view(dt)[0]
        mid = _midpoint(dt, a, b)
        want = "tie-even-down" if int(k[0]) % 2 == 0 else "tie-even-up"
        assert bd.rounding_classes(name, mid) == {"inexact", want}, (name, start, mid)
        assert bd.rounding_classes(name, -mid) == {"inexact", want}, (name, start, -mid)
        assert bd.rounding_classes(name, float(a)) == frozenset(), (name, float(a))
        third = Fraction(float(a)) + (Fraction(float(b)) - Fraction(float(a))) / 3
        assert bd.rounding_classes(name, third) >= {"inexact"} and not bd.rounding_classes(name, third) & {
            "tie-even-down", "tie-even-up"}
    sub = float(ml_dtypes.finfo(dt).smallest_subnormal)
    assert bd.rounding_classes(name, Fraction(sub) * 3 / 2) == {"inexact", "tie-even-up"}      # 1.5 units -> 2
    assert bd.rounding_classes(name, Fraction(sub) * 5 / 2) == {"inexact", "tie-even-down"}    # 2.5 units -> 2


def test_double_rounding_class_is_where_float32_lands_on_a_tie():
    for name, dt in (("float16", np.float16), ("bfloat16", BFLOAT16)):
        mid = float(_midpoint(dt, 1.0, (_bits(dt, 1.0) + 1).view(dt)[0]))
        hair = mid + 2.0 ** -40
        assert np.float32(hair) == np.float32(mid)       # float32 cannot tell them apart
        assert "double" in bd.rounding_classes(name, hair)
        assert "double" not in bd.rounding_classes(name, mid) and "double" not in bd.rounding_classes(name, 0.1)
    assert "double" not in bd.rounding_classes("float32", 1 + 2.0 ** -24 + 2.0 ** -40)


def test_to_dtype_rounds_once_into_bfloat16():
    """A hair above the tie 1 + 2**-8 is nearer 1 + 2**-7; through float32 it would land on the tie and go to 1."""
    assert float(to_dtype("bfloat16", 1 + 2.0 ** -8 + 2.0 ** -40)) == 1 + 2.0 ** -7
    assert float(to_dtype("bfloat16", -(1 + 2.0 ** -8 + 2.0 ** -40))) == -(1 + 2.0 ** -7)
    assert float(to_dtype("bfloat16", 1 + 2.0 ** -8)) == 1.0                        # the tie: to even
    assert float(to_dtype("bfloat16", 1 + 3 * 2.0 ** -8)) == 1 + 2 * 2.0 ** -7
    assert float(to_dtype("bfloat16", 3.4e38)) == float("inf")
    assert np.signbit(to_dtype("bfloat16", -0.0))


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_edges_are_found_and_the_default_nan_is_no_payload(name):
    e = float_edges(name)
    assert bd.float_edges(e) == {"subnormal", "max", "-0.0", "nan-payload"}
    assert bd.nan_payloads(payload_nan(name).reshape(1)).all()
    plain = np.array([np.nan, -np.nan, 1.0]).astype(e.dtype)
    assert not bd.nan_payloads(plain).any() and bd.float_edges(plain) == frozenset()


def test_the_required_boundary_cases_are_in_the_corpus(shipped):
    """The cases of issue #11 that kill the mutants the earlier corpus missed."""
    ids = {c.id for c in shipped}
    labels = [c.label for c in shipped if c.origin == "boundary"]
    from suites.strategies import all_boundary_cases
    mine = all_boundary_cases()
    assert all(c.id in ids for c in mine)
    for text in ("min 0.7", "max 1.23", "min 1+3*2**-11", "min -inf, max 1.5", "size=[1]*8",
                 "size=[2, 3]): row-major"):
        assert any(text in label for label in labels), text


# ---- the report: summary.json and the HTML view count the cases of the results -------------

def test_the_report_counts_each_case_once_per_class(tmp_path):
    import json

    from reports.render import write_report
    from reports.summary import validate
    from report_fixtures import case_record, write_results

    f16 = Case("clip", {"x": np.array([0.0, 1.0], np.float16)}, {"min": {"kind": "float", "value": 0.7}})
    f32 = Case("clip", {"x": np.zeros((1, 1, 1, 1), np.float32)}, {"max": {"kind": "float", "value": 0.1}})
    recs = [case_record(c, a, "pass") for c in (f16, f32) for a in ("oracle", "torch")]
    # a case the report cannot decode is a case of the run that hits no class
    recs.append(dict(case_record(f32, "vendor", "pass"), case_id="0" * 16, case=dict(f32.to_json(), id="0" * 16)))
    write_results(tmp_path / "r.jsonl", recs)
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    validate(summary)
    clip = summary["domain_coverage"]["clip"]
    assert list(summary["domain_coverage"]) == ["clip"]
    assert clip["cases"] == 3
    got = {(r["param"], r["class"]): r["cases"] for r in clip["classes"]}
    want = {("min", "float16 needs rounding"): 1, ("max", "float32 needs rounding"): 1, ("x", "rank 4"): 1,
            ("x", "rank 1"): 1, ("x", "dtype float16"): 1, ("min, max", "min > max"): 0,
            ("min", "omitted"): 1, ("max", "omitted"): 1, ("min", "float32 needs rounding"): 0}
    assert {k: got[k] for k in want} == want
    assert clip["unreached"] == sum(1 for n in got.values() if not n) and clip["unreached"] > 0
    html = (tmp_path / "out" / "report.html").read_text()
    assert 'id="domain-coverage"' in html and "float16 needs rounding" in html
    assert html.count('class="unreached"') == clip["unreached"]


def test_docs_cases_md_holds_the_current_tables():
    from oracle.domains import DOC, markdown
    assert markdown() in DOC.read_text(encoding="utf-8"), (
        "actual: docs/CASES.md's domain tables differ from the op modules' DOMAIN lists; expected: the same. "
        "repro: python -m oracle.domains --write")


@pytest.mark.parametrize("op", OPS)
def test_the_strategies_reach_the_rounding_and_dtype_edge_classes(op):
    """Exploration reaches them too: each op's boundary family, drawn as a profile would, hits every rounding
    class and every dtype-edge class of the op (the other families draw small exact values only)."""
    from contract.dtypes import ALL
    from suites.corpus import draw_examples
    from suites.strategies import families
    counts = coverage(draw_examples(families(op)["boundary"], 200))[op]
    wanted = [(b.param, b.cls) for b in DOMAINS[op]
              if b.kind == "rounding" or (b.kind == "edge" and b.cls.split()[0] in ALL)]
    missed = [k for k in wanted if not counts[k]]
    assert not missed, f"actual: 200 draws of {op}'s boundary family miss {missed}; expected: every one hit"

"""The shipped mutants (adapters/mutants): enough of them, each a real bug that its own witness exposes.

A mutant the judge cannot tell from the oracle on its witness would be equivalent to
the spec: no bug at all.  So each witness must be a case the documents decide (the
oracle's answer is a value or a documented error, not 'unspecified'), the oracle
adapter must conform on it, and the mutant must get a divergent verdict there.
"""
import re
from collections import Counter

import pytest

import oracle
from adapters.mutants import MUTANTS, Mutant, select
from adapters.oracle_adapter import OracleAdapter
from oracle.registry import OPS, spec
from suites import completeness
from contract.vocabulary import DIVERGENT
from suites.judge import judge


def test_at_least_forty_mutants_and_each_ops_quota():
    per_op = Counter(m.op for m in MUTANTS)
    assert len(MUTANTS) >= 40, f"{len(MUTANTS)} mutants, expected at least 40"
    want = {op: completeness.mutant_quota(spec(op)) for op in OPS}
    short = {op: (per_op[op], n) for op, n in want.items() if per_op[op] < n}
    assert not short, f"actual (mutants, quota) per op {short}; expected each op's quota (suites.completeness)"


def test_names_are_unique_and_say_op_and_bug():
    names = [m.name for m in MUTANTS]
    assert len(set(names)) == len(names), [n for n, k in Counter(names).items() if k > 1]
    for m in MUTANTS:
        assert re.fullmatch(rf"{re.escape(m.op)}\.[a-z0-9]+(-[a-z0-9]+)*", m.name), m.name
        assert m.ops == (m.op,)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_docstring_is_one_line_naming_the_bug(mutant):
    doc = (mutant.__doc__ or "").strip()
    assert doc and "\n" not in doc, f"{mutant.name}: docstring {doc!r} must be one line naming the bug"
    assert mutant.bug() == doc


def test_select_matches_names_by_glob():
    assert select("clip.*") == [m for m in MUTANTS if m.op == "clip"]
    assert select("*.nan-bound-ignored") == [m for m in MUTANTS if m.name == "clip.nan-bound-ignored"]
    assert select("no-such-mutant") == []


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if not m.compiled], ids=lambda m: m.name)
def test_witness_tells_the_mutant_from_the_oracle(mutant):
    case = mutant.witness()
    assert case.op == mutant.op, f"{mutant.name}: witness is a {case.op} case"
    expectation = oracle.expect(case)
    # "either" decides too: a value that is returned must be the documents' value
    assert expectation.kind in ("value", "error", "either"), (
        f"{mutant.name}: the witness is {expectation.kind} ({', '.join(expectation.clauses)}): the documents "
        "must decide it, or no verdict can tell the mutant from the oracle")
    good = OracleAdapter()
    assert judge(case, expectation, good.run(case), good).verdict == "pass"
    m = mutant()
    m.layout = mutant.witness_layout        # a layout bug's witness runs in the layout that shows it
    v = judge(case, expectation, m.run(case), m)
    assert v.verdict in DIVERGENT, (f"{mutant.name} ({mutant.bug()}) conforms on its witness {case.label!r}:\n"
                                    f"actual:   {v.outcome}\nexpected: {v.expected}")


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.witness_layout], ids=lambda m: m.name)
def test_a_layout_bug_hides_in_the_default_layout(mutant):
    # the reason it declares a layout: on a contiguous input the same witness conforms
    assert mutant.witness_layout in mutant.layouts
    case = mutant.witness()
    m = mutant()
    assert judge(case, oracle.expect(case), m.run(case), m).verdict == "pass"


COMPILED = [m for m in MUTANTS if m.compiled]


def test_the_mode_consistency_gate_has_a_mutant():
    assert COMPILED, "no mutant that only the mode-consistency gate can kill (Mutant.compiled)"


@pytest.mark.parametrize("mutant", COMPILED, ids=lambda m: m.name)
def test_a_compiled_bug_conforms_alone_and_differs_from_its_eager_twin(mutant):
    # its witness is an input the documents leave open: the judge admits the mutant's answer there,
    # and only the gate's comparison with the eager twin (the oracle adapter) tells the two apart
    case = mutant.witness()
    expectation = oracle.expect(case)
    assert expectation.kind not in ("value", "error"), f"{mutant.name}: the documents decide its witness"
    m, twin = mutant(), OracleAdapter()
    v, t = judge(case, expectation, m.run(case), m), judge(case, expectation, twin.run(case), twin)
    assert v.verdict not in DIVERGENT and t.verdict not in DIVERGENT, (v.outcome, t.outcome)
    assert v.answer != t.answer, f"{mutant.name} answers its witness as its eager twin: {v.outcome}"


def test_selftest_counts_a_compiled_mutants_gate_kills():
    from suites.selftest import MODE_INCONSISTENT, selftest
    mutant = COMPILED[0]
    case = mutant.witness()
    entry = selftest([mutant], [case])["mutants"][0]
    assert entry["killed"] and entry["verdicts"] == {MODE_INCONSISTENT: 1}, entry
    assert entry["examples"][0]["expected"].startswith("its eager twin's answer: "), entry["examples"][0]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_is_a_loadable_adapter(mutant):
    from adapters.registry import load_class
    cls = load_class(f"{mutant.__module__}:{mutant.__qualname__}")
    assert cls is mutant and issubclass(cls, Mutant) and cls().available()[0]
    assert cls().repro(mutant.witness()).startswith(f"# mutant {mutant.name}: ")

"""Aliased inputs (contract.case.Alias, docs/CASES.md "Aliased inputs", docs/SPEC.md "Aliased inputs"):
the contract field and its id, the refusal of a damaged aliased case, the gap's two admissible outcomes in
the judge, the native views the adapters build, the repro's alias line, the shipped corpus's aliasing cases."""
import json
from collections import Counter

import numpy as np
import pytest

from adapter_helpers import shift_alias_case
from adapters.oracle_adapter import OracleAdapter
from contract.case import Alias, Case, build_inputs, content_id, view_of
from contract.codec import CodecError
from oracle import registry
from oracle.expect import expect
from oracle.opspec import ALIAS_GAP
from suites.corpus import load_corpus
from suites.judge import judge

F32 = np.float32
ORACLE = OracleAdapter()


def _written_in_order(case):
    """What an assignment that writes element by element while it reads the live view gives (the bug)."""
    t = np.array(case.inputs["target"], copy=True)
    region, live = t[:, 1:4], t[case.aliases["value"].key]
    for i in np.ndindex(*region.shape):
        region[i] = live[i]
    return t


# ---- the contract ------------------------------------------------------------------------------

def test_a_case_without_aliases_keeps_its_id_and_json():
    c = Case(op="clip", inputs={"x": np.ones(3, F32)}, params={})
    assert c.id == content_id("clip", c.inputs, c.encoded_params)
    assert "aliases" not in c.to_json()
    # every shipped case without aliases hashes as the pre-alias content id did
    cases, _ = load_corpus()
    for case in cases[:200]:
        if not case.aliases:
            assert case.id == content_id(case.op, case.inputs, case.encoded_params)


def test_an_aliased_case_round_trips_and_its_alias_is_part_of_its_id():
    c = shift_alias_case()
    j = c.to_json()
    assert j["aliases"] == {"value": {"of": "target", "slices": [[None, None, 1], [0, 3, 1]]}}
    back = Case.from_json(json.loads(json.dumps(j)))
    assert back.id == c.id and back.aliases == c.aliases
    plain = Case(op=c.op, inputs=dict(c.inputs), params=dict(c.params))
    assert plain.id != c.id, "the same arrays without the alias must be another case"


def test_refuses_a_loaded_case_whose_aliased_input_is_not_the_base_slice():
    j = shift_alias_case().to_json()
    value = np.array(view_of(np.arange(8, dtype=F32).reshape(2, 4), Alias("target", ((None, None, 1), (0, 3, 1)))))
    value[1, 2] += 1        # one element damaged
    from contract.codec import encode_array
    j["inputs"]["value"] = encode_array(value)
    with pytest.raises(CodecError, match=r"declared the view target\[:, 0:3\].*not exactly that slice"):
        Case.from_json(j)


@pytest.mark.parametrize("aliases, why", [
    ({"value": Alias("nope", ((0, 1, 1),))}, "must be another input"),
    ({"value": Alias("value", ((0, 1, 1),))}, "must be another input"),
    ({"ghost": Alias("target", ((0, 1, 1),))}, "names no input"),
    ({"value": {"of": "target", "slices": [[0, 1, -1]]}}, "step an int >= 1"),
    ({"value": {"of": "target", "slices": [[0, 1, 1]], "extra": 1}}, "keys of, slices"),
])
def test_refuses_an_alias_that_names_no_base_or_a_bad_slice(aliases, why):
    target = np.arange(4, dtype=F32)
    with pytest.raises(CodecError, match=why):
        Case(op="setitem", inputs={"target": target, "value": target[0:1].copy()},
             params={"key": {"slice": [0, 1, None]}}, aliases=aliases)


def test_build_inputs_makes_a_real_numpy_view():
    c = shift_alias_case()
    built = build_inputs(c, np.array, lambda base, key: base[key])
    assert np.shares_memory(built["value"], built["target"]) and built["value"].base is built["target"]


# ---- the oracle and the judge: raises, or the value as if copied first; nothing else ---------------

def test_every_op_that_takes_aliased_cases_lists_the_gap_and_set_refuses_them():
    with_gap = {op for op, s in registry.SPECS.items() if s.alias_clause}
    # clip writes nothing ("该接口非原地操作": not in place): its aliased bound is only read, no gap
    assert with_gap == set(registry.SPECS) - {"set_", "clip"}
    assert {op for op, s in registry.SPECS.items() if s.takes_aliases()} == set(registry.SPECS) - {"set_"}
    for op in with_gap:
        clause = registry.CLAUSES[registry.SPECS[op].alias_clause]
        assert clause.kind == "gap" and clause.id.endswith(ALIAS_GAP)
    target = np.zeros(4, F32)
    aliased_set = Case(op="set_", inputs={"target": target, "source": target[0:2].copy()}, params={},
                       aliases={"source": Alias("target", ((0, 2, 1),))})
    with pytest.raises(ValueError, match="lists no aliasing gap"):
        expect(aliased_set)


def test_the_gap_admits_raising_and_the_copied_first_value_and_refuses_the_overwritten_read():
    from adapters.base import Outcome
    c = shift_alias_case()
    exp = expect(c)
    assert exp.kind == "either" and exp.error_clause == "SI-GAP-ALIAS" and exp.error_classes == ()
    copied = np.array(c.inputs["target"], copy=True)
    copied[:, 1:4] = np.array(c.inputs["value"])          # the value read before anything is written
    overwritten = _written_in_order(c)
    assert not np.array_equal(copied, overwritten), "the case must tell the two readings apart"
    assert judge(c, exp, Outcome.raised(RuntimeError("overlap")), ORACLE).verdict == "pass"
    assert judge(c, exp, Outcome.returned(target=copied), ORACLE).verdict == "pass"
    bad = judge(c, exp, Outcome.returned(target=overwritten), ORACLE)
    assert bad.divergent, bad.verdict


def test_the_oracle_adapter_conforms_on_an_aliased_case():
    c = shift_alias_case()
    out = ORACLE.run(c)
    assert judge(c, expect(c), out, ORACLE).verdict == "pass"


def test_repro_shows_the_alias_as_a_view_of_its_base():
    from adapters.registry import load
    text = load("torch").repro(shift_alias_case())
    assert "value = target[:, 0:3]" in text
    assert "value = torch.tensor" not in text
    assert "value = target[:, 0:3]" in ORACLE.repro(shift_alias_case())


# ---- the shipped corpus -----------------------------------------------------------------------

def test_the_corpus_holds_overlapping_and_disjoint_aliasing_cases_of_several_dtypes_per_op():
    cases, _ = load_corpus()
    aliased = [c for c in cases if c.aliases]
    ops = {op for op, s in registry.SPECS.items() if s.takes_aliases()}
    assert {c.op for c in aliased} == ops
    for op in ops:
        mine = [c for c in aliased if c.op == op]
        dtypes = Counter(str(c.inputs[next(iter(c.aliases))].dtype) for c in mine)
        assert len(dtypes) >= 4, (op, dtypes)
        gap = registry.SPECS[op].alias_clause
        assert all(gap in c.clauses or (registry.SPECS[op].writes_nothing or (lambda _: None))(c) for c in mine), op
    # an op whose call writes labels each view overlapping or disjoint with what it writes (clip writes
    # nothing: its view simply is part of x); each such op has both kinds
    writing = 0
    for op in ops:
        labels = [c.label for c in aliased if c.op == op]
        words = Counter(w for label in labels for w in ("overlapping", "disjoint") if w in label)
        if words:
            writing += 1
            assert words["overlapping"] >= 5 and words["disjoint"] >= 5, (op, words)
    assert writing >= 3, "setitem, scatter and scatter_nd_add each label their views"


def test_the_corpus_tells_copy_first_from_the_overwritten_read():
    """Some shipped setitem case gives another value when the overlapping view is read while written."""
    from adapters.mutants.setitem import WritesBeforeReadingAlias
    cases, _ = load_corpus()
    mutant = WritesBeforeReadingAlias()
    killed = [c.id for c in cases if c.op == "setitem" and c.aliases
              and judge(c, expect(c), mutant.run(c), mutant).divergent]
    assert len(killed) >= 3, killed
    plain = [c for c in cases if c.op == "setitem" and not c.aliases][:300]
    assert not any(judge(c, expect(c), mutant.run(c), mutant).divergent for c in plain), \
        "the mutant must differ from the oracle only on aliasing cases"

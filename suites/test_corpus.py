"""The shipped corpus, one test per case and adapter: `test_corpus_case[clip-torch-min>max_->_max-3f2a1b]`.

A divergence listed in suites/expectations/<adapter>.txt xfails with its reason;
an unlisted one fails with actual, expected, call and repro.
"""
import re

import pytest

from suites.failure_message import failure_message
from suites.plugin import state_of, target_id


def pytest_generate_tests(metafunc):
    if "corpus_item" not in metafunc.fixturenames:
        return
    state = state_of(metafunc.config)
    cases = state.corpus()
    targets = state.selected()
    runs = {target: {c.id for c in state.corpus_for(target)} for target in targets}   # a sampled adapter: its sample
    items, ids = [], []
    for case in sorted(cases, key=lambda c: _op_rank(c.op)):     # op by op, corpus order within an op
        for target in targets:
            if case.id in runs[target]:
                items.append((target, case))
                ids.append(item_id(target, case))
    metafunc.parametrize("corpus_item", items, ids=ids)


def item_id(target, case) -> str:
    """op-adapter-label-id6, without whitespace: an id is copied into shells, -k and --deselect."""
    label = re.sub(r"\s+", "_", (case.label or case.origin).strip())
    return f"{case.op}-{target_id(target)}-{label}-{case.id[:6]}"


def _op_rank(op):
    from oracle.registry import ops
    order = ops()
    return order.index(op) if op in order else len(order)


def _check(conform, corpus_item):
    target, case = corpus_item
    verdict = conform.check(target, case)
    if verdict.verdict == "not-applicable":
        pytest.skip(verdict.outcome)
    if verdict.expected_divergence:
        pytest.xfail(f"{verdict.verdict}: {verdict.expected_divergence}")
    if verdict.divergent:
        pytest.fail(failure_message(verdict, case), pytrace=False)


def test_corpus_case(conform, corpus_item):
    _check(conform, corpus_item)

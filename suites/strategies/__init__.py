"""Every case the suite makes, op by op: one module per op (docs/ADDING_AN_OP.md).

An op's module declares `OP` (the op name the oracle registers) and `FAMILIES` (name -> Hypothesis
strategy of contract.case.Case, one family per group of clauses, so the derandomized corpus draws from
every family and so reaches every sem/err/uns clause), and may declare `CORPUS_DRAWS` (family -> cases
the shipped corpus draws from it, for the wide ones), `doc_examples()` (its document's worked examples,
typed in), `error_cases()` (its documented errors), `boundary_cases()` (targeted cases for the boundary
classes of its domain; its `boundary` family draws more: suites/strategies/boundary.py) and `ODD_CASES` (a
strategy of odd but well-formed cases -- any dtype, shape and param type -- that the oracle must answer
without crashing; default: its families), and `well_formed(case)` ('' or what a generated case breaks of
what its strategies promise beyond the op's decoder).  The modules are
found here, not listed; an op defined outside the package registers with `register(...)`.  Cases
carry the clauses the oracle's answer cites (common.make_case): a strategy never restates a rule.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Mapping

from hypothesis import strategies as st


@dataclass(frozen=True)
class OpCases:
    op: str
    families: Mapping                       # name -> SearchStrategy[Case]
    doc_examples: Callable = tuple          # () -> [(Case, {output: documented array})]
    error_cases: Callable = tuple           # () -> [suites.error_cases.ErrorCase]
    corpus_draws: Mapping = None            # family -> cases in the shipped corpus (default: corpus.PER_FAMILY)
    boundary_cases: Callable = tuple        # () -> [Case]: targeted boundary cases (origin "boundary")
    odd_cases: st.SearchStrategy = None     # odd but well-formed cases (tests/test_oracle_expect.py)
    well_formed: Callable = None            # case -> '' or what its strategies promise that it breaks
    # Every family as one strategy, built once: a strategy built per draw is validated per draw, and that
    # costs an exploration example more than any of its choices.
    cases: st.SearchStrategy = None


_BY_OP: dict = {}


def register(op: str, families: Mapping, doc_examples: Callable = None, error_cases: Callable = None,
             corpus_draws: Mapping = None, boundary_cases: Callable = None,
             odd_cases: st.SearchStrategy = None, well_formed: Callable = None) -> OpCases:
    """Add the cases of an op the oracle registers (oracle.registry.register for one defined elsewhere)."""
    from oracle.registry import spec
    spec(op)                                # a strategy for an op the oracle cannot answer is a mistake
    if op in _BY_OP:
        raise ValueError(f"strategies for {op!r} are already registered")
    if not families:
        raise ValueError(f"{op}: no strategy families")
    unknown = set(corpus_draws or ()) - set(families)
    if unknown:
        raise ValueError(f"{op}: corpus draws for unknown families {sorted(unknown)}")
    every = st.one_of(*families.values())
    entry = OpCases(op, dict(families), doc_examples or tuple, error_cases or tuple, dict(corpus_draws or {}),
                    boundary_cases or tuple, every if odd_cases is None else odd_cases,
                    well_formed or (lambda case: ""), every)
    _BY_OP[op] = entry
    return entry


def unregister(op: str) -> None:
    del _BY_OP[op]


def _discover() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if isinstance(getattr(module, "OP", None), str):
            register(module.OP, module.FAMILIES, getattr(module, "doc_examples", None),
                     getattr(module, "error_cases", None), getattr(module, "CORPUS_DRAWS", None),
                     getattr(module, "boundary_cases", None), getattr(module, "ODD_CASES", None),
                     getattr(module, "well_formed", None))


def ops() -> tuple:
    """The ops with strategies, in the oracle registry's order."""
    from oracle.registry import ops as oracle_ops
    return tuple(op for op in oracle_ops() if op in _BY_OP)


def _entry(op: str) -> OpCases:
    if op not in _BY_OP:
        raise ValueError(f"unknown op {op!r}; ops with strategies are {', '.join(ops())}")
    return _BY_OP[op]


def families(op: str) -> dict:
    """name -> SearchStrategy[Case] for one op (its `boundary` family among them where it has one)."""
    return dict(_entry(op).families)


def corpus_draws(op: str, family: str, default: int) -> int:
    """How many cases of a family the shipped corpus draws."""
    return _entry(op).corpus_draws.get(family, default)


def doc_examples(op: str) -> list:
    return list(_entry(op).doc_examples())


def error_cases(op: str) -> list:
    return list(_entry(op).error_cases())


def boundary_cases(op: str) -> list:
    return list(_entry(op).boundary_cases())


def well_formed(op: str, case) -> str:
    """'' where a generated case keeps what the op's strategies promise beyond its decoder (e.g. scatter's
    inplace always given), else what it breaks (tests/test_strategies.py)."""
    return _entry(op).well_formed(case)


def all_doc_examples() -> list:
    """[(Case, {output name: documented array})] for every worked example, op by op, in document order."""
    return [ex for op in ops() for ex in doc_examples(op)]


def all_error_cases() -> list:
    """Every documented error as a suites.error_cases.ErrorCase, op by op, in a fixed order."""
    return [e for op in ops() for e in error_cases(op)]


def all_boundary_cases() -> list:
    """Every op's targeted boundary cases, op by op in the registry's order."""
    return [case for op in ops() for case in boundary_cases(op)]


def cases(op: str) -> st.SearchStrategy:
    """Every case form of one op: a Hypothesis strategy of contract.case.Case (the same object each call)."""
    return _entry(op).cases


def odd_cases(op: str) -> st.SearchStrategy:
    """Odd but well-formed cases of one op (any dtype, shape, param type): the oracle answers each."""
    return _entry(op).odd_cases


def all_cases() -> st.SearchStrategy:
    return st.one_of(*(cases(op) for op in ops()))


_discover()

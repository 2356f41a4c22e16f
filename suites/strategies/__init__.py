"""Hypothesis strategies that make Cases for every documented op (docs/CASES.md).

Each op module has FAMILIES: name -> strategy, one family per group of
clauses, so the derandomized corpus can draw from every family and so reach
every sem/err/uns clause of CLAUSES.md.
"""
from __future__ import annotations

from hypothesis import strategies as st

from contract.case import OPS

from . import boundary, clip, scatter, scatter_nd_add, set_, setitem

_MODULES = {"setitem": setitem, "clip": clip, "scatter": scatter, "scatter_nd_add": scatter_nd_add, "set_": set_}


def families(op: str) -> dict:
    """name -> SearchStrategy[Case] for one op (its module's families, then its boundary family)."""
    if op not in _MODULES:
        raise ValueError(f"unknown op {op!r}; ops are {', '.join(OPS)}")
    return {**_MODULES[op].FAMILIES, **boundary.FAMILIES.get(op, {})}


def cases(op: str) -> st.SearchStrategy:
    """Every case form of one op: a Hypothesis strategy of contract.case.Case."""
    return st.one_of(*families(op).values())


def all_cases() -> st.SearchStrategy:
    return st.one_of(*(cases(op) for op in OPS))

"""Adapters as families: each variant (a layout NAME@strided, a construction NAME@from_numpy, a compiled mode,
another API mapping of one framework) listed under the adapter it varies, so a 24-adapter run reads as nine.

Derived from the results, never listed by hand (the reports layer reads results, not the adapter registry):
a layout variant is NAME@LAYOUT with LAYOUT of contract.vocabulary.LAYOUTS, a construction NAME@HOW (the
registry's spec syntax), a compiled mode the adapter whose records name its eager twin (the `mode` field the
harness writes from adapters/registry.py SHIPPED's `twin`), and any other variant BASE-SUFFIX of an adapter BASE
of the same run (mindspore-variants, paddle-variants; tests/test_report_families.py holds SHIPPED to that rule).
"""
from __future__ import annotations

from typing import NamedTuple

from contract.vocabulary import LAYOUTS


class Member(NamedTuple):
    name: str
    family: str      # the root adapter of its family (itself for a root)
    parent: str      # the adapter it varies ("" for a root)
    kind: str        # "" for a root; else "layout", "construction", "compiled mode", "variant"
    how: str         # the layout or construction name, the eager twin, the name's suffix
    depth: int


def parent_of(name: str, present=(), twins=None) -> tuple:
    """(the adapter `name` varies, the kind of variant, how) or ("", "", "") for an adapter of its own.
    `present`: the run's adapters; `twins`: compiled mode -> eager twin, as the mode records name them."""
    base, at, how = name.rpartition("@")        # adapters.registry.split_construction's syntax
    if at and base:
        return base, ("layout" if how in LAYOUTS else "construction"), how
    twin = (twins or {}).get(name)
    if twin:
        return twin, "compiled mode", twin
    prefixes = [p for p in present if p != name and name.startswith(p + "-")]
    if prefixes:
        base = max(prefixes, key=len)
        return base, "variant", name[len(base) + 1:]
    return "", "", ""


# order of the variants under one adapter: its layouts, then constructions, then API variants, then modes
_KIND_RANK = {"layout": 0, "construction": 1, "variant": 2, "compiled mode": 3}


def families(names, twins=None) -> list:
    """The adapters `names` as Members, depth first: each root (in `names`' order) followed by its variants.
    A variant whose base is not among `names` stands as a root of its own (it is still labelled a variant)."""
    names = list(names)
    present = set(names)
    info = {n: parent_of(n, present, twins) for n in names}
    children = {}
    for n in names:
        p = info[n][0]
        if p in present and p != n:
            children.setdefault(p, []).append(n)
    layout_rank = {x: i for i, x in enumerate(LAYOUTS)}
    out = []

    def walk(n, family, depth):
        p, kind, how = info[n]
        out.append(Member(n, family, p if p in present else "", kind, how, depth))
        kids = sorted(children.get(n, ()), key=lambda c: (_KIND_RANK.get(info[c][1], 9),
                                                           layout_rank.get(info[c][2], 9), c))
        for c in kids:
            walk(c, family, depth + 1)
    for n in names:
        if info[n][0] not in present or info[n][0] == n:
            walk(n, n, 0)
    return out

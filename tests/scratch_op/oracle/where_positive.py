"""where_positive(x, y): x where x > 0, else y (a test-only op: tests/test_adding_an_op.py adds it to a scratch copy).

Its source document, toy.where_positive.txt (the whole text):

    where_positive(x, y) -> Tensor
    Description: returns a new tensor: x's element where it is greater than zero, y's element elsewhere.
    Parameters: x, y: tensors of one shape (any rank) and one numeric dtype.
    Raises: ValueError if the shapes differ; otherwise TypeError if the dtypes differ.
    Example: x = [-1., 2., 0., 3.], y = [10., 20., 30., 40.] (float32) -> [10., 2., 30., 3.]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contract.expectation import ExpectedArray
from . import boundary as bd
from .errors import SpecError
from .opspec import Field, OpSpec, need_input
from .readings.where_positive import READING

DTYPES = {"x": ("float32", "int32")}


def solve(x, y):
    x, y = np.asarray(x), np.asarray(y)
    clauses = ("WP-RULE",)
    if x.shape != y.shape:      # WP-SHAPE
        raise SpecError("WP-SHAPE", "ValueError", f"x shape {list(x.shape)}, y shape {list(y.shape)}", clauses)
    if x.dtype != y.dtype:      # WP-DTYPE
        raise SpecError("WP-DTYPE", "TypeError", f"x dtype {x.dtype}, y dtype {y.dtype}", clauses)
    return {"out": ExpectedArray(np.where(x > 0, x, y))}, clauses      # WP-RULE


def where_positive(x, y):
    """A new array: x where x > 0, else y; raises SpecError as documented."""
    return solve(x, y)[0]["out"].value


@dataclass(frozen=True)
class WherePositiveCall:
    x: object
    y: object


def decode(case, inputs=None) -> WherePositiveCall:
    return WherePositiveCall(need_input(case, "x", inputs), need_input(case, "y", inputs))


_B = bd.Boundary
DOMAIN_WITHOUT = {"default": "x and y are required; there is no parameter with a default",
                  "rounding": "no value is converted: out holds elements of x and y as they are"}
DOMAIN = [
    _B("x, y", "rank 0", "range", "0-d x and y (any rank is allowed)", lambda c: bd.ndim(c, "x") == 0),
    _B("x, y", "side 0", "range", "empty x and y", lambda c: 0 in bd.shape(c, "x")),
    *[_B("x, y", f"dtype {d}", "form", f"x and y of {d}", lambda c, d=d: bd.dtype(c, "x") == bd.dtype(c, "y") == d)
      for d in DTYPES["x"]],
    _B("x, y", "shapes differ", "form", "y's shape is not x's (WP-SHAPE)", lambda c: bd.shape(c, "x") != bd.shape(c, "y")),
    _B("x, y", "dtypes differ", "form", "y's dtype is not x's (WP-DTYPE)", lambda c: bd.dtype(c, "x") != bd.dtype(c, "y")),
    _B("x", "zero", "edge", "x holds 0 (not > 0: y's element is taken)",
       lambda c: bool((bd.inp(c, "x") == 0).any())),
    *bd.edge_rows("x, y", ("x", "y"), DTYPES["x"]),
]


def call(case) -> dict:
    a = decode(case)
    return {"out": where_positive(a.x, a.y)}


SPEC = OpSpec(
    reading=READING,
    name="where_positive", source="toy.where_positive.txt", title="where_positive (a test-only op)",
    clause_rows=(
        ("WP-RULE", "sem", "Description; Parameters", "out = x where x > 0 else y, elementwise; a new tensor"),
        ("WP-SHAPE", "err", "Raises", "x and y of different shapes: ValueError"),
        ("WP-DTYPE", "err", "Raises", "same shapes, different dtypes: TypeError"),
        ("WP-EX-1", "ex", "Example", "the float32 example"),
    ),
    inputs=(Field("x", "the tensor whose positive elements are kept"), Field("y", "the elements taken elsewhere")),
    params=(), outputs=(Field("out", "what the call returned"),),
    decode=decode, solve=lambda case: solve(decode(case).x, decode(case).y), reference=where_positive, call=call,
    repro=lambda case, literal: (["out = oracle.where_positive(x, y)"], [], {"out": "out"}), dtypes=DTYPES,
)

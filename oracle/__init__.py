"""The executable spec: NumPy reference semantics of the documented ops (see ../shared/spec/CLAUSES.md).

    oracle.setitem(target, key, value)            pypto Tensor.__setitem__ (returns the new target)
    oracle.clip(x, min=None, max=None)            pypto clip
    oracle.scatter(input, dim, index, src=None, *, value=None)    torch scatter (out of place)
    oracle.scatter_nd_add(x, indices, updates, use_locking=False) mindspore scatter_nd_add (out of place)
    oracle.set_(target, source=None, storage_offset=0, size=None, stride=None)  a view sharing the source's storage
    oracle.expect(case) -> Expectation

Documented errors raise SpecError (.clause, .documented); unsupported or open input raises Unspecified
(.clause, .natural).
"""
from contract.case import Case
from .clauses import CLAUSES, Clause
from .clip import Element, clip
from .errors import SpecError, Unspecified
from .expect import expect
from contract.expectation import Expectation, ExpectedArray
from .scatter import scatter
from .scatter_nd_add import scatter_nd_add
from .set_ import Storage, set_
from .setitem import setitem

__all__ = ["setitem", "clip", "scatter", "scatter_nd_add", "set_", "expect", "SpecError", "Unspecified",
           "CLAUSES", "Clause", "Case", "Expectation", "ExpectedArray", "Element", "Storage"]

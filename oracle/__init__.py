"""The executable spec: NumPy reference semantics of the documented ops (their clauses: docs/SPEC.md).

    oracle.setitem(target, key, value)            pypto Tensor.__setitem__ (returns the new target)
    oracle.clip(x, min=None, max=None)            pypto clip
    oracle.scatter(input, dim, index, src=None, *, value=None)    torch scatter (out of place)
    oracle.scatter_nd_add(x, indices, updates, use_locking=False) mindspore scatter_nd_add (out of place)
    oracle.set_(target, source=None, storage_offset=0, size=None, stride=None)  a view sharing the source's storage
    oracle.expect(case) -> Expectation

Each op is one module whose OpSpec declares everything about it (oracle/opspec.py); `oracle.<op>` is
its reference function, found through oracle/registry.py.  A reference function returns only a value
the documents determine; every other answer raises, so a caller always knows which it got:
    SpecError    a documented error (.clause, .classes: the classes admitted, () for any)
    Either       the documents leave open whether the input is accepted, and fix the value if it is
                 (.clause, .classes a refusal may raise, .outputs: {name: ExpectedArray} the accepting reading
                 gives); inside `with oracle.accepting():` the function returns that value instead
    Unspecified  the value itself is open (.clause, .natural: the NumPy-semantics value, may be empty)
"""
from contract.case import Case
from contract.expectation import Expectation, ExpectedArray

from . import registry
from .errors import Either, SpecError, Unspecified, accepting
from .expect import expect
from .opspec import Clause, OpSpec
from .registry import CLAUSES, register

registry.discover()


def _public() -> dict:
    # importing a submodule binds the package attribute of that name to the module: rebind to the function
    names = {}
    for spec in registry.SPECS.values():
        names[spec.name] = spec.reference
        names.update(spec.exports)
    return names


globals().update(_public())


def __getattr__(name):
    # an op registered after import (register(spec)) is reachable as oracle.<name> too
    names = _public()
    if name in names:
        return names[name]
    raise AttributeError(f"module 'oracle' has no attribute {name!r}")


__all__ = [*_public(), "expect", "register", "SpecError", "Either", "Unspecified", "accepting", "CLAUSES", "Clause", "OpSpec",
           "Case", "Expectation", "ExpectedArray"]

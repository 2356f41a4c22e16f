"""What the spec says a case must give: values with a comparison rule, a documented error, or 'unspecified'."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np

# How one expected output array is compared.
EXACT = "exact"        # bit-for-bit on values (NaN == NaN); pure data movement and integers
BOUND = "bound"        # |actual - value| <= bound elementwise (bound derived from the terms)
CHOICES = "choices"    # each element equal to one of choices[:, ...] (spec leaves the winner open)

# How a difference only in the sign of zero is treated.
ZERO_STRICT = "strict"   # a -0.0 / +0.0 difference is a value mismatch (data movement)
ZERO_REPORT = "report"   # admissible, but the judge records it in the verdict notes


@dataclass(frozen=True)
class ExpectedArray:
    value: np.ndarray
    rule: str = EXACT
    bound: Optional[np.ndarray] = None       # rule BOUND: per-element absolute bound, same shape
    choices: Optional[np.ndarray] = None     # rule CHOICES: shape (k, *value.shape), value == choices[0]
    zero_sign: str = ZERO_STRICT
    # Other whole arrays the documents' readings give (any shape: a reading may give the output another
    # shape), each admitted as it stands, compared exactly (NaN equals NaN, the sign of zero as zero_sign
    # says): where readings disagree on the whole array, not element by element (CHOICES)
    alternatives: tuple = ()


# What an Expectation admits (docs/DESIGN.md, "Verdicts").
VALUE = "value"              # returns exactly `outputs` (by each output's rule)
ERROR = "error"              # raises one of `error_classes` (any class where the documents name none)
EITHER = "either"            # raises one of `error_classes`, or returns exactly `outputs`: the documents
#                              leave open whether the input is accepted (or two sentences contradict)
#                              but fix the value if it is
UNSPECIFIED = "unspecified"  # the value itself is open: any outcome but a crash
EXPECTATION_KINDS = (VALUE, ERROR, EITHER, UNSPECIFIED)
MAY_RAISE = (ERROR, EITHER)
MAY_RETURN = (VALUE, EITHER)


@dataclass(frozen=True)
class Expectation:
    kind: str                                     # one of EXPECTATION_KINDS
    clauses: tuple = ()                           # clause ids that decided this answer
    outputs: Mapping[str, ExpectedArray] = field(default_factory=dict)
    # kinds error / either: the clause that admits the error and the exception class names the documents
    # name for it (a raised class passes when one of these is in its MRO; () where they name none)
    error_clause: Optional[str] = None
    error_classes: tuple = ()
    message: str = ""                             # why (error text / what is open / the two readings)

    def __post_init__(self):
        if self.kind not in EXPECTATION_KINDS:
            raise ValueError(f"unknown expectation kind {self.kind!r}")
        object.__setattr__(self, "error_classes", tuple(self.error_classes or ()))

    @property
    def natural(self) -> Mapping[str, ExpectedArray]:
        """For 'unspecified': the NumPy-semantics value an extension is checked against (may be empty)."""
        return self.outputs

    def admits_class(self, mro) -> bool:
        """Whether an exception whose class and bases are named `mro` is one the documents admit."""
        return self.kind in MAY_RAISE and (not self.error_classes or any(c in mro for c in self.error_classes))

    def raises_text(self) -> str:
        names = " or ".join(self.error_classes) or "an error"
        return f"raises {names} ({self.error_clause})"

    def returns_text(self) -> str:
        if self.kind == EITHER and not self.outputs:
            return "returns (any value: the documents state none)"
        return "returns " + "; ".join(f"{k}: {v.value.dtype}{list(v.value.shape)} {v.rule}"
                                      + "".join(f" or {a.dtype}{list(a.shape)} exact" for a in v.alternatives)
                                      for k, v in self.outputs.items())

    def summary(self) -> str:
        if self.kind == ERROR:
            return self.raises_text()
        if self.kind == EITHER:
            return f"{self.raises_text()}, or {self.returns_text()}"
        if self.kind == UNSPECIFIED:
            return f"unspecified ({', '.join(self.clauses)}): any outcome but a crash"
        return self.returns_text()

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


@dataclass(frozen=True)
class Expectation:
    kind: str                                     # "value" | "error" | "unspecified"
    clauses: tuple = ()                           # clause ids that decided this answer
    outputs: Mapping[str, ExpectedArray] = field(default_factory=dict)
    # kind "error": the clause and the exception class name the document names (None: doc names none)
    error_clause: Optional[str] = None
    error_class: Optional[str] = None
    message: str = ""                             # why (error text / what is unspecified)

    @property
    def natural(self) -> Mapping[str, ExpectedArray]:
        """For 'unspecified': the NumPy-semantics value an extension is checked against (may be empty)."""
        return self.outputs

    def summary(self) -> str:
        if self.kind == "error":
            return f"raises {self.error_class or 'an error'} ({self.error_clause})"
        if self.kind == "unspecified":
            return f"unspecified ({', '.join(self.clauses)}): any outcome but a crash"
        parts = [f"{k}: {v.value.dtype}{list(v.value.shape)} {v.rule}" for k, v in self.outputs.items()]
        return "returns " + "; ".join(parts)

"""The challenge of `conform verify`: fresh cases the certificate never saw, judged by the oracle again.

The corpus is public, so a certificate earned on it proves only that the candidate answers those cases;
a table of answers keyed by case id does as well as an implementation.  Verify therefore draws cases
nobody could have prepared for: half from the op strategies (suites/strategies/) under a seed from
os.urandom that only the verifier knows (printed after the run, so the draw can be repeated), half
perturbations of the certificate's own cases (same op, shapes, dtypes and params; the values of every
value input redrawn), tagged by the oracle again.  They run through the adapter with the certificate's
expectations file, and per op the rate of *unlisted* failures (a divergent verdict no expectations line
covers) on them is compared with the certificate's:

    one-sided Fisher exact test, H0: the fresh cases fail unlisted no more often than the certified ones;
    refused when p < ALPHA / (number of claimed ops) (Bonferroni) and the fresh rate exceeds the
    certified one by at least MIN_EFFECT.

Unlisted failures, not all failures: an honest adapter's listed divergences (suites/expectations/*.txt,
keyed by clause and dtype) fall on fresh cases in another mix than on the curated corpus, and they are
what its certificate already admits.  Not-applicable answers count on neither side.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import numpy as np

from contract.vocabulary import DIVERGENT, NO_ANSWER

ALPHA = 0.01            # family-wise: split over the claimed ops (Bonferroni)
MIN_EFFECT = 0.02       # fresh unlisted-failure rate minus the certificate's, at least, to refuse
DEFAULT_PER_OP = 200    # fresh cases per claimed op (half drawn, half perturbed)
# inputs that address elements rather than hold them: a new value there is another call, not another input
# (and any input the params name: setitem's key tensors, clip's tensor bounds)
_INDEX_INPUTS = ("index", "indices", "mask")


def new_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


# ---- the cases -------------------------------------------------------------------------------------------

def drawn_cases(op: str, n: int, seed: int) -> list:
    """Up to n cases of `op` from every family of its strategies, under `seed` (not the corpus's
    derandomized draw)."""
    from hypothesis import strategies as st
    from suites import strategies
    from suites.corpus import draw_seeded
    return draw_seeded(st.one_of(*strategies.families(op).values()), n, seed)


def _perturbed_array(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if a.size == 0:
        return a
    if a.dtype == np.bool_:
        return rng.integers(0, 2, a.shape).astype(np.bool_)
    if np.issubdtype(a.dtype, np.integer):
        info = np.iinfo(a.dtype)
        lo, hi = int(a.min()), int(a.max())
        lo, hi = max(info.min, lo - 3), min(info.max, hi + 3)
        return rng.integers(lo, hi, a.shape, endpoint=True).astype(a.dtype)
    if a.dtype.kind == "f" or str(a.dtype) in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        wide = a.astype(np.float64)
        finite = np.isfinite(wide)
        span = float(np.abs(wide[finite]).max()) if finite.any() else 1.0
        span = min(max(span, 1.0), 1e4)
        fresh = np.where(finite, rng.uniform(-span, span, a.shape), wide)    # nan and inf stay where they were
        return fresh.astype(a.dtype)
    if a.dtype.kind == "c":
        return (rng.normal(size=a.shape) + 1j * rng.normal(size=a.shape)).astype(a.dtype)
    return a


def perturbed_cases(cases, n: int, seed: int) -> list:
    """Up to n of `cases` (a list, drawn from with `seed`), each with the values of its value inputs redrawn
    (index inputs, aliased cases and cases the oracle cannot answer any more are left out)."""
    from contract.case import Case
    from suites.tagging import with_oracle_clauses
    rng = np.random.default_rng(seed)
    pool = [c for c in cases if not c.aliases]
    out = []
    for i in rng.permutation(len(pool)):
        if len(out) >= n:
            break
        case = pool[i]
        named = json.dumps(dict(case.params), default=str)
        inputs = {k: (v if k in _INDEX_INPUTS or f'"{k}"' in named else _perturbed_array(v, rng))
                  for k, v in case.inputs.items()}
        try:
            fresh = with_oracle_clauses(Case(op=case.op, inputs=inputs, params=dict(case.params), origin="generated",
                                             label=case.label))
        except (ValueError, TypeError, ArithmeticError):
            continue
        if fresh.id != case.id:
            out.append(fresh)
    return out


def challenge_cases(ops, per_op: int, seed: int, recorded_cases, avoid=()) -> list:
    """Fresh cases of the claimed ops: per op, per_op // 2 drawn and the rest perturbed from the certificate's
    recorded cases; none whose id is in `avoid` (the certificate's cases)."""
    avoid = set(avoid)
    out, seen = [], set()
    for i, op in enumerate(ops):
        drawn = drawn_cases(op, per_op // 2, seed + i) if per_op >= 2 else []
        mine = [c for c in recorded_cases if c.op == op]
        perturbed = perturbed_cases(mine, per_op - len(drawn), seed + 1000 + i)
        for c in drawn + perturbed:
            if c.id not in avoid and c.id not in seen:
                seen.add(c.id)
                out.append(c)
    return out


# ---- the comparison ----------------------------------------------------------------------------------------

def unlisted_failures(records) -> tuple:
    """(unlisted failures, answered cases) of some case records: a failure is unlisted when no expectations
    line gave it a reason; a not-applicable answer is no answer."""
    answered = [r for r in records if r["verdict"] not in NO_ANSWER]
    failing = sum(1 for r in answered if r["verdict"] in DIVERGENT and not r.get("expected_divergence"))
    return failing, len(answered)


def fisher_greater(k_fresh: int, n_fresh: int, k_cert: int, n_cert: int) -> float:
    """One-sided Fisher exact p-value: P(at least k_fresh of the k_fresh + k_cert failures fall among the
    n_fresh fresh cases) when fresh and certified cases fail alike (hypergeometric upper tail)."""
    total, failures = n_fresh + n_cert, k_fresh + k_cert
    if n_fresh == 0 or failures == 0:
        return 1.0
    denom = math.comb(total, n_fresh)
    top = min(failures, n_fresh)
    return min(1.0, sum(math.comb(failures, k) * math.comb(total - failures, n_fresh - k)
                        for k in range(k_fresh, top + 1)) / denom)


@dataclass
class OpVerdict:
    op: str
    cert_failing: int
    cert_answered: int
    fresh_failing: int
    fresh_answered: int
    p: float
    threshold: float
    refused: bool

    def line(self) -> str:
        rate = lambda k, n: f"{k}/{n}" + (f" ({100 * k / n:.1f}%)" if n else "")
        return (f"{self.op}: fresh cases failing unlisted {rate(self.fresh_failing, self.fresh_answered)}, "
                f"certified {rate(self.cert_failing, self.cert_answered)}; one-sided Fisher p = {self.p:.2g} "
                f"(refused below {self.threshold:.2g} with a rise of at least {100 * MIN_EFFECT:g} points)")


def compare(ops, cert_records, fresh_records, alpha=ALPHA, min_effect=MIN_EFFECT) -> list:
    """One OpVerdict per claimed op."""
    out = []
    threshold = alpha / max(1, len(ops))
    for op in ops:
        kc, nc = unlisted_failures([r for r in cert_records if r["op"] == op])
        kf, nf = unlisted_failures([r for r in fresh_records if r["op"] == op])
        p = fisher_greater(kf, nf, kc, nc)
        rise = (kf / nf if nf else 0.0) - (kc / nc if nc else 0.0)
        out.append(OpVerdict(op, kc, nc, kf, nf, p, threshold, nf > 0 and p < threshold and rise >= min_effect))
    return out

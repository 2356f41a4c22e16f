"""The adapter a vendor writes: Case in (docs/CASES.md), the vendor's own call, Outcome out.

Certify it with
    conform certify --adapter vendor_clip.adapter:VendorClipAdapter --out cert/
(or, once installed with its entry point, `--adapter vendor-clip`).
"""
from __future__ import annotations

import numpy as np

from adapters.base import Adapter, Outcome


class VendorClipAdapter(Adapter):
    name = "vendor-clip"
    execution = "NumPy on CPU (example vendor library)"
    ops = ("clip",)                  # every other op is reported not-applicable

    def version(self) -> str:
        import vendor_clip
        return vendor_clip.__version__

    def available(self) -> tuple:
        try:
            import vendor_clip  # noqa: F401
        except ImportError as e:
            return False, f"vendor_clip is not importable: {e}"
        return True, ""

    def native_api(self, op, case=None) -> str:
        return "vendor_clip.clip" if op in self.ops else ""

    def run(self, case) -> Outcome:
        if case.op not in self.ops:
            return Outcome.not_applicable(f"{self.name} implements only clip")
        import vendor_clip
        x = np.array(case.inputs["x"], copy=True)      # the case's arrays are read-only
        try:
            out = vendor_clip.clip(x, min=self._bound(case, "min"), max=self._bound(case, "max"))
        except Exception as e:       # the library's own error is the answer; never let it escape
            return Outcome.raised(e)
        return Outcome.returned(out=out, x=x)

    @staticmethod
    def _bound(case, which):
        # The suite's decoder reads the case (docs/SPEC.md, clip): each bound is None or a Bound that
        # passes itself as a tensor, an Element or the Python scalar a user writes.
        import vendor_clip
        from adapters.convert import call_args
        from contract.dtypes import dtype_from_name
        bound = getattr(call_args(case), which)
        if bound is None:
            return None
        return bound.pass_as(tensor=lambda a: np.array(a, copy=True),
                             element=lambda v, dt: vendor_clip.Element(v, dtype_from_name(dt)))

    def repro(self, case, expectation=None) -> str:
        """The call in the vendor's own syntax; with the suite's Expectation it also checks the documents'
        answer, so the script fails exactly where the case fails (adapters/repro.py compose)."""
        from adapters.repro import clip_bound_texts, compose, scalar_text
        if case.op not in self.ops:
            return f"# {self.name} implements only clip\n"
        lo, hi = clip_bound_texts(
            case, lambda v, dt: f"vendor_clip.Element({scalar_text(v)}, np.dtype({dt!r}))")
        return compose(case, expectation, title="vendor_clip.clip", imports=["import vendor_clip"],
                       call=[f"out = vendor_clip.clip(x, min={lo}, max={hi})"], show=["print(out)"],
                       outputs={"out": "out", "x": "x"})

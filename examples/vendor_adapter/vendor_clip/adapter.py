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
    ops = ("clip", "scatter")        # the ops it maps: the ops it may claim; the others are not run
    NATIVE = {"clip": "vendor_clip.clip", "scatter": "vendor_clip.scatter"}

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
        return self.NATIVE.get(op, "")

    def run(self, case) -> Outcome:
        import vendor_clip
        from adapters.convert import call_args
        a = call_args(case)          # the suite's decoder: the call's arguments (docs/CERTIFY.md, per op)
        try:
            if case.op == "clip":
                x = np.array(a.x, copy=True)                # the case's arrays are read-only
                out = vendor_clip.clip(x, min=self._bound(a.min), max=self._bound(a.max))
                return Outcome.returned(out=out, x=x)
            if case.op == "scatter":
                input_ = np.array(a.input, copy=True)
                out = vendor_clip.scatter(input_, a.dim, a.index, a.src_or_value, inplace=a.inplace)
                return Outcome.returned(out=out, input=input_)
        except Exception as e:       # the library's own error is the answer; never let it escape
            return Outcome.raised(e)
        return Outcome.not_applicable(f"{self.name} implements only {', '.join(self.ops)}")

    @staticmethod
    def _bound(bound):
        # Each clip bound is None or a Bound that passes itself as a tensor, an Element or the Python
        # scalar a user writes.
        import vendor_clip
        from contract.dtypes import dtype_from_name
        if bound is None:
            return None
        return bound.pass_as(tensor=lambda a: np.array(a, copy=True),
                             element=lambda v, dt: vendor_clip.Element(v, dtype_from_name(dt)))

    def repro(self, case, expectation=None) -> str:
        """The call in the vendor's own syntax; with the suite's Expectation it also checks the documents'
        answer, so the script fails exactly where the case fails (adapters/repro.py compose)."""
        from adapters.repro import clip_bound_texts, compose, scalar_text, scatter_arg_texts
        if case.op == "clip":
            lo, hi = clip_bound_texts(
                case, lambda v, dt: f"vendor_clip.Element({scalar_text(v)}, np.dtype({dt!r}))")
            call, outputs = f"out = vendor_clip.clip(x, min={lo}, max={hi})", {"out": "out", "x": "x"}
        elif case.op == "scatter":
            dim, index, src = scatter_arg_texts(case)
            inplace = ", inplace=True" if case.params.get("inplace") else ""
            call, outputs = f"out = vendor_clip.scatter(input, {dim}, {index}, {src}{inplace})", {"out": "out", "input": "input"}
        else:
            return f"# {self.name} implements only {', '.join(self.ops)}\n"
        return compose(case, expectation, title=self.NATIVE[case.op], imports=["import vendor_clip"],
                       call=[call], show=["print(out)"], outputs=outputs)

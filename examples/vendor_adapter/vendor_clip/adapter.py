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
        import vendor_clip
        spec = case.params.get(which)
        if spec is None:
            return None
        if spec["kind"] == "tensor":
            return np.array(case.inputs[which], copy=True)
        if spec["kind"] == "element":
            from contract.dtypes import dtype_from_name
            return vendor_clip.Element(spec["value"], dtype_from_name(spec["dtype"]))
        return spec["value"]         # int or float, passed as the Python scalar a user writes

    def repro(self, case) -> str:
        from adapters.repro import array_literal, scalar_text
        lines = ["import numpy as np", "import vendor_clip", f"x = {array_literal(case.inputs['x'])}"]
        args = []
        for which in ("min", "max"):
            spec = case.params.get(which)
            if spec is None:
                continue
            if spec["kind"] == "tensor":
                lines.append(f"{which} = {array_literal(case.inputs[which])}")
                args.append(f"{which}={which}")
            elif spec["kind"] == "element":
                args.append(f"{which}=vendor_clip.Element({scalar_text(spec['value'])}, np.dtype({spec['dtype']!r}))")
            else:
                args.append(f"{which}={scalar_text(spec['value'])}")
        lines.append(f"out = vendor_clip.clip(x, {', '.join(args)})")
        lines.append("print(out)")
        return "\n".join(lines)

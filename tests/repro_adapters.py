"""Adapters for the repro tests, loaded by workers as `repro_adapters:Class`.

`NumpyClip` writes no repro of its own: it gets Adapter.repro's generic one,
which must import `numpy`, call `numpy.clip(x, min, max)` with the arguments in
the documented order and check the answer.  np.clip diverges from the pypto
document where it promotes (an int x with a float bound) and where both bounds
are omitted (ValueError), so it has failing cases to reproduce.
`OldStyleRepro` overrides repro(case) the way vendor adapters did before
repros received the Expectation.
"""
from __future__ import annotations

import numpy as np

from adapters.base import Adapter, Outcome


def _bound(case, which):
    spec = case.params.get(which)
    if spec is None:
        return None
    if spec["kind"] == "tensor":
        return case.inputs[which]
    if spec["kind"] == "element":      # what the generic repro writes: a 0-d array of the Element's dtype
        from contract.dtypes import dtype_from_name
        return np.array(spec["value"], dtype=dtype_from_name(spec["dtype"]))
    return spec["value"]


class NumpyClip(Adapter):
    name = "numpy-clip"
    execution = "NumPy"
    ops = ("clip",)

    def version(self):
        return np.__version__

    def native_api(self, op, case=None):
        return "numpy.clip"

    def run(self, case):
        x = np.array(case.inputs["x"], copy=True)
        try:
            out = np.clip(x, _bound(case, "min"), _bound(case, "max"))
        except Exception as e:
            return Outcome.raised(e)
        return Outcome.returned(out=out, x=x)


class OldStyleRepro(NumpyClip):
    name = "old-style"

    def repro(self, case):
        return f"import numpy\n# {case.id}: numpy.clip(x, ...)\n"

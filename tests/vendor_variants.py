"""Variants of the example vendor adapter (examples/vendor_adapter) with one fault each, for check-adapter's
tests (tests/test_check_commands.py): a repro that loses an empty input's shape, a lazy repro that never
evaluates the call, a framework that crashes on empty inputs with and without the crash declared."""
from __future__ import annotations

import ctypes

import numpy as np
from vendor_clip.adapter import VendorClipAdapter

from adapters import repro as R


class EmptyShapesLost(VendorClipAdapter):
    """Writes each input as a flat list literal, as repros did before: an empty input of shape (0, 4) comes
    back as shape (0,)."""
    name = "empty-shapes-lost"

    def repro(self, case, expectation=None):
        text = super().repro(case, expectation)
        for name, a in case.inputs.items():
            text = text.replace(f"{name} = {R.array_literal(a)}",
                                f"{name} = np.array({R.values_text(a)}, dtype={R.numpy_dtype_text(a.dtype)})")
        return text


class LazyRepro(VendorClipAdapter):
    """A lazy framework's repro without its evaluation call: the call lines only build a thunk, evaluated
    in the read-back lines, which a repro skips where the documents name an error."""
    name = "lazy-repro"

    def repro(self, case, expectation=None):
        if case.op != "scatter":
            return super().repro(case, expectation)
        dim, index, src = R.scatter_arg_texts(case)
        inplace = ", inplace=True" if case.params.get("inplace") else ""
        call = f"out = lambda: vendor_clip.scatter(input, {dim}, {index}, {src}{inplace})"
        return R.compose(case, expectation, imports=["import vendor_clip"], call=[call], after=["out = out()"],
                         show=["print(out)"], outputs={"out": "out", "input": "input"})


class CrashesOnEmpty(VendorClipAdapter):
    """The framework dies by SIGSEGV on an empty input, as MLX's kernels did (issue 37)."""
    name = "crashes-on-empty"

    def run(self, case):
        if any(a.size == 0 for a in case.inputs.values()):
            ctypes.string_at(0)
        return super().run(case)


class CrashesOnEmptyDeclared(CrashesOnEmpty):
    name = "crashes-on-empty-declared"
    crashes = ("*/crash/* ~ SIGSEGV :: vendor_clip's kernels read past an empty input (vendor bug 12)",)

"""Every change this project makes to pypto's internals, in one place.

They were verified against pypto 0.2.0 only: `apply()` refuses any other version
rather than patch code it has not seen.  Without them pypto 0.2.0 on a machine
with no NPU computes nothing useful:

1. `BuildOnlineManager.build_and_load_calculator` compiles the calculator with
   cmake in a temporary folder in every process (30-75 s each); it is replaced
   by loading the copy `calculator.py` built once into the cache.
2. `JitCallableWrapper._setup_verify_data` copies the kernel's inputs "from the
   device" before handing them to the interpreter; with no device that copy is
   all zeros, so the interpreter would compute on zeros.  The replacement hands
   it the host tensors themselves.
"""
from __future__ import annotations

import importlib.metadata

from .. import frameworks
from . import calculator

VERIFIED_VERSION = frameworks.pin("pypto")      # adapters/pypto_framework.toml
_applied: list = []


def installed_version() -> str:
    try:
        return importlib.metadata.version("pypto")
    except importlib.metadata.PackageNotFoundError:
        return ""


def version_problem(installed: str | None = None) -> str:
    """'' when the patches may be applied to `installed` (default: the installed pypto), else why not."""
    found = installed_version() if installed is None else installed
    if not found:
        return f"pypto is not installed (pip install pypto=={VERIFIED_VERSION})"
    if found != VERIFIED_VERSION:
        return (f"pypto {found} is installed, but the CPU interpreter patches were verified only "
                f"against pypto {VERIFIED_VERSION}; install pypto=={VERIFIED_VERSION}")
    return ""


class UnverifiedVersion(RuntimeError):
    pass


class Unobservable(RuntimeError):
    """The interpreter cannot be handed these tensors (pypto's verify plumbing rejects them, e.g. 0-d),
    so the call cannot be observed on the CPU: not a verdict on the kernel itself."""


def apply(installed: str | None = None) -> None:
    """Patch pypto (idempotent).  Raises UnverifiedVersion on a pypto the patches were not verified on
    (`installed`: the version to check, default the installed one)."""
    problem = version_problem(installed)
    if problem:
        raise UnverifiedVersion(problem)
    if _applied:
        return
    import pypto
    from pypto import pypto_impl
    from pypto._utils import BuildOnlineManager
    from pypto.frontend.parser import entry
    from pypto.runtime import _pto_to_tensor_data, _pto_verify_datas

    def build_and_load_calculator(self):
        if not self.calculator_loaded:
            calculator.load()
            self.calculator_loaded = True

    def setup_verify_data(pto_tensors):
        if pypto.get_verify_options().get("enable_pass_verify"):
            BuildOnlineManager().build_and_load_calculator()
            try:
                datas = _pto_to_tensor_data(pto_tensors)
            except Exception as e:          # a 0-d tensor has no ori_shape here
                raise Unobservable(f"pypto's interpreter cannot take these inputs: {type(e).__name__}: {e}") from e
            pypto_impl.SetVerifyData(datas, [], _pto_verify_datas.get_data())

    BuildOnlineManager.build_and_load_calculator = build_and_load_calculator
    entry.JitCallableWrapper._setup_verify_data = staticmethod(setup_verify_data)
    _applied.append(True)


"""Did the candidate borrow the suite's answer?  A tripwire in the worker of a candidate adapter.

The worker side legitimately imports contract/, adapters/ and the oracle package (the case decoders live
in oracle/, next to the solvers), never suites/, reports/ or conform/: where bubblewrap runs, those
folders are not even there for a worker (adapters/sandbox.py).  The oracle cannot be hidden that way,
so its answering functions (oracle.expect and every op's solve) are wrapped before the candidate's module
is imported: a call during a case, or any suite package in sys.modules, is named on that case's outcome
(`borrowed`), and the certificate and `conform verify` show it.  A tripwire in the candidate's own
process only catches what does not look for it (a candidate can read the oracle's files and run its own
copy): the challenge of `conform verify` (conform/challenge.py) cannot tell a borrowed answer from a real
one, so this names the plain borrowing, and docs/CERTIFY.md says what is left.
"""
from __future__ import annotations

import sys

SUITE_PACKAGES = ("suites", "reports", "conform")      # the judge, the corpus, the certificate: never the worker's


def trusted(target: str) -> bool:
    """The suite's own adapters (the oracle, its mutants, the shipped frameworks) may use the oracle."""
    from .registry import resolve, shipped_name
    if shipped_name(target):
        return True
    try:
        module = resolve(target).split("@")[0].split(":")[0]
    except Exception:       # noqa: BLE001 - an unresolvable target is the loader's error to report
        return False
    return module.startswith("adapters.")


class Tripwire:
    def __init__(self):
        self.calls = set()
        self.before = {m.split(".")[0] for m in sys.modules}

    @classmethod
    def install(cls):
        wire = cls()
        import oracle
        from oracle.registry import SPECS
        E = sys.modules["oracle.expect"]       # the package's `expect` attribute is the function
        real = E.expect

        def expect(case, _real=real):
            wire.calls.add("oracle.expect")
            return _real(case)
        E.expect = oracle.expect = expect
        for spec in SPECS.values():
            for field in ("solve", "call", "reference"):        # the answer, and the reference implementation
                real = getattr(spec, field, None)
                if not callable(real):
                    continue
                module = sys.modules.get(getattr(real, "__module__", ""), None)

                def wrapped(*a, _real=real, _what=f"oracle {field}", **k):
                    wire.calls.add(_what)
                    return _real(*a, **k)
                object.__setattr__(spec, field, wrapped)
                for name, v in list(vars(module).items()) if module else ():
                    if v is real:
                        setattr(module, name, wrapped)
        return wire

    def seen(self) -> str:
        """What the candidate borrowed so far, comma-separated ('' for nothing)."""
        loaded = {m.split(".")[0] for m in list(sys.modules)} - self.before
        return ", ".join(sorted(self.calls | {p for p in SUITE_PACKAGES if p in loaded}))

"""The oracle as a candidate: the NumPy reference functions called like any framework's API.

For each case it asks the op's OpSpec (oracle/opspec.py) to call the reference function
(`oracle.clip` etc.) with the case's arguments, and reports the outputs the spec names, so running
the suite against it checks the oracle's functions against `oracle.expect` through the same judge
every other adapter gets.  It maps every registered op, an out-of-tree one too.
"""
from __future__ import annotations

from .base import RAISED, Adapter, Outcome


class OracleAdapter(Adapter):
    name = "oracle"
    execution = "NumPy reference oracle"

    def version(self) -> str:
        from contract.vocabulary import SUITE_VERSION
        return SUITE_VERSION

    def available(self) -> tuple:
        try:
            from oracle import registry
        except Exception as e:
            return False, f"cannot import oracle: {e}"
        missing = [op for op, s in registry.SPECS.items() if not (callable(s.reference) and callable(s.call))]
        return (not missing), (f"oracle has no reference function for {', '.join(missing)}" if missing else "")

    def native_api(self, op, case=None) -> str:
        from oracle import registry
        try:
            return registry.spec(op).api(case)
        except registry.UnknownOp:
            return op

    def run(self, case) -> Outcome:
        import oracle
        from oracle import registry
        spec = registry.spec(case.op)
        try:
            if case.aliases:
                # the user's own writable arrays, an aliased input a NumPy view of its base's
                import numpy as np
                from contract.case import build_inputs
                return Outcome.returned(**spec.call(case, build_inputs(case, np.array, lambda base, key: base[key])))
            return Outcome.returned(**spec.call(case))
        except oracle.SpecError as e:
            return _spec_error(e)
        except Exception as e:      # Unspecified, or a bug in the oracle: reported like any framework's error
            return Outcome.raised(e)

    def repro(self, case, expectation=None) -> str:
        from oracle import registry

        from .repro import compose, scalar_text
        # as a candidate the oracle returns the accepting reading of an either answer (oracle.Either otherwise)
        ACCEPTING = "oracle.accepting().__enter__()"
        call, after, outputs = registry.spec(case.op).repro(case, scalar_text)
        return compose(case, expectation, title=self.native_api(case.op, case), imports=["import oracle", ACCEPTING],
                       setup=AS_DOCUMENTED, call=call, after=after, show=[f"print({', '.join(outputs.values())})"],
                       outputs=outputs, unwrap="as_documented(e)")


def _spec_error(e) -> Outcome:
    # The oracle raises SpecError for every documented error; a candidate raises the documented class,
    # so report that class with SpecError's bases behind it.
    out = Outcome.raised(e)
    documented = getattr(e, "documented", None)
    if documented:
        out = Outcome(RAISED, exc_type=documented, exc_mro=(documented, *out.exc_mro), message=out.message)
    return out


# The oracle raises SpecError for a documented error, naming the document's class in .documented; the adapter
# reports that class (_spec_error), and so does the repro.
AS_DOCUMENTED = ["def as_documented(e):   # SpecError -> the exception class the document names",
                 "    import builtins",
                 '    cls = getattr(builtins, getattr(e, "documented", None) or "", None)',
                 "    return cls(str(e)) if isinstance(cls, type) and issubclass(cls, Exception) else e"]

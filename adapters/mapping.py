"""One table per framework adapter: an op it maps is one row, holding the call, the native API's name and the
repro's parts together (docs/ADDING_AN_OP.md, docs/CERTIFY.md).

An op without a row is not-applicable by construction: no default branch can hand it another op's call.
A row reads the case only through the op's decoder (`OpSpec.decode`, via `adapters.convert.call_args`):
the runner gets the decoded call over the framework's own tensors, the repro the decoded call over the
case's NumPy arrays.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Callable, Optional

from contract.case import build_inputs

from . import convert, execution, layouts, repro as R
from .base import CRASHED, Outcome
from .pinned import PinnedAdapter


@dataclass(frozen=True)
class OpMap:
    """How one adapter maps one op.

    native: the native API's name, as reports show it;
    run: (framework module, decoded call over the framework's tensors) -> Outcome;
    repro: (case, decoded call over NumPy arrays) -> (call lines, read-back lines, print lines,
           {output name: NumPy expression});
    native_for: (decoded call) -> the API's name where it depends on the case (scatter_ for inplace).
    """
    native: str
    run: Callable
    repro: Callable
    native_for: Optional[Callable] = None


class ReadBackError(Exception):
    """The adapter could not read the framework's answer back: its own failure, never the framework raising."""


def read_back(read, value):
    """`read(value)`, a row's conversion of the framework's answer to NumPy; its failure is a ReadBackError,
    which run() records as the adapter's failure (a crash verdict: it never passes as "the call raised")."""
    try:
        return read(value)
    except Exception as e:
        raise ReadBackError(f"{type(e).__name__}: {e}"[:2000]) from None


def native_name(table: dict, op: str, case=None) -> str:
    """The native API the table's row calls for `case` (the op's name where the table has no row)."""
    row = table.get(op)
    if row is None:
        return op
    if case is None or row.native_for is None:
        return row.native
    try:
        return row.native_for(convert.call_args(case))
    except ValueError:          # a malformed case: its run reports that; the name is the row's
        return row.native


def missing_api(module, native: str) -> str:
    """The row's API as a dotted path (`paddle.Tensor.set_ (offset in bytes)` -> paddle.Tensor.set_) where the
    installed release lacks it; '' where it has it, or where the name is not a plain path of `module`."""
    path = re.split(r"[ (]", native, maxsplit=1)[0].split(".")
    if not module or path[0] != module.__name__.split(".")[0] or not all(p.isidentifier() for p in path):
        return ""
    obj = sys.modules.get(path[0])      # the framework's top package: imported with the module it handed us
    if obj is None:
        return ""
    for part in path[1:]:
        if not hasattr(obj, part):
            return ".".join(path)
        obj = getattr(obj, part)
    return ""


def unmapped(adapter, op: str) -> Outcome:
    out = Outcome.not_applicable(f"{adapter.name} has no mapping for {op} (it maps {', '.join(adapter.ops)})")
    out.native_api = op
    return out


class FrameworkAdapter(PinnedAdapter):
    """A framework adapter driven by its TABLE (op -> OpMap).

    A subclass gives TABLE, `framework()` (the imported module handed to each runner), `tensor(array)` (a
    NumPy array as the framework's own tensor, built the current construction's way), and for its repro
    REPRO_IMPORTS, REPRO_SETUP and `tensor_maker(construction)`; `guard(case)` wraps each call (mindspore
    captures its C++ log there)."""
    TABLE: dict = {}
    REPRO_IMPORTS: tuple = ()
    REPRO_SETUP: tuple = ()
    # A compiled mode (adapters/execution.py): the expression that compiles a function in its repro
    # ("jax.jit"); empty for an eager adapter.
    REPRO_COMPILE: str = ""
    REPRO_OUTSIDE: tuple = ()   # text of call lines that stay outside the compiled function (tf.Variable()
    #                             is made before a tf.function, as tf.function requires)
    # A mode whose compiled function hands its in-place writes back as values (execution.functional): its
    # repro returns each input the body writes through and rebinds it, as the rows read it.
    FUNCTIONAL_MODE: bool = False

    @property
    def ops(self) -> tuple:
        """The ops of TABLE whose API the installed release has: an older release without one (paddle 2.6.2
        and mindspore 2.7.0 have no Tensor.set_) does not map that op, so its cases are not applicable to that
        release, with the reason, never the framework refusing each of them."""
        return tuple(op for op in self.TABLE if not self.lacks(op))

    def lacks(self, op: str) -> str:
        """The API `op`'s row calls, where the installed release lacks it ('' otherwise)."""
        try:
            module = self.framework()
        except Exception:       # not importable here: available() says why
            return ""
        return missing_api(module, self.TABLE[op].native)

    def native_api(self, op: str, case=None) -> str:
        return native_name(self.TABLE, op, case)

    def framework(self):
        raise NotImplementedError

    def tensor(self, array):
        raise NotImplementedError

    def tensor_maker(self, construction: str):
        raise NotImplementedError

    def in_layout(self, plan):
        """The framework's tensor of an adapters.layouts.Plan, built natively (an adapter with `layouts`)."""
        if type(self).laid is not FrameworkAdapter.laid:       # an adapter written before the rename
            import warnings
            warnings.warn(f"{type(self).__name__}.laid is the old name of in_layout: rename it", DeprecationWarning)
            return self.laid(plan)
        raise NotImplementedError

    def laid(self, plan):
        """The old name of in_layout, still answered for callers written before the rename."""
        return self.in_layout(plan)

    def finish(self, outcome: Outcome, capture) -> Outcome:
        """The outcome as reported (mindspore adds its [ERROR] lines); `capture` is what guard() yielded."""
        return outcome

    def guard(self):
        import contextlib
        return contextlib.nullcontext()

    def inputs(self, case) -> dict:
        """The case's inputs as this framework's tensors, by name; an aliased input is view() of its base's
        tensor (contract.case.build_inputs)."""
        return build_inputs(case, self.tensor, self.view)

    def view(self, base, key):
        """The framework's own slice `base[key]` (a tuple of basic slices): a view sharing base's storage
        in a framework that has views, the natural user code in an immutable one."""
        return base[key]

    def compiler(self):
        """What compiles a row's framework call in this mode (jax.jit...); None: eager."""
        return None

    def run(self, case) -> Outcome:
        row = self.TABLE.get(case.op)
        if row is None:
            return unmapped(self, case.op)
        if (missing := self.lacks(case.op)):
            out = Outcome.not_applicable(f"{self.name} {self.version()} has no {missing}: this release cannot "
                                         f"run {case.op}")
            out.native_api = missing
            return out
        api = self.native_api(case.op, case)
        fw = self.framework()
        with self.guard() as capture:
            try:
                with convert.building(self.construction), execution.compiling(self.compiler()):
                    if case.aliases:      # an alias is built as the framework's own view of its base
                        tensors = self.inputs(case)
                    else:
                        plans = layouts.plans(self.layout, case)
                        tensors = {k: self.tensor(v) if plans[k] is None else self.in_layout(plans[k])
                                   for k, v in case.inputs.items()}
                    outcome = row.run(fw, convert.call_args(case, tensors))
            except (KeyboardInterrupt, SystemExit):
                raise
            except ReadBackError as e:      # the adapter's failure, not the framework's answer
                outcome = Outcome(CRASHED, message=f"the adapter could not read the answer back: {e}")
            except BaseException as e:      # the framework's failure is the result, whatever it is
                outcome = Outcome.raised(e)
        outcome = self.finish(outcome, capture)
        outcome.native_api = api
        return outcome

    def repro(self, case, expectation=None) -> str:
        row = self.TABLE.get(case.op)
        if row is None:
            return f"{R.header_comment(case)}\n# not applicable to {self.name}: it has no mapping for {case.op}\n"
        call, after, show, outputs = row.repro(case, convert.call_args(case))
        if self.REPRO_COMPILE:
            call = compiled_call(case, call, outputs, self.REPRO_COMPILE, self.REPRO_OUTSIDE, self.FUNCTIONAL_MODE)
        return R.compose(case, expectation, title=self.native_api(case.op, case), imports=list(self.REPRO_IMPORTS),
                         setup=list(self.REPRO_SETUP),
                         inputs=R.input_lines(case, self.tensor_maker(self.construction),
                                              None if case.aliases else layouts.plans(self.layout, case)),
                         call=call, after=after, show=show, outputs=outputs)


def compiled_call(case, call, outputs, compile_expr, outside=(), functional=False) -> list:
    """A repro's call lines as the body of one compiled function of the case's inputs, as a compiled
    mode runs them: the outputs the lines (re)bind come back out of it, and in a `functional` mode each
    input they write through (`t[...] = `, `t.method_(`); lines holding any text of `outside` run before it."""
    before = [line for line in call if any(t in line for t in outside)]
    body = [line for line in call if line not in before]
    inputs = list(case.inputs)
    # what the body (re)binds comes back out; set_'s outputs are read after the call, outside it
    bound = [n for n in outputs if any(line.startswith((f"{n} = ", f"{n}, ")) for line in body)]
    if functional:
        bound += [n for n in inputs if n not in bound
                  and any(re.search(rf"(^|\W){re.escape(n)}(\[.*\] = |\.\w+_\()", line) for line in body)]
    back = ", ".join(bound) + ("," if len(bound) == 1 else "")
    return [*before, f"def call({', '.join(inputs)}):   # compiled with {compile_expr}, as the mode runs it",
            *(f"    {line}" for line in body), f"    return {back or 'None'}",
            f"{back + ' = ' if back else ''}{compile_expr}(call)({', '.join(inputs)})"]

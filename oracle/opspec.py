"""OpSpec: everything the suite knows about one documented op, declared once, in the op's own module.

An op module (`oracle/<op>.py`) ends with `SPEC = OpSpec(...)`: the source document, the clause rows
(with the part of the document each comes from), the case contract (inputs, params, outputs), the one
decoder from a Case to the call's arguments, the documented dtypes, `solve` and the public reference
function.  `oracle/registry.py` finds the specs and derives every table from them; docs/SPEC.md is
generated from them (`python -m oracle.spec_doc`); docs/ADDING_AN_OP.md says how to add one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping, Optional

# The clause kinds and what each means, defined once (docs/SPEC.md and the report's glossary read them).
KIND_MEANINGS = {
    "sem": "a defined behaviour: the values the op must compute",
    "err": "a documented error: the call must raise (the class, where the document names one; any class "
           "where it names none)",
    "uns": "documented as unsupported, or a precondition whose breach has no stated consequence: an "
           "implementation may reject it (any exception class); if it accepts it, it must give the value the "
           "other rules give where they give one (`either`), any value where they give none (`extension`); "
           "never a crash",
    "ex": "a worked example of the document, with its exact output",
    "gap": "something the document leaves open or contradicts: a spec finding the report lists; the readings "
           "it admits are in the clause's answer (any outcome but a crash where the value is open)",
}
CLAUSE_KINDS = tuple(KIND_MEANINGS)
ADDED = "added"      # 5th element of a clause row: an id the oracle added while encoding the document

# Aliased inputs (contract.case.Alias; docs/SPEC.md, "Aliased inputs"): no document says what a call does
# when one input is a view of another.  An op that takes such cases lists the gap `<prefix>-GAP-ALIAS`
# (alias_gap_row); oracle.expect admits exactly two outcomes for them: it raises, or it gives the value
# as if the view had been copied before the call (what the oracle computes from the case's own arrays).
# The gap exists only where the call writes: an op whose document says a call writes into no input (clip,
# out-of-place scatter) declares `writes_nothing`, and its aliased cases get the plain answer.
ALIAS_GAP = "GAP-ALIAS"


def alias_gap_row(prefix: str, section: str, which: str) -> tuple:
    """The clause row of an op's aliasing gap; `which` names the input that may be a view, in words."""
    return (f"{prefix}-{ALIAS_GAP}", "gap", section,
            f"{which} a view of another input (sharing its storage): not stated; admissible: raises, or the "
            f"value as if the view had been copied before the call", ADDED)


@dataclass(frozen=True)
class Clause:
    id: str
    op: str
    kind: str                # sem | err | uns | ex | gap (docs/SPEC.md)
    statement: str
    section: str = ""        # the part of the source document the rule comes from
    source: str = ""         # the source document's file name
    added: bool = False      # not in the developers' clause list: decided while encoding the document

    @property
    def finding(self) -> bool:
        """A gap: the document leaves this open or contradicts itself (listed as a spec finding)."""
        return self.kind == "gap"


@dataclass(frozen=True)
class Field:
    """One named input, param or output of an op's cases (docs/CASES.md)."""
    name: str
    doc: str
    required: bool = True
    # inputs only, for the layouts (adapters/layouts.py): the op reads this input's storage, not its logical
    # values, so it stays as it is in every layout; and the output that reports this input back when it is
    # not an output of the same name (the call writes it)
    storage: bool = False
    reported_as: str = ""


@dataclass(frozen=True)
class OpSpec:
    name: str                 # Case.op
    source: str               # the source document's file name (a seed of the developers' tree)
    title: str                # what that document documents
    clause_rows: tuple        # (id, kind, section, statement) or (id, kind, section, statement, ADDED)
    inputs: tuple             # Field per case input
    params: tuple             # Field per case param
    outputs: tuple            # Field per output an adapter reports; the first is the primary one
    decode: Callable          # (case, inputs=None) -> the call's arguments; ValueError for a malformed case.
    #                           `inputs` (default case.inputs) maps input names to the objects to pass:
    #                           an adapter hands its converted tensors and gets them back in place
    solve: Callable           # case -> ({output: ExpectedArray}, clauses); raises SpecError / Unspecified
    reference: Callable       # the public reference function, oracle.<name>
    call: Callable            # (case, inputs=None) -> {output: array}: `reference` called as a user calls it;
    #                           `inputs` as for decode: the oracle adapter's own arrays, an aliased input a
    #                           NumPy view of its base (contract.case.build_inputs), used as they are
    repro: Callable           # (case, literal) -> (call lines, read-back lines, {output: expression}): the
    #                           same call as a repro script's text, after the inputs are defined;
    #                           literal(value) spells a param value as Python source
    dtypes: Mapping = field(default_factory=dict)      # role -> the dtypes the document lists for it
    native_api: Optional[Callable] = None              # case -> the call's name in reports (oracle.<name>)
    exports: Mapping = field(default_factory=dict)     # further public names of the package (oracle.Element)
    generic_outputs: Mapping = field(default_factory=dict)  # output -> variable a generic repro reads it from
    #                                                   (adapters/repro.generic_repro); default {primary: "result"}
    generic_call: Optional[Callable] = None            # (case, api, literal, array) -> the lines of a generic repro
    #                           that call `api` as a function of NumPy arrays: literal(value) spells a param value,
    #                           array(value, dtype_name) a 0-d NumPy array; default plain_call (inputs, then params)
    reading: Optional[object] = None                   # oracle.reading.Reading: the sentence-by-sentence record
    # case -> the clause that says this call writes into no input, or None where it writes: an aliased input
    # of a call that writes nothing is just an input (the value is fixed), so no aliasing gap applies
    writes_nothing: Optional[Callable] = None
    #                           of the source document (oracle/readings/<op>.py; docs/SPEC.md shows it)
    clauses: tuple = field(init=False, default=())

    def __post_init__(self):
        built, seen = [], set()
        for row in self.clause_rows:
            cid, kind, section, statement, *flag = row
            if kind not in CLAUSE_KINDS or cid in seen or not section or not statement or flag not in ([], [ADDED]):
                raise ValueError(f"{self.name}: bad clause row {row!r}")
            seen.add(cid)
            built.append(Clause(cid, self.name, kind, statement, section, self.source, bool(flag)))
        prefixes = {c.id.split("-", 1)[0] for c in built}
        if len(prefixes) != 1:
            raise ValueError(f"{self.name}: clause ids must share one prefix, got {sorted(prefixes)}")
        object.__setattr__(self, "clauses", tuple(built))
        object.__setattr__(self, "dtypes", MappingProxyType(dict(self.dtypes)))
        object.__setattr__(self, "exports", MappingProxyType(dict(self.exports)))
        object.__setattr__(self, "generic_outputs",
                           MappingProxyType(dict(self.generic_outputs or {self.outputs[0].name: "result"})))
        if self.generic_call is None:
            object.__setattr__(self, "generic_call", plain_call)

    @property
    def prefix(self) -> str:
        """The clause id prefix of this op ("CL" for CL-FORMULA)."""
        return self.clauses[0].id.split("-", 1)[0]

    @property
    def output_names(self) -> tuple:
        return tuple(f.name for f in self.outputs)

    @property
    def alias_clause(self) -> Optional[str]:
        """The op's aliasing gap clause (alias_gap_row), or None where it lists none (it takes no aliased case)."""
        cid = f"{self.prefix}-{ALIAS_GAP}"
        return cid if any(c.id == cid for c in self.clauses) else None

    def takes_aliases(self) -> bool:
        """Whether the op answers aliased cases (an aliasing gap, or calls that write nothing)."""
        return self.alias_clause is not None or self.writes_nothing is not None

    def api(self, case=None) -> str:
        return self.native_api(case) if self.native_api and case is not None else f"oracle.{self.name}"


def plain_call(case, api, literal, array) -> list:
    """`result = api(inputs..., param=value...)`: the generic repro's call of an op without a syntax of its own."""
    args = [*sorted(case.inputs), *(f"{k}={literal(v)}" for k, v in sorted(case.params.items()))]
    return [f"result = {api}({', '.join(args)})"]


# ---- helpers the decoders share --------------------------------------------------------------

def malformed(case, why: str) -> ValueError:
    return ValueError(f"malformed {case.op} case {case.id}: {why}")


def need_input(case, name: str, inputs=None):
    """inputs[name] (default case.inputs); a case without that input is malformed."""
    if name not in case.inputs:
        raise malformed(case, f"input {name!r} is missing")
    return (case.inputs if inputs is None else inputs)[name]


def own_array(array, inputs):
    """The array a call writes into or reads back: the caller's own where it passed its arrays as `inputs` (so a NumPy
    view among them still aliases it), else a copy of the case's read-only one."""
    import numpy as np
    return np.array(array, copy=True) if inputs is None else array


def need_param(case, name: str):
    if name not in case.params:
        raise malformed(case, f"param {name!r} is missing")
    return case.params[name]

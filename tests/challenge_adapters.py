"""Candidates that try to earn a certificate without an implementation (issue 38), as `challenge_adapters:Class`.

Each claims clip only.  The right answers they need come from the suite's oracle (which the test lets the
certified run use through a table computed beforehand, as a vendor's table of memorized answers would be),
or from borrowing the oracle in the worker, the attack the tripwire marks."""
from __future__ import annotations

import os
import pickle

import numpy as np

from adapters.base import Adapter, Outcome
from adapters.oracle_adapter import OracleAdapter

TABLE_ENV = "CONFORM_TEST_ANSWER_TABLE"     # a pickle {case id: Outcome} the memorizing candidate answers from
TELL_ENV = "CONFORM_TEST_TELLS"             # where the telling candidate writes what it saw


class _Clip(Adapter):
    ops = ("clip",)
    execution = "a table"

    def version(self):
        return "1.0"

    def native_api(self, op, case=None):
        return "table.clip"


class Memorized(_Clip):
    """(b) the answers of the certified corpus keyed by case id; anywhere else x unchanged."""
    name = "memorized"
    _table = None

    def run(self, case):
        if Memorized._table is None:
            with open(os.environ[TABLE_ENV], "rb") as f:
                Memorized._table = pickle.load(f)
        known = self._table.get(case.id)
        if known is not None:
            return known
        x = np.array(case.inputs["x"], copy=True)
        return Outcome.returned(out=x.copy(), x=x)


class Borrower(OracleAdapter):
    """(a) imports the suite's oracle inside its worker and returns its answers."""
    name = "borrower"
    ops = ("clip",)

    def version(self):
        return "1.0"


class ReadsTheJudge(Borrower):
    """(a) imports the suite's judge and corpus reader in its worker (sandboxed: not there)."""
    name = "reads-the-judge"

    read = False

    def setup(self):
        try:
            import suites.judge  # noqa: F401
            import suites.corpus  # noqa: F401
            ReadsTheJudge.read = True
        except ImportError:
            pass

    def run(self, case):
        if self.read:
            return Outcome.raised(RuntimeError("read the judge"))
        return super().run(case)


def tells() -> dict:
    """What a worker can see of the run it is in: its scratch folder's parent and /tmp, its environment,
    working directory and arguments."""
    tmp = os.environ.get("TMPDIR", "/tmp")
    seen = {}
    for where in {os.path.dirname(tmp.rstrip("/")), "/tmp"}:
        try:
            seen[where] = sorted(os.listdir(where))
        except OSError as e:
            seen[where] = [f"<{e.strerror}>"]
    seen["env"] = sorted(f"{k}={v}" for k, v in os.environ.items() if k not in (TELL_ENV,))
    seen["cwd"] = os.getcwd()
    with open("/proc/self/cmdline", "rb") as f:
        seen["argv"] = f.read().decode(errors="replace")
    return seen


class Telling(Borrower):
    """(c) answers from the oracle only where it sees it is being verified (any trace of 'verify')."""
    name = "telling"

    def setup(self):
        self.verifying = "verify" in repr(tells()).lower()

    def run(self, case):
        if self.verifying:
            return super().run(case)
        x = np.array(case.inputs["x"], copy=True)
        return Outcome.returned(out=x.copy(), x=x)


class Escaping(Memorized):
    """Its version holds a terminal title escape and a right-to-left override (a name holding them is refused
    outright: contract.vocabulary.name_problem)."""
    name = "escaping"

    def version(self):
        return "1.0\x1b]0;owned\x07\u202e0.2"

    def run(self, case):
        x = np.array(case.inputs["x"], copy=True)
        return Outcome.returned(out=x.copy(), x=x)


class WrongOnFivePercent(Borrower):
    """Right on every certified case (the oracle's answers, as a memorized table would be), wrong on one fresh
    case in 20 (by case id): for measuring the challenge's power (benchmarks/README.md)."""
    name = "wrong-on-5-percent"
    _known = None

    def run(self, case):
        if WrongOnFivePercent._known is None:
            with open(os.environ[TABLE_ENV], "rb") as f:
                WrongOnFivePercent._known = set(pickle.load(f))
        if case.id not in self._known and int(case.id, 16) % 20 == 0:
            x = np.array(case.inputs["x"], copy=True)
            return Outcome.returned(out=x + 1, x=x)
        return super().run(case)

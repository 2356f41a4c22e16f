"""A run's options as one value, checked once where it is made (the model: Hypothesis's internal/validation.py).

`RunOptions(...)` is what `conform run`, `conform certify`, `verify`, `check-adapter` and the pytest plugin
hand to the run (conform.runner.run) and the session (suites.session.RunSession): a frozen dataclass whose
fields are validated in __post_init__, so a value no run can use is refused before anything starts, with
the message and exit code docs/CLI.md gives, and nothing below re-checks it.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Optional

from contract.vocabulary import EXIT_BAD_INPUT, EXIT_USAGE


class SessionError(Exception):
    """A session that cannot start; `exit_code` says why (contract.vocabulary)."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


# ---- the checks (each raises SessionError; named for what it accepts) ---------------------------

def check_type(typ, value, name: str) -> None:
    if not isinstance(value, typ) or (typ is not bool and isinstance(value, bool)):
        names = " or ".join(t.__name__ for t in (typ if isinstance(typ, tuple) else (typ,)))
        raise SessionError(f"{name} must be {names}, got {value!r}", EXIT_USAGE)


def check_case_timeout(value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not 0 < value < math.inf):
        raise SessionError(f"--case-timeout must be a number of seconds > 0, got {value!r}", EXIT_USAGE)


def check_jobs(value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise SessionError(f"--jobs must be a whole number >= 1, got {value!r}", EXIT_USAGE)


def check_memory_mb(value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SessionError(f"--memory-mb must be a whole number >= 0, got {value!r}", EXIT_USAGE)


def check_expectations_dir(path) -> None:
    """A folder that is not there is bad input: a typo must not silently list no expected divergence."""
    if path is not None and not os.path.isdir(path):
        what = "is not a folder" if os.path.exists(path) else "does not exist"
        raise SessionError(f"--expectations {path}: {what} (it must be a folder of <adapter>.txt files)",
                           EXIT_BAD_INPUT)


def check_ops(ops) -> Optional[tuple]:
    """The ops in the registry's order (None: every op); an unknown one is a usage error."""
    from oracle.registry import ops as registered_ops
    if not ops:
        return None
    known = registered_ops()
    unknown = sorted(set(ops) - set(known))
    if unknown:
        raise SessionError(f"unknown op {', '.join(unknown)}; ops are {', '.join(known)}", EXIT_USAGE)
    return tuple(op for op in known if op in set(ops))


def parse_shard(text):
    """'K/N' -> (K, N) with 1 <= K <= N; None or '' is the whole corpus."""
    if text in (None, ""):
        return 1, 1
    try:
        k, n = (int(x) for x in str(text).split("/"))
    except ValueError:
        raise SessionError(f"--shard must be K/N (e.g. 2/3), got {text!r}", EXIT_USAGE) from None
    if not 1 <= k <= n:
        raise SessionError(f"--shard {text}: need 1 <= K <= N", EXIT_USAGE)
    return k, n


def check_options(case_timeout=None, jobs=1, expectations_dir=None, ops=None) -> None:
    """The option checks of docs/CLI.md that a driver makes before it has a whole RunOptions (the pytest
    plugin, at configure time): the same checks RunOptions makes."""
    check_case_timeout(case_timeout)
    check_jobs(jobs)
    check_expectations_dir(expectations_dir)
    check_ops(ops)


def _frozen(mapping) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class RunOptions:
    """What one run is asked to do (docs/CLI.md, `conform run`).

    `adapters`: names or module:Class (empty: every available adapter).  `corpus`: a path (None: the shipped
    corpus).  `expectations_dir`: a folder the shipped adapters' files are read from; `expectations_files`:
    {target: file} (--expectations [SPEC=]FILE).  `pythons`: {name: interpreter} (--python).  `ops`: run only
    these ops' cases (recorded in the header).  `layouts`: also run each adapter in every layout it declares.
    """

    adapters: tuple = ()
    corpus: Optional[str] = None
    out_dir: str = "conform-out"
    case_timeout: Optional[float] = None
    jobs: int = 1
    in_process: bool = False
    profile: str = "ci"
    resume: bool = False
    shard: Optional[str] = None
    memory_mb: int = 0
    expectations_dir: Optional[str] = None
    expectations_files: Mapping = field(default_factory=dict)
    pythons: Mapping = field(default_factory=dict)
    construction_check: bool = False
    ops: Optional[tuple] = None
    layouts: bool = False

    def __post_init__(self):
        set_ = object.__setattr__.__get__(self)       # normalised once, here; frozen after
        set_("adapters", tuple(self.adapters or ()))
        for a in self.adapters:
            check_type(str, a, "an adapter")
        set_("expectations_files", _frozen(self.expectations_files))
        set_("pythons", _frozen(self.pythons))
        for flag in ("in_process", "resume", "construction_check", "layouts"):
            set_(flag, bool(getattr(self, flag)))
        check_type(str, self.profile, "the profile")
        check_type(str, self.out_dir, "--out")
        check_case_timeout(self.case_timeout)
        check_jobs(self.jobs)
        check_expectations_dir(self.expectations_dir)
        set_("ops", check_ops(self.ops))
        stray = sorted(set(self.expectations_files) - set(self.adapters))
        if stray:
            raise SessionError(f"--expectations names {', '.join(stray)}, which this run does not run", EXIT_USAGE)
        for path in self.expectations_files.values():
            if not os.path.isfile(path):
                raise SessionError(f"--expectations {path}: {'is not a file' if os.path.exists(path) else 'does not exist'}",
                                   EXIT_BAD_INPUT)
        parse_shard(self.shard)
        check_memory_mb(self.memory_mb)
        if self.pythons and self.in_process:
            raise SessionError("--python and --in-process exclude each other: an in-process adapter runs "
                               "in this interpreter", EXIT_USAGE)

    @property
    def slots(self) -> int:
        """The calls run at once: in-process frameworks share one interpreter, so one."""
        return 1 if self.in_process else max(1, int(self.jobs or 1))

    @property
    def shard_k_n(self) -> tuple:
        return parse_shard(self.shard)

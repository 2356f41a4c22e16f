"""How many threads a worker's framework may run: one by default (CONFORM_WORKER_THREADS).

The scheduler (suites/scheduler.py) runs `--jobs` workers at once, one per core.  A framework left to its
defaults sizes its thread pools to the whole machine, so two workers on two cores run four or more busy
threads, and the corpus's tensors are far too small for any op to gain from a pool: on 534 cases of eager
jax the median case took 120 ms with XLA's defaults and 76 ms with one thread (benchmarks/README.md).

The variables go into the worker's environment before its interpreter starts (a framework reads most of
them once, at import).  One the worker already gets from the user (an OMP_ variable, or XLA_FLAGS named in
CONFORM_WORKER_ENV) wins.  CONFORM_WORKER_THREADS=N sets N threads; `default` leaves every framework
to its own defaults.
"""
from __future__ import annotations

from . import settings
from .frameworks import FRAMEWORKS


# NumPy's BLAS, in every worker (the oracle's and each framework's); each framework declares its own
# (adapters/<name>_framework.toml: `threads`, and `one_thread` for what only one thread turns off).
NUMPY = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def variables(n: int = None) -> dict:
    """The variables that cap NumPy's and the declared frameworks' CPU thread pools at `n` threads ({} for 0)."""
    n = settings.WORKER_THREADS if n is None else n
    if not n:
        return {}
    out = dict.fromkeys(NUMPY, str(n))
    for fw in FRAMEWORKS.values():
        out.update(dict.fromkeys(fw.threads, str(n)))
        for name, value in fw.one_thread:
            out[name] = value if n == 1 else ""
    return out


def apply(env: dict) -> dict:
    """`env` (a worker's) with the thread variables it does not already have, and the count itself, for
    a framework that takes it only through its API (in_worker())."""
    for k, v in variables().items():
        if v and k not in env:
            env[k] = v
    env[settings.WORKER_THREADS_ENV] = str(settings.WORKER_THREADS or "default")
    return env


def in_worker() -> int:
    """In a worker: the thread count its framework should use, 0 for the framework's own default."""
    return settings.WORKER_THREADS

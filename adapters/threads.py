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


def variables(n: int = None) -> dict:
    """The variables that cap the shipped frameworks' CPU thread pools at `n` threads ({} for 0)."""
    n = settings.WORKER_THREADS if n is None else n
    if not n:
        return {}
    one = str(n)
    return {
        "OMP_NUM_THREADS": one, "MKL_NUM_THREADS": one, "OPENBLAS_NUM_THREADS": one,    # torch, paddle, NumPy's BLAS
        "TF_NUM_INTRAOP_THREADS": one, "TF_NUM_INTEROP_THREADS": one,                   # tensorflow
        "TORCHINDUCTOR_COMPILE_THREADS": one,       # torch.compile's C++ builds: in the worker, not a pool
        # jax, and tensorflow's XLA (tf.function(jit_compile=True)): Eigen's pool off for one thread
        "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false" if n == 1 else "",
    }


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

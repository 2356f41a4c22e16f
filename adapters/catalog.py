"""What every known adapter says of itself, each asked of a worker under the interpreter that runs it
(`conform adapters`, the default selection).  Above the pool and the registry: the registry names and loads
adapters, the pool starts the workers that answer."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from .environments import InterpreterError, configured, interpreter_for
from .pool import probe
from .registry import AdapterInfo, known, resolve


def info(target: str, python: str = None) -> AdapterInfo:
    """What `conform adapters` prints for one adapter, asked of a worker: the candidate's module is
    never imported in this process.  Never raises for an adapter that is missing or broken."""
    return probe(target, python=python)


def available_adapters(pythons=None, cwd=None) -> list:
    """info() of every known adapter, sorted by name, each asked under the interpreter that runs it
    (adapters.environments: `pythons` from --python, conform.toml, pyproject.toml, setup.sh's
    environments); the workers are asked side by side.  An interpreter that cannot serve makes its
    adapter unavailable, with the reason; a config file that cannot be read raises InterpreterError."""
    names = sorted(known())
    files = configured(cwd)

    def one(name):
        try:
            python = interpreter_for(name, pythons, files=files)
        except InterpreterError as e:
            return AdapterInfo(name, resolve(name), "", False, str(e))
        return info(name, python)

    with ThreadPoolExecutor(max_workers=max(1, min(len(names), 4))) as ex:
        return list(ex.map(one, names))

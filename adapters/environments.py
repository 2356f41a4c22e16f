"""Which Python runs an adapter's worker.

A framework often cannot be installed beside the suite's own packages (mindspore 2.10 needs NumPy 1.x,
the suite's main environment has NumPy 2).  The worker protocol is JSON and raw bytes, so a worker can
run under any interpreter that can import the adapter and the small worker side of this project
(contract/, adapters/, NumPy and ml_dtypes).  For an adapter NAME (a name or the module:Class given to
`--adapter`), the first of these decides:

1. the command line: `conform run --python NAME=PATH` (a relative PATH: from the working directory);
2. `conform.toml` in the working directory, table `[python]`;
3. `pyproject.toml` in the working directory, table `[tool.tensor-conformance.python]`;
4. the environment `scripts/setup.sh` builds for that adapter, where it exists (its framework's declaration,
   adapters/<name>_framework.toml);
5. this interpreter.

In the two files a relative PATH is taken from the file's folder.  docs/CLI.md documents the same.
"""
from __future__ import annotations

import os
import sys

from contract.vocabulary import EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_USAGE

from .registry import SHIPPED, split_construction

try:
    import tomllib
except ImportError:         # Python 3.10
    import tomli as tomllib

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The adapters whose pinned framework cannot share the main environment, and the folder (from the checkout's
# root) of the environment scripts/setup.sh builds for each (adapters/<name>_framework.toml says why).
ENVIRONMENTS = {name: row.environment for name, row in SHIPPED.items() if row.environment}

CONFORM_TOML = "conform.toml"
PYPROJECT = "pyproject.toml"


class InterpreterError(Exception):
    """A --python option, a config file or an interpreter that cannot serve; `exit_code` says which."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def parse_option(items) -> dict:
    """['NAME=PATH', ...] from the command line -> {NAME: absolute PATH}; a malformed item is a usage error."""
    out = {}
    for item in items or ():
        name, eq, path = str(item).partition("=")
        name, path = name.strip(), path.strip()
        if not eq or not name or not path:
            raise InterpreterError(f"--python must be NAME=PATH (e.g. mindspore=.venv-mindspore/bin/python), "
                                   f"got {item!r}", EXIT_USAGE)
        if name in out:
            raise InterpreterError(f"--python gives {name!r} twice", EXIT_USAGE)
        out[name] = os.path.abspath(os.path.expanduser(path))
    return out


def configured(cwd=None) -> dict:
    """{NAME: (absolute PATH, where it was set)} from conform.toml and pyproject.toml in `cwd`.

    conform.toml wins over pyproject.toml.  A file that is not valid TOML, or whose table holds anything
    but NAME = "PATH" strings, raises InterpreterError (exit 3) naming the file."""
    cwd = os.path.abspath(cwd or os.getcwd())
    found = {}
    for fname, keys in ((PYPROJECT, ("tool", "tensor-conformance", "python")), (CONFORM_TOML, ("python",))):
        path = os.path.join(cwd, fname)
        table = _table(path, keys)
        where = f"{path} [{'.'.join(keys)}]"
        for name, value in table.items():
            if not isinstance(value, str) or not value.strip():
                raise InterpreterError(f"{where}: {name} must be a path string, got {value!r}", EXIT_BAD_INPUT)
            found[name] = (os.path.join(cwd, os.path.expanduser(value.strip())), where)
    return found


def _table(path, keys) -> dict:
    if not os.path.exists(path):
        return {}
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InterpreterError(f"{path}: cannot read it as TOML: {e}", EXIT_BAD_INPUT) from None
    for depth, key in enumerate(keys):
        doc = doc.get(key, {})
        if not isinstance(doc, dict):
            raise InterpreterError(f"{path}: [{'.'.join(keys[:depth + 1])}] must be a table", EXIT_BAD_INPUT)
    return doc


def default_for(name: str) -> str:
    """The python of the environment setup.sh built for `name` where it exists, else this interpreter."""
    env = ENVIRONMENTS.get(name)
    if env:
        python = os.path.join(_ROOT, env, "bin", "python")
        if os.path.isfile(python) and os.access(python, os.X_OK):
            return python
    return sys.executable


def choose(name: str, overrides=None, cwd=None, files=None) -> tuple:
    """(PATH, where it was set) for adapter `name`: overrides (the command line), files, default.

    `files`: configured(cwd), when the caller has read them already.  A construction variant
    (NAME@WAY) runs where NAME runs."""
    name = split_construction(name)[0]
    if overrides and name in overrides:
        return overrides[name], "--python"
    files = configured(cwd) if files is None else files
    if name in files:
        return files[name]
    python = default_for(name)
    return python, ("this interpreter" if python == sys.executable else f"the {ENVIRONMENTS[name]} environment")


def interpreter_for(name: str, overrides=None, cwd=None, files=None) -> str:
    """The interpreter that runs adapter `name`'s worker (checked: an executable file).  The one place
    that decides it: the run session (conform run, certify, verify, pytest), certify's probe and
    catalog.available_adapters (conform adapters) all ask here.

    Raises InterpreterError: exit 3 for a bad config file, exit 5 for a path that is no interpreter."""
    python, where = choose(name, overrides, cwd, files)
    check(python, f"{name} (set by {where})")
    return python


def check(python: str, what: str) -> None:
    if os.path.isdir(python):
        raise InterpreterError(f"the Python for adapter {what} is a folder, not an interpreter: {python}",
                               EXIT_ADAPTER)
    if not os.path.isfile(python):
        raise InterpreterError(f"the Python for adapter {what} does not exist: {python}", EXIT_ADAPTER)
    if not os.access(python, os.X_OK):
        raise InterpreterError(f"the Python for adapter {what} is not executable: {python}", EXIT_ADAPTER)


def is_this_interpreter(python) -> bool:
    # Paths, not resolved links: a virtual environment's python is a link to the base interpreter, and
    # which environment it runs is told by the path it was started by.
    return python is None or os.path.abspath(python) == os.path.abspath(sys.executable)

"""One declaration per framework: `adapters/<name>_framework.toml`, beside the adapter module it declares.

A declaration says, once, all the harness and the install scripts know of a framework: the distributions and
the release its adapters were verified against (`pin`), the other releases `conform run --release` may run,
the environment scripts/setup.sh builds for its workers and what else goes into it, the thread variables that
cap its pools, what CI runs there, and for each of its adapters the class, the eager twin of a compiled mode,
the compile cache and the CI sample.  Everything else is derived from it: registry.SHIPPED (and BUILTIN,
MODES), environments.ENVIRONMENTS, threads.variables(), the adapters' `pin`, scripts/setup.sh's and .ci/run's
lists (through the command below), and tests/test_framework_declarations.py holds pyproject.toml and the
docs' adapter table to it.  Adding a framework is its adapter module, this file and its expectations file
(tests/test_adding_a_framework.py does it).

This module imports nothing outside the standard library, so that scripts/setup.sh can run it with the
machine's own python3 before any environment exists (-I: not the script's folder on sys.path either):

    python3 -I adapters/frameworks.py environments         # NAME FOLDER, one environment a line
    python3 -I adapters/frameworks.py requirements [NAME]  # pip requirement lines ("" or none: the main one)
    python3 -I adapters/frameworks.py ci-tests NAME        # the test files CI runs in NAME's environment
    python3 -I adapters/frameworks.py pins                 # DISTRIBUTION==PIN, one a line
"""
from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass

try:
    import tomllib
except ImportError:         # Python 3.10
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIX = "_framework.toml"
MAIN = ""       # the main environment (.venv), which the suite itself runs in


@dataclass(frozen=True)
class Declared:
    """One adapter of a framework, as its declaration gives it."""
    name: str                   # the name `--adapter` takes
    class_path: str             # module:Class, found from a plain checkout that was never pip-installed
    twin: str = ""              # a compiled mode's eager twin (suites/variants.py holds it to the twin's answer)
    compile_cache: bool = False     # its framework keeps compiled kernels in a folder the harness gives it
    sampled: bool = False       # pytest runs it on the corpus's stratified sample (every new shape costs a compile)


@dataclass(frozen=True)
class Framework:
    """One framework: where it comes from, where it runs, and its adapters."""
    name: str                   # its declaration's name (<name>_framework.toml) and its environment's key
    source: str                 # the declaration file
    distributions: tuple = ()   # what pip installs at `pin` and a certificate records the versions of
    pin: str = ""               # the release its adapters were verified against (the default release)
    releases: tuple = ()        # other releases `conform run --release` runs (adapters/releases.py): all of
                                # them, default first, where no pin is declared
    release_package: str = ""   # the distribution those releases are of (default: the first distribution)
    release_needs: tuple = ()   # what else a release's environment gets (pip requirement strings)
    environment: str = MAIN     # the folder of the environment scripts/setup.sh builds for its workers
    needs: tuple = ()           # what else that environment gets (pip requirement strings)
    uses: tuple = ()            # other frameworks installed beside it, at their own pins (pypto needs torch)
    threads: tuple = ()         # variables set to the worker's thread count (adapters/threads.py)
    one_thread: tuple = ()      # (variable, value) pairs set only when that count is one
    ci_tests: tuple = ()        # globs of the test files CI runs in its environment (.ci/run)
    adapters: tuple = ()        # Declared, in the order of the file

    @property
    def all_releases(self) -> tuple:
        """Its default release first, then the others; () when it declares no others."""
        if not self.releases:
            return ()
        return self.releases if not self.pin or self.releases[0] == self.pin else (self.pin, *self.releases)

    def requirements(self) -> list:
        return [f"{d}=={self.pin}" for d in self.distributions] + list(self.needs)


class DeclarationError(ValueError):
    """A declaration file that does not say what it must; the message names the file."""


_FIELDS = {"distributions", "pin", "releases", "release_package", "release_needs", "environment", "needs", "uses",
           "threads", "one_thread", "ci_tests", "adapter"}
_ADAPTER_FIELDS = {"name", "class", "twin", "compile_cache", "sampled"}


def _read(path: str) -> Framework:
    name = os.path.basename(path)[:-len(SUFFIX)]
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DeclarationError(f"{path}: cannot read it as TOML: {e}") from None
    unknown = set(doc) - _FIELDS
    if unknown:
        raise DeclarationError(f"{path}: unknown field(s) {sorted(unknown)}; a declaration has {sorted(_FIELDS)}")
    declared = []
    for row in doc.get("adapter", ()):
        if set(row) - _ADAPTER_FIELDS or "name" not in row or "class" not in row:
            raise DeclarationError(f"{path}: an [[adapter]] has name and class, and may have twin, compile_cache, "
                                   f"sampled; got {sorted(row)}")
        declared.append(Declared(row["name"], row["class"], row.get("twin", ""), bool(row.get("compile_cache")),
                                 bool(row.get("sampled"))))
    if not declared:
        raise DeclarationError(f"{path}: declares no [[adapter]]")
    dists = tuple(doc.get("distributions", ()))
    if dists and not doc.get("pin"):
        raise DeclarationError(f"{path}: distributions {list(dists)} need the pin they were verified against")
    return Framework(name=name, source=path, distributions=dists, pin=doc.get("pin", ""),
                     releases=tuple(doc.get("releases", ())),
                     release_package=doc.get("release_package", "") or (dists[0] if dists else ""),
                     release_needs=tuple(doc.get("release_needs", ())), environment=doc.get("environment", MAIN),
                     needs=tuple(doc.get("needs", ())), uses=tuple(doc.get("uses", ())),
                     threads=tuple(doc.get("threads", ())),
                     one_thread=tuple(tuple(p) for p in doc.get("one_thread", {}).items()),
                     ci_tests=tuple(doc.get("ci_tests", ())), adapters=tuple(declared))


def declarations(folder: str = HERE) -> tuple:
    """Every framework declared in `folder`, by file name."""
    found = tuple(_read(p) for p in sorted(glob.glob(os.path.join(folder, "*" + SUFFIX))))
    names = [a.name for fw in found for a in fw.adapters]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DeclarationError(f"adapter name(s) declared twice in {folder}: {twice}")
    return found


FRAMEWORKS = {fw.name: fw for fw in declarations()}


def pin(name: str) -> str:
    """The release framework `name` (its declaration's name) was verified against."""
    return FRAMEWORKS[name].pin


def requirements(name: str) -> list:
    """What installs framework `name`: its requirement lines, then those of the frameworks it uses."""
    fw = FRAMEWORKS[name]
    return fw.requirements() + [r for u in fw.uses for r in requirements(u)]


def environment_requirements(environment: str = MAIN) -> list:
    """The requirement lines of every framework that runs in `environment` (a folder, "" for the main one),
    each once."""
    out = []
    for fw in FRAMEWORKS.values():
        if fw.environment == environment:
            out += [line for line in requirements(fw.name) if line not in out]
    return out


def environments() -> dict:
    """{framework name: environment folder} for each framework that has an environment of its own."""
    return {fw.name: fw.environment for fw in FRAMEWORKS.values() if fw.environment != MAIN}


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    what, rest = (args[0], args[1:]) if args else ("", [])
    if what == "environments" and not rest:
        for name, folder in environments().items():
            print(name, folder)
    elif what == "requirements" and len(rest) <= 1:
        name = rest[0] if rest else MAIN
        if name and name not in environments():
            print(f"no environment {name!r}; the declared ones: {', '.join(environments())}", file=sys.stderr)
            return 2
        print("\n".join(environment_requirements(environments().get(name, MAIN))))
    elif what == "ci-tests" and len(rest) == 1 and rest[0] in FRAMEWORKS:
        root = os.path.dirname(HERE)
        for pattern in FRAMEWORKS[rest[0]].ci_tests:
            for path in sorted(glob.glob(os.path.join(root, pattern))):
                print(os.path.relpath(path, root))
    elif what == "pins" and not rest:
        for fw in FRAMEWORKS.values():
            for line in fw.requirements()[:len(fw.distributions)]:
                print(line)
    else:
        print(__doc__.split("\n\n")[-1].rstrip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

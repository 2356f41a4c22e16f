"""Releases as data: an environment per (adapter, release), made on demand with uv and kept outside the checkout.

A shipped adapter's framework declares the releases it runs (adapters/<name>_framework.toml: `releases`, of
`release_package`, with `release_needs` beside it; registry.SHIPPED's rows carry them, the default pin first).  `conform run --release NAME=VERSION` (NAME the
adapter, or its release package when one adapter has it) asks `ensure()` for that release's interpreter and
runs the adapter's worker there, as `--python NAME=PATH` would (adapters/environments.py).

Environments live in RELEASES_DIR (default ~/.cache/tensor-conformance/releases, or
$TENSOR_CONFORMANCE_RELEASES), one folder `<package>-<version>-py<X.Y>` each, reused by every later run.  A
folder is complete once its `release.json` is written (last); an incomplete one (a killed build) is removed
and made again.  Two runs asking for the same release take the folder's lock (an flock, dropped by the kernel
when its holder dies): the second waits and reuses what the first built.  The worker side needs only
contract/ and adapters/ (on PYTHONPATH, adapters/pool.py), NumPy and ml_dtypes, so an environment holds the
release, `release_needs` and nothing of the project.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time

from contract.vocabulary import EXIT_ADAPTER, EXIT_USAGE

from .registry import SHIPPED

ENV_DIR = "TENSOR_CONFORMANCE_RELEASES"
UNLISTED_NOTE = "unlisted release"      # recorded in the run's header for a release no row declares


class ReleaseError(Exception):
    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def releases_dir() -> str:
    return os.environ.get(ENV_DIR) or os.path.join(os.path.expanduser("~"), ".cache", "tensor-conformance",
                                                   "releases")


def declared() -> dict:
    """{adapter name: (package, releases)} of every shipped row that declares releases."""
    return {name: (row.release_package, row.releases) for name, row in SHIPPED.items() if row.releases}


def parse(item: str, allow_unlisted: bool = False) -> tuple:
    """'array-api:numpy=2.0.2' or 'numpy=2.0.2' -> (adapter name, package, version); ReleaseError (exit 2)
    for a malformed item, an adapter declaring no releases, or a release it does not declare (unless
    `allow_unlisted`: then it runs, and the header says so)."""
    name, eq, ver = str(item).rpartition("=")
    name, ver = name.strip(), ver.strip()
    if not eq or not name or not ver:
        raise ReleaseError(f"--release must be NAME=VERSION (e.g. array-api:numpy=2.0.2), got {item!r}", EXIT_USAGE)
    table = declared()
    if name not in table:
        by_package = [a for a, (pkg, _) in table.items() if pkg == name]
        if len(by_package) != 1:
            known = ", ".join(f"{a} ({pkg} {' '.join(r)})" for a, (pkg, r) in sorted(table.items()))
            raise ReleaseError(f"--release {item}: {name!r} declares no releases; adapters that do: {known}",
                               EXIT_USAGE)
        name = by_package[0]
    package, listed = table[name]
    if ver not in listed and not allow_unlisted:
        raise ReleaseError(f"--release {item}: {name} declares {package} {', '.join(listed)}; "
                           f"--any-release runs another one and records that it is unlisted", EXIT_USAGE)
    return name, package, ver


def expand(adapter: str, releases: str) -> list:
    """'1.26.4..2.2.6' -> the adapter's declared releases from one to the other, oldest first ('x' in a
    part, '2.4.x', is any patch); a comma list is taken as it is."""
    package, listed = declared().get(adapter, ("", ()))
    ordered = sorted(listed, key=version_key)
    if ".." not in releases:
        return [v.strip() for v in releases.split(",") if v.strip()]
    lo, _, hi = releases.partition("..")
    lo_i = next((i for i, v in enumerate(ordered) if _matches(v, lo.strip())), None)
    hi_i = next((i for i, v in reversed(list(enumerate(ordered))) if _matches(v, hi.strip())), None)
    if lo_i is None or hi_i is None or lo_i > hi_i:
        raise ReleaseError(f"releases {releases!r}: {adapter} declares {package} {', '.join(ordered)}", EXIT_USAGE)
    return ordered[lo_i:hi_i + 1]


def _matches(version: str, pattern: str) -> bool:
    if pattern.endswith(".x"):
        return version.startswith(pattern[:-1])
    return version == pattern


def version_key(v: str) -> tuple:
    out = []
    for part in v.split("."):
        digits = "".join(c for c in part if c.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def folder(package: str, ver: str) -> str:
    return os.path.join(releases_dir(), f"{package}-{ver}-py{sys.version_info[0]}.{sys.version_info[1]}")


def python_of(path: str) -> str:
    return os.path.join(path, "bin", "python")


def _uv() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "uv")
    found = here if os.path.isfile(here) else shutil.which("uv")
    if not found:
        raise ReleaseError("uv is needed to make a release's environment (pip install uv)", EXIT_ADAPTER)
    return found


def ensure(adapter: str, ver: str, log=None) -> dict:
    """The environment of `adapter`'s release `ver`, made if missing: {"python", "folder", "install_s",
    "disk_mb", "reused"}.  ReleaseError (exit 5) when uv cannot make it (the message holds uv's last lines)."""
    row = SHIPPED[adapter]
    path = folder(row.release_package, ver)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # a second run for the same release waits here, then reuses
        marker = os.path.join(path, "release.json")
        if os.path.isfile(marker):
            with open(marker, encoding="utf-8") as f:
                info = json.load(f)
            return {**info, "python": python_of(path), "folder": path, "reused": True}
        if os.path.exists(path):
            shutil.rmtree(path)                 # a build that was killed half-way
        if log:
            log(f"making {row.release_package} {ver}'s environment in {path} (uv)")
        t0 = time.monotonic()
        pyver = f"{sys.version_info[0]}.{sys.version_info[1]}"
        try:
            _call([_uv(), "venv", "--quiet", "--python", pyver, path])
            _call([_uv(), "pip", "install", "--quiet", "--python", python_of(path),
                   f"{row.release_package}=={ver}", *(n.replace("{release}", ver) for n in row.release_needs)])
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)     # nothing half-made stays for the next run to trust
            raise
        info = {"adapter": adapter, "package": row.release_package, "version": ver,
                "install_s": round(time.monotonic() - t0, 1), "disk_mb": round(_disk(path) / 2**20, 1)}
        tmp = marker + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(info, f)
        os.replace(tmp, marker)
        return {**info, "python": python_of(path), "folder": path, "reused": False}


def _call(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        tail = "\n".join(p.stdout.strip().splitlines()[-5:])
        raise ReleaseError(f"{' '.join(argv[:3])}... failed (exit {p.returncode}):\n{tail}", EXIT_ADAPTER)


def _disk(path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            fp = os.path.join(root, f)
            if not os.path.islink(fp):
                total += os.path.getsize(fp)
    return total


def in_range(ver: str, releases: str) -> bool:
    """Whether release `ver` is one `releases` names: 'A..B' (inclusive, either side may be left open: '..2.0.x',
    '2.1.3..'), or a comma list; a part ending '.x' is any release of that series ('2.0.x')."""
    if not ver:
        return False
    if ".." in releases:
        lo, _, hi = (p.strip() for p in releases.partition(".."))
        key = version_key(ver)
        above = not lo or key >= version_key(lo.removesuffix(".x"))
        top = version_key(hi.removesuffix(".x"))
        # '..2.0.x' holds for every 2.0 release: compare the series only
        below = not hi or (key[:len(top)] <= top if hi.endswith(".x") else key <= top)
        return above and below
    return any(_matches(ver, p.strip()) for p in releases.split(","))


def range_problem(releases: str) -> str:
    """'' for a release list or range in_range() reads; else why not."""
    import re
    part = r"\d+(\.(\d+|x))*([a-z]+\d*)?"
    if re.fullmatch(rf"({part})?\s*\.\.\s*({part})?", releases) and releases.strip() != "..":
        return ""
    if all(re.fullmatch(part, p.strip()) for p in releases.split(",")):
        return ""
    return f"releases {releases!r}: write A..B (either side may be left open), or a comma list; 2.0.x: any 2.0 release"

"""Where a shipped compiled mode keeps its compiled kernels between runs (docs/DESIGN.md, "Execution modes").

A compiled mode pays for each new graph once per process (torch.compile: about a second of C++ build);
in a worker's scratch folder, which goes with the worker, every run and every restarted worker pays again.
So the harness gives each shipped adapter marked compile_cache (adapters/registry.py, SHIPPED) a folder of its own that outlives the run:
$CONFORM_COMPILE_CACHE/<adapter name> (default $XDG_CACHE_HOME/tensor-conformance/compile, or
~/.cache/...; "off": none, every worker compiles from nothing).  The worker finds its folder in
CONFORM_COMPILE_CACHE_FOLDER (FOLDER_ENV; the user's CONFORM_COMPILE_CACHE is not passed on), and a sandboxed
one may write there and nowhere else outside its scratch folder.

Which adapters get one is decided here from the target the harness was given, never by the candidate: a
candidate's folder would be state it carries from one run into the next, and a folder shared between two
adapters would let one write what the other loads.  The framework's own cache keys its entries on the
graph, the inputs' types, its config and its version, so a kept entry gives the kernel a fresh build would.
Standard library only (the pool imports it before any framework).
"""
from __future__ import annotations

import os
import threading

from . import folders

ENV = "CONFORM_COMPILE_CACHE"                   # the user's: the root folder, or "off"
FOLDER_ENV = "CONFORM_COMPILE_CACHE_FOLDER"     # the harness's to one worker: that adapter's own folder


def root(environ) -> str:
    """The folder holding every adapter's compile cache, or "" where the user turned it off."""
    given = environ.get(ENV, "").strip()
    if given.lower() == "off":
        return ""
    if given:
        return os.path.abspath(os.path.expanduser(given))
    xdg = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "tensor-conformance", "compile")


def writable_problem(environ) -> str:
    """'' unless a folder of CONFORM_WORKER_WRITABLE holds the kept caches, is their root or lies inside it;
    else the one-line reason the run is refused.  Every worker may write those folders, and a kept kernel is
    code a later compiled run loads: a candidate could change another adapter's answers in a later run."""
    from .sandbox import WRITABLE_ENV
    for given in environ.get(WRITABLE_ENV, "").split(os.pathsep):
        if given.strip() and holds_cache(given.strip(), environ):
            return (f"{WRITABLE_ENV} names {given.strip()}, which holds the kept compile caches "
                    f"({root(environ)}) or lies in them: every worker could write code a later compiled run "
                    f"loads; name another folder, or move the caches ({ENV}=FOLDER, or {ENV}=off)")
    return ""


def holds_cache(folder: str, environ) -> bool:
    """Whether a worker allowed to write `folder` could write a kept compile cache: `folder` is the caches'
    root, above it, or inside it (links resolved).  For the sandbox's own check of every writable folder."""
    base = root(environ)
    if not base:
        return False
    base = os.path.realpath(base)
    w = os.path.realpath(os.path.abspath(os.path.expanduser(folder)))
    return os.path.commonpath([w, base]) in (w, base)


def folder(target: str, environ) -> str:
    """The compile-cache folder of the adapter `target` names (made if missing), or "" for none: an adapter
    not marked compile_cache, a cache turned off, or a folder that cannot be made (the run then compiles anew)."""
    from .registry import SHIPPED, shipped_name, split_construction
    name = shipped_name(target)
    base = root(environ)
    row = SHIPPED.get(name)
    if row is None or not row.compile_cache or split_construction(target)[1] or not base:
        return ""
    path = os.path.join(base, name)
    try:
        if os.path.islink(path):
            return ""
        os.makedirs(path, mode=0o700, exist_ok=True)
        return path if os.access(path, os.W_OK) else ""
    except OSError:
        return ""


# ---- sealed between runs ----------------------------------------------------------------------------------
# Only the workers of the adapter that owns a folder may write it (the sandbox binds it for them alone, and a
# CONFORM_WORKER_WRITABLE over the caches is refused: writable_problem).  Between runs nobody may: when the last
# harness using a folder lets it go, it seals it (each file's path, size, inode and ctime, which no
# unprivileged process can set back) in ROOT/.sealed/NAME.json, out of every worker's reach; the next harness
# to take it checks the seal first and starts from an empty folder where anything changed or no seal is left
# (a run that was killed).  A harness that finds the folder in use by another (its lock held) trusts that
# run's writes, which are the owning adapter's own.
SEALS = ".sealed"


def _seal_paths(path: str) -> tuple:
    base, name = os.path.split(os.path.abspath(path))
    seals = os.path.join(base, SEALS)
    os.makedirs(seals, mode=0o700, exist_ok=True)
    return os.path.join(seals, name + ".lock"), os.path.join(seals, name + ".json")


def _inventory(path: str) -> dict:
    out = {}
    for top, dirs, files in os.walk(path):
        for n in dirs + files:
            p = os.path.join(top, n)
            st = os.lstat(p)
            out[os.path.relpath(p, path)] = [st.st_mode, st.st_size, st.st_ino, st.st_ctime_ns]
    return out


_held = {}          # folder -> [lock fd, users in this process]
_claim_lock = threading.Lock()


def claim(path: str) -> str:
    """Take the folder for a worker of this process; "" or a note saying what was discarded and why."""
    import fcntl
    import json
    with _claim_lock:
        if path in _held:
            _held[path][1] += 1
            return ""
        lock, seal = _seal_paths(path)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        note = ""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:         # another harness runs with it: its writes are the owner's
            fcntl.flock(fd, fcntl.LOCK_SH)
        else:
            try:
                with open(seal) as f:
                    sealed = json.load(f)
            except (OSError, ValueError):
                sealed = None
            found = _inventory(path)
            if found and sealed != found:
                changed = sorted(k for k in set(found) | set(sealed or {}) if (sealed or {}).get(k) != found.get(k))
                note = (f"the kept compile cache {path} " + ("had no seal (its last run did not finish)" if sealed is None
                        else f"changed since its last run sealed it ({len(changed)} entries, e.g. {changed[0]})")
                        + ": discarded, compiling anew")
                folders.empty(path)
            if os.path.exists(seal):
                os.unlink(seal)         # in use: a run killed from now on leaves no seal
            fcntl.flock(fd, fcntl.LOCK_SH)
        _held[path] = [fd, 1]
        return note


def release(path: str) -> None:
    """Let the folder go; the last harness to do so seals it."""
    import fcntl
    import json
    with _claim_lock:
        held = _held.get(path)
        if held is None:
            return
        held[1] -= 1
        if held[1] > 0:
            return
        fd = held[0]
        del _held[path]
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:         # another harness still runs with it: it seals
            os.close(fd)
            return
        try:
            _, seal = _seal_paths(path)
            tmp = seal + ".tmp"
            with open(tmp, "w") as f:
                json.dump(_inventory(path), f)
            os.replace(tmp, seal)
        except OSError:
            pass
        finally:
            os.close(fd)

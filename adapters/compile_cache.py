"""Where a shipped compiled mode keeps its compiled kernels between runs (docs/DESIGN.md, "Execution modes").

A compiled mode pays for each new graph once per process (torch.compile: about a second of C++ build);
in a worker's scratch folder, which goes with the worker, every run and every restarted worker pays again.
So the harness gives each shipped adapter marked compile_cache (adapters/registry.py, SHIPPED) a folder of its own that outlives the run:
$CONFORM_COMPILE_CACHE/<adapter name> (default $XDG_CACHE_HOME/tensor-conformance/compile, or
~/.cache/...; "off": none, every worker compiles from nothing).  The worker finds its folder in
CONFORM_COMPILE_CACHE_FOLDER (FOLDER_ENV; the user's CONFORM_COMPILE_CACHE is not passed on), and a sandboxed
one may write there and nowhere else outside its scratch folder.

Which adapters get one is decided here from the spec the harness was given, never by the candidate: a
candidate's folder would be state it carries from one run into the next, and a folder shared between two
adapters would let one write what the other loads.  The framework's own cache keys its entries on the
graph, the inputs' types, its config and its version, so a kept entry gives the kernel a fresh build would.
Standard library only (the pool imports it before any framework).
"""
from __future__ import annotations

import os

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


def folder(spec: str, environ) -> str:
    """The compile-cache folder of the adapter `spec` names (made if missing), or "" for none: an adapter
    not marked compile_cache, a cache turned off, or a folder that cannot be made (the run then compiles anew)."""
    from .registry import SHIPPED, shipped_name, split_construction
    name = shipped_name(spec)
    base = root(environ)
    row = SHIPPED.get(name)
    if row is None or not row.compile_cache or split_construction(spec)[1] or not base:
        return ""
    path = os.path.join(base, name)
    try:
        if os.path.islink(path):
            return ""
        os.makedirs(path, mode=0o700, exist_ok=True)
        return path if os.access(path, os.W_OK) else ""
    except OSError:
        return ""

"""What an adapter is, for a certificate: the file that defines its class, and the installed distribution
that provides its module (name, version, a hash over its files).

Measured in the adapter's worker (`python -m adapters.worker SPEC --probe --identify`, adapters.pool.probe),
in the interpreter that runs it: the candidate's module is never imported in the harness.  The byte format
of each hash is in docs/CERTIFY.md; conform/certify.py records them and conform/verify.py compares.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import os
import sys

from contract.results import file_sha256


def identify(cls) -> dict:
    """{"module", "class", "source_sha256", "package": {...} or None, "package_note"} of an adapter class."""
    source = source_file(cls)
    identity = {"module": cls.__module__, "class": cls.__qualname__,
                "source_sha256": file_sha256(source) if source else "", "package": None, "package_note": ""}
    if not source:
        identity["package_note"] = f"{cls.__module__} has no source file"
        return identity
    identity["package"], identity["package_note"] = package_of(cls.__module__, source)
    return identity


def source_file(cls) -> str:
    try:
        return inspect.getsourcefile(cls) or ""
    except TypeError:
        return getattr(sys.modules.get(cls.__module__), "__file__", "") or ""


def package_of(module: str, source: str):
    """(the distribution that provides `module`, a note) -- (None, why) when no installed one does.

    Candidates are the distributions importlib.metadata maps the module's top-level package to; the one
    whose file list holds the module's source file wins (else the first: an editable install lists no
    sources, and then `contains_module` is false and only source_sha256 covers the adapter's code)."""
    top = module.split(".", 1)[0]
    names = list(dict.fromkeys(importlib.metadata.packages_distributions().get(top, [])))
    if not names:
        return None, f"{top} is not part of an installed distribution (imported from {os.path.dirname(source)})"
    here = os.path.realpath(source)
    chosen = None
    for name in names:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        holds = any(os.path.realpath(str(f.locate())) == here for f in dist.files or ())
        if chosen is None or (holds and not chosen[1]):
            chosen = (dist, holds)
    if chosen is None:
        return None, f"no installed distribution of {', '.join(names)} could be read"
    dist, holds = chosen
    digest, count = distribution_sha256(dist)
    note = "" if holds else (f"{dist.metadata['Name']}'s files do not include {module} (an editable install, or "
                             f"the module is imported from elsewhere): its hash does not cover the adapter's code")
    return {"name": dist.metadata["Name"], "version": dist.version, "sha256": digest, "files": count,
            "contains_module": holds}, note


# Written by the installer, not part of the package: where and how it was installed (PEP 376, 610, 627).
INSTALL_RECORDS = ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")


def distribution_sha256(dist) -> tuple:
    """("sha256:<hex>", number of files hashed) over the files the distribution lists (its RECORD).

    The hashed bytes: one line "<path>\\t<hex sha256 of the file's bytes>\\n" per listed file, sorted by
    path (as listed: '/'-separated, relative to the install folder), "missing" in place of the hex for a
    listed file that is not there.  Left out, so one package installed anywhere hashes the same: the
    installer's own records in the .dist-info folder (INSTALL_RECORDS), anything under __pycache__, and
    files outside the install folder (paths starting with "..": console scripts, which name the interpreter)."""
    lines = []
    for f in sorted(dist.files or (), key=str):
        rel = str(f).replace(os.sep, "/")
        if ("__pycache__" in f.parts or rel.startswith("../")
                or (f.name in INSTALL_RECORDS and f.parent.name.endswith(".dist-info"))):
            continue
        try:
            digest = file_sha256(f.locate())[len("sha256:"):]
        except OSError:
            digest = "missing"
        lines.append(f"{rel}\t{digest}\n")
    return "sha256:" + hashlib.sha256("".join(lines).encode()).hexdigest(), len(lines)

"""`conform certify`: run the corpus on one adapter (profile `certify`), then write its certificate.

The run is conform.runner.run limited to the claimed ops (`--op`, default the
adapter's own `ops`); the certificate is reports.certify's, built from the
results file plus the adapter's identity measured here: the source file that
defines the adapter class, and the installed distribution that provides its
module (name, version, a hash over its files).  The byte format of every hash
is in docs/CERTIFY.md; conform/verify.py recomputes them.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import os
import sys
from pathlib import Path

from contract.vocabulary import EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE

from . import runner

PROFILE = "certify"


class CertifyError(RuntimeError):
    """The adapter cannot be certified as asked; exit_code is the command's exit code (docs/CLI.md)."""

    def __init__(self, message, exit_code=EXIT_ADAPTER):
        super().__init__(message)
        self.exit_code = exit_code


def certify(adapter_spec: str, out_dir, ops=None, corpus=None, in_process=False, case_timeout=None, resume=False,
            jobs=1) -> dict:
    """Run the claimed ops' cases of the corpus (default: the shipped one) on one adapter; write
    out_dir/results.jsonl, report.html, summary.json and certificate.json; return the certificate."""
    from reports.certify import write_certificate
    adapter = load_adapter(adapter_spec)
    claims = claimed_ops(adapter, ops)
    identity = adapter_identity(adapter_spec)
    out = Path(out_dir)
    result = runner.run([adapter_spec], corpus=corpus, out_dir=str(out), case_timeout=case_timeout, jobs=jobs,
                        in_process=in_process, profile=PROFILE, resume=resume, ops=claims)
    if result.exit_code not in (EXIT_OK, EXIT_DIVERGED):
        raise CertifyError(result.message or f"the run stopped with exit code {result.exit_code}", result.exit_code)
    if not Path(result.results_path).is_file():
        raise CertifyError(f"the run wrote no results file at {result.results_path}", EXIT_BAD_INPUT)
    return write_certificate(result.results_path, out, adapter_spec=adapter_spec, identity=identity)


def load_adapter(spec):
    """The adapter instance, available; CertifyError(EXIT_ADAPTER) before any corpus is read or folder made."""
    from adapters.registry import AdapterError, load
    try:
        adapter = load(spec)
        ok, reason = adapter.available()
    except AdapterError as e:
        raise CertifyError(str(e)) from None
    if not ok:
        raise CertifyError(f"adapter {spec!r} is not available: {reason}")
    return adapter


def claimed_ops(adapter, ops=None) -> list:
    """The ops certified: those asked for (each must be one the adapter implements), else all it implements."""
    from contract.case import OPS
    declared = [op for op in OPS if op in adapter.ops]
    if not ops:
        return declared
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise CertifyError(f"--op {', '.join(unknown)}: not an op; ops are {', '.join(OPS)}", EXIT_USAGE)
    foreign = [op for op in ops if op not in declared]
    if foreign:
        raise CertifyError(f"--op {', '.join(foreign)}: adapter {adapter.name} does not implement "
                           f"{'it' if len(foreign) == 1 else 'them'} (its ops: {', '.join(declared)})", EXIT_USAGE)
    return [op for op in OPS if op in ops]


# ---- the adapter's identity ------------------------------------------------------------------------

def adapter_identity(spec: str) -> dict:
    """{"module", "class", "source_sha256", "package": {...} or None, "package_note"} of an adapter spec."""
    from adapters.registry import AdapterError, load_class
    try:
        cls = load_class(spec)
    except AdapterError as e:
        raise CertifyError(str(e)) from None
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


def file_sha256(path) -> str:
    """"sha256:" + hex SHA-256 of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


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

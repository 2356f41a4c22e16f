"""`conform certify`: run the corpus on one adapter (profile `certify`), then write its certificate.

The run is conform.runner.run limited to the claimed ops (`--op`, default the
adapter's own `ops`); the certificate is reports.certify's, built from the
results file plus the adapter's identity, which the harness measures from the
target without importing the candidate (adapters/identity.py: the file that
defines the adapter class, the installed distribution that provides its module,
the framework packages and their versions).  The byte format of every
hash is in docs/CERTIFY.md; conform/verify.py recomputes them.
"""
from __future__ import annotations

import os
from pathlib import Path

from contract.vocabulary import EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE

from . import runner

PROFILE = "certify"


class CertifyError(RuntimeError):
    """The adapter cannot be certified as asked; exit_code is the command's exit code (docs/CLI.md)."""

    def __init__(self, message, exit_code=EXIT_ADAPTER):
        super().__init__(message)
        self.exit_code = exit_code


EXPECTATIONS_COPY = "expectations.txt"      # the chosen expectations file, copied beside the certificate


OWN_FILES = ("certificate.json", "results.jsonl")     # what a certification leaves in --out, and --replace overwrites


def certify(target: str, out_dir, ops=None, corpus=None, in_process=False, case_timeout=None, resume=False,
            jobs=1, python=None, expectations=None, progress=None, replace=False, on_run=None) -> dict:
    """Run the claimed ops' cases of the corpus (default: the shipped one) on one adapter; write
    out_dir/results.jsonl, report.html, summary.json and certificate.json; return the certificate.

    `python`: the interpreter of the adapter's worker (default: as adapters.environments chooses).
    `expectations`: the candidate's expectations file (--expectations FILE); a shipped adapter gets its
    shipped file, anything else none (suites.known_divergences.chosen_file).  The chosen file is copied into
    out_dir as expectations.txt, so `conform verify` re-matches the results against the same lines.
    An out_dir that already holds a certificate or results is refused unless `replace` (or `resume`).
    `on_run`: called with the run's result (conform.runner.RunResult: its timings) before the certificate."""
    from reports.certify import write_certificate
    pythons = {target: os.path.abspath(os.path.expanduser(python))} if python else {}
    if pythons and in_process:
        raise CertifyError("--python and --in-process exclude each other: an in-process adapter runs "
                           "in this interpreter", EXIT_USAGE)
    refuse_drafts(expectations)
    held = [f for f in OWN_FILES if (Path(out_dir) / f).exists()]
    if held and not (replace or resume):
        raise CertifyError(f"--out {out_dir} already holds {' and '.join(held)}: pass --replace to overwrite "
                           f"{'them' if len(held) > 1 else 'it'}, --resume to continue that run, or choose another "
                           f"folder", EXIT_USAGE)
    info = probe_adapter(target, pythons, in_process)
    claims = claimed_ops(info, ops)
    identity = info.identity
    out = Path(out_dir)
    files = {target: expectations} if expectations else None
    result = runner.run([target], corpus=corpus, out_dir=str(out), case_timeout=case_timeout, jobs=jobs,
                        in_process=in_process, profile=PROFILE, resume=resume, ops=claims, pythons=pythons,
                        expectations_files=files, progress=progress)
    if result.exit_code not in (EXIT_OK, EXIT_DIVERGED):
        raise CertifyError(result.message or f"the run stopped with exit code {result.exit_code}", result.exit_code)
    if on_run is not None:
        on_run(result)
    if not Path(result.results_path).is_file():
        raise CertifyError(f"the run wrote no results file at {result.results_path}", EXIT_BAD_INPUT)
    copy_expectations(result.results_path, out)
    copy_sources(identity, out)
    from suites.corpus import DEFAULT_PATH, corpus_hash
    return write_certificate(result.results_path, out, target=target, identity=identity,
                             shipped_corpus=corpus_hash(DEFAULT_PATH))


SOURCE_COPY = "source"          # the adapter's own source files, beside the certificate, for a reviewer
SOURCE_CAP = 1 << 20            # bytes copied at most (the module file always)
SOURCE_FILES = 200


def source_path(module: str, source_file: str) -> str:
    """Where the file of `module` goes under SOURCE_COPY: its path as an import names it."""
    parts = module.split(".")
    return "/".join(parts) + ("/__init__.py" if os.path.basename(source_file) == "__init__.py" else ".py")


def copy_sources(identity, out):
    """Copy the file that defines the adapter class to out/source/<module path>, and, when that module is in a
    package installed neither in site-packages nor in this suite, the package's other .py files, up to
    SOURCE_FILES files and SOURCE_CAP bytes (first come, sorted by path): what ran, for a reviewer to read.
    The module file's hash is the certificate's source_sha256; verify checks the copy against it."""
    import shutil
    target = Path(out) / SOURCE_COPY
    shutil.rmtree(target, ignore_errors=True)
    module, source = identity.get("module", ""), identity.get("source_file", "")
    if not module or not source or not os.path.isfile(source):
        return
    rel = source_path(module, source)
    files = {rel: source}
    depth = rel.count("/")
    root = Path(source).parent
    for _ in range(depth - (1 if rel.endswith("/__init__.py") else 0)):
        root = root.parent
    top = root / module.split(".")[0] if depth else None
    suite = Path(__file__).resolve().parents[1]
    if top and top.is_dir() and "-packages" not in str(top) and suite not in top.resolve().parents:
        for f in sorted(top.rglob("*.py")):
            if "__pycache__" not in f.parts and f.is_file() and not f.is_symlink():
                files.setdefault(f.relative_to(root).as_posix(), str(f))
    used = 0
    for name, path in list(files.items())[:SOURCE_FILES]:
        size = os.path.getsize(path)
        if used + size > SOURCE_CAP and name != rel:
            continue
        used += size
        dest = target / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)


def refuse_drafts(path):
    """CertifyError(EXIT_BAD_INPUT) when the expectations file still has a line whose reason is the placeholder
    `conform expectations draft` writes: a certificate lists each divergence with its real reason."""
    from suites.known_divergences import DRAFT_REASON, KnownDivergences, KnownDivergencesError
    if not path:
        return
    try:
        drafts = KnownDivergences.load(path).drafts()
    except KnownDivergencesError:       # the run reports the damage, with its line
        return
    if drafts:
        where = ", ".join(p.where() for p in drafts[:5]) + (f" and {len(drafts) - 5} more" if len(drafts) > 5 else "")
        raise CertifyError(f"--expectations {path}: {len(drafts)} line(s) still give the draft's reason "
                           f"{DRAFT_REASON!r} ({where}): write why each divergence is expected", EXIT_BAD_INPUT)


def copy_expectations(results_path, out):
    """Copy the expectations file the run's header names (if any) to out/expectations.txt, byte for byte,
    checking it still has the hash the header recorded (it was read when the run started)."""
    import shutil
    from contract.results import file_sha256
    from reports.model import iter_records
    header = next(iter(iter_records(results_path)), {})
    chosen = next((a.get("expectations") for a in header.get("adapters", ()) if isinstance(a, dict)), None)
    target = Path(out) / EXPECTATIONS_COPY
    if not chosen:
        target.unlink(missing_ok=True)
        return
    shutil.copyfile(chosen["file"], target)
    if file_sha256(target) != chosen["sha256"]:
        raise CertifyError(f"{chosen['file']} changed while the certification ran (its hash is not the one "
                           f"the run recorded); certify again", EXIT_BAD_INPUT)


def probe_adapter(target, pythons=None, in_process=False):
    """What the adapter's worker says of it (adapters.pool.probe), available, with `identity` set to what the
    harness measures from the target (adapters.identity.measure: the candidate's code takes no part); else
    CertifyError(EXIT_ADAPTER) before any corpus is read or folder made.  The candidate's module is
    imported in the worker only, under the interpreter the run gives it (adapters.environments;
    in-process: this one)."""
    from adapters.environments import InterpreterError, interpreter_for
    from adapters.identity import IdentityError, measure
    from adapters.pool import probe
    try:
        python = None if in_process else interpreter_for(target, pythons)
    except InterpreterError as e:
        raise CertifyError(str(e), e.exit_code) from None
    info = probe(target, python=python)
    if not info.available:
        raise CertifyError(f"adapter {target!r} is not available: {info.reason}")
    try:
        info.identity = measure(target, python)
    except IdentityError as e:
        raise CertifyError(f"its source and package cannot be measured: {e}") from None
    return info


def claimed_ops(adapter, ops=None) -> list:
    """The ops certified: those asked for (each must be one the adapter implements), else all it implements."""
    from oracle.registry import ops as registered
    OPS = registered()
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

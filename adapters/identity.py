"""What an adapter is, for a certificate, measured by the harness from the target alone.

`measure(target, python)` runs `python -S -m adapters.identity MODULE:CLASS` under the interpreter that will run the
adapter's worker, with the worker's import path.  That process never imports the candidate's module, and
runs no code an installed package brings (`-S`: no `sitecustomize`, no `import` lines of `.pth` files; the
site folders and the folders `.pth` files list are added by reading them).  It locates the module's file
as the import system would (`importlib.machinery.PathFinder`, one package level at a time, so no parent
package's `__init__` runs either), finds the class in the file's syntax tree, and reads the installed
distributions (`importlib.metadata`).  So nothing the candidate's code does once imported (setting
`__module__`, patching `inspect`, swapping `sys.modules`) changes what is recorded: the identity covers
the bytes of the files the target names.

Recorded: module, class, the defining file's hash, the distribution that provides the module (name,
version, a hash over its files) and the framework packages with their installed versions: for a shipped
adapter the frameworks it wraps (adapters/registry.py, SHIPPED), for any other the distributions its distribution requires
and those its module file imports; NumPy for all.  The byte format of each hash is in docs/CERTIFY.md;
conform/certify.py records them and conform/verify.py measures again and compares.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import importlib.metadata
import json
import os
import re
import sys

ALWAYS = ("numpy",)
MAX_SOURCE = 16 << 20       # bytes of a module file parsed for its class and imports (hashed whatever its size)
MAX_FOLLOW = 8              # `from x import Class` re-exports followed to the file that defines the class
MAX_REPLY = 1 << 20         # bytes of the measuring process's answer read
TIMEOUT = 60.0
# what the measuring process prints its answer after, so nothing else on its stdout is taken for it
MARK = "conform-identity:"


class IdentityError(RuntimeError):
    """The adapter's module or class cannot be found from its target; the message says where it looked."""


def _site_of(python) -> list:
    """Another interpreter's own site-packages: -S leaves them off, and the worker side needs its NumPy (a
    release's environment, adapters/releases.py); [] for this interpreter, whose path _worker_path gives."""
    import subprocess
    from .environments import is_this_interpreter
    if is_this_interpreter(python):
        return []
    try:
        p = subprocess.run([python, "-c", "import sysconfig as s; print(s.get_path('purelib')); "
                            "print(s.get_path('platlib'))"], capture_output=True, text=True, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL, cwd="/")
    except (OSError, subprocess.SubprocessError):
        return []
    return list(dict.fromkeys(p.stdout.split())) if p.returncode == 0 else []


def measure(target: str, python: str = None, timeout: float = TIMEOUT) -> dict:
    """The identity of the adapter `target` names (a name or module:Class, optionally @construction), measured
    under `python` (default: this interpreter) with the import path its worker gets; IdentityError when it
    cannot be (its module is not there, the interpreter does not run, the process does not answer)."""
    import subprocess
    import tempfile

    from .worker_process import _safe_path_flag, _worker_path
    from .registry import AdapterError, resolve, shipped_name, split_construction
    base = split_construction(target)[0]
    try:
        class_path = resolve(base)
    except AdapterError as e:
        raise IdentityError(str(e)) from None
    python = python or sys.executable
    shipped = shipped_name(base)
    from .registry import SHIPPED
    row = SHIPPED.get(shipped)
    frameworks = ["--frameworks", ",".join(row.frameworks)] if row is not None else []
    # outside the sandbox: in a fresh folder of its own and in safe path mode, nothing a candidate wrote is on
    # its import path
    cmd = [python, "-S", *_safe_path_flag(python), "-m", "adapters.identity", class_path] + frameworks
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(_worker_path(python) + _site_of(python)))
    with tempfile.TemporaryDirectory(prefix="conform-identity-") as cwd:
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout)
        except (OSError, subprocess.SubprocessError) as e:
            raise IdentityError(f"cannot measure adapter {target!r} under {python}: {e}") from None
    out = p.stdout[-MAX_REPLY:].decode("utf-8", "replace")
    line = next((ln[len(MARK):] for ln in reversed(out.splitlines()) if ln.startswith(MARK)), None)
    if p.returncode != 0 or line is None:
        why = p.stderr[-2000:].decode("utf-8", "replace").strip().splitlines()
        raise IdentityError(f"cannot measure adapter {target!r}: {why[-1] if why else f'exit {p.returncode}'}")
    try:
        found = json.loads(line)
    except ValueError:
        raise IdentityError(f"cannot measure adapter {target!r}: its answer is not JSON") from None
    if "error" in found:
        raise IdentityError(f"adapter {target!r}: {found['error']}")
    return found


# ---- in the measuring process (python -S -m adapters.identity) -----------------------------------------

def identify(class_path: str, frameworks: str = None) -> dict:
    """{"module", "class", "source_file", "source_sha256", "package", "package_note", "frameworks"} of the
    class `class_path` (module:Class) names, without importing its module."""
    module, _, qualname = class_path.partition(":")
    source, module = defining_file(module, qualname)
    identity = {"module": module, "class": qualname, "source_file": source, "source_sha256": file_sha256(source),
                "package": None, "package_note": ""}
    identity["package"], identity["package_note"] = package_of(module, source)
    # a shipped adapter's frameworks are the harness's to say (comma-separated); another's are read from it
    names = [n for n in frameworks.split(",") if n] if frameworks is not None else \
        declared_frameworks(source, identity["package"])
    identity["frameworks"] = versions([*ALWAYS, *names])
    return identity


def locate(module: str) -> str:
    """The file the import system loads for `module`, found without importing it or its parent packages."""
    path, found = None, None
    parts = module.split(".")
    for i, part in enumerate(parts):
        found = importlib.machinery.PathFinder.find_spec(part, path)
        where = ".".join(parts[:i + 1])
        if found is None:
            raise IdentityError(f"module {where} is not on the import path of this interpreter "
                                f"({sys.executable}); it is found by path only, not by an import hook")
        if i < len(parts) - 1:
            path = found.submodule_search_locations
            if path is None:
                raise IdentityError(f"{where} is a module, not a package: {module} cannot be under it")
    if not found.origin or not os.path.isfile(found.origin):
        raise IdentityError(f"module {module} has no file (a namespace package): name a module")
    return found.origin


def defining_file(module: str, qualname: str, depth: int = 0) -> tuple:
    """(the file that defines class `qualname`, the module of that file): a `from x import Class` in the
    target's module is followed to x's file (a package re-exporting its adapter)."""
    source = locate(module)
    tree = _tree(source)
    if tree is None or _defines(tree, qualname):
        return source, module
    head = qualname.split(".")[0]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and depth < MAX_FOLLOW:
            for alias in node.names:
                if (alias.asname or alias.name) == head:
                    origin = _absolute(node, module, source)
                    return defining_file(origin, alias.name + qualname[len(head):], depth + 1)
    raise IdentityError(f"{source} defines no class {qualname} (a class made at run time cannot be measured): "
                        f"name the module whose file holds `class {head}`")


def _tree(source):
    if not source.endswith(".py") or os.path.getsize(source) > MAX_SOURCE:
        return None     # an extension module or a huge file: measured by its hash alone
    try:
        with open(source, "rb") as f:
            return ast.parse(f.read(), source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines(tree, qualname) -> bool:
    body = tree.body
    for name in qualname.split("."):
        cls = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if cls is None:
            return False
        body = cls.body
    return True


def _absolute(node, module, source) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if os.path.basename(source) == "__init__.py" else module.split(".")[:-1]
    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
    return ".".join([*base, *([node.module] if node.module else [])])


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


_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def declared_frameworks(source: str, package) -> list:
    """The distributions a vendor's adapter stands on: those its distribution requires (not for an extra)
    and those providing the top-level packages its module file imports; neither its own nor the standard
    library's, sorted."""
    found = set()
    own = (package or {}).get("name")
    if own:
        for req in importlib.metadata.requires(own) or ():
            m = _REQUIREMENT.match(req)
            if m and "extra ==" not in req:
                found.add(m.group(1))
    tree = _tree(source)
    tops = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            tops.add(node.module.split(".")[0])
    dists = importlib.metadata.packages_distributions()
    for top in tops - set(sys.stdlib_module_names):
        found |= set(dists.get(top, ()))
    # neither the adapter's own distribution nor this suite's (its version is the certificate's suite.version)
    skip = {_canonical(n) for n in [own or "", *dists.get(__package__ or "adapters", ())]}
    return sorted(n for n in {_canonical(n) for n in found} if n not in skip)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def versions(names) -> dict:
    """{distribution: installed version, or None where it is not installed}, one entry per name."""
    out = {}
    for name in dict.fromkeys(_canonical(n) for n in names):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


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


def file_sha256(path) -> str:
    from contract.results import file_sha256 as digest      # imported once the site folders are on the path
    return digest(path)


def add_site_folders() -> None:
    """What `site` adds to sys.path, without running any code: the site-packages folders (the user's too)
    and the folders their `.pth` files list; a `.pth` line starting with `import` is skipped, not run."""
    import site
    folders = list(site.getsitepackages())
    if site.ENABLE_USER_SITE is not False and not sys.flags.no_user_site:
        folders.append(site.getusersitepackages())
    for folder in folders:
        if not os.path.isdir(folder) or folder in sys.path:
            continue
        sys.path.append(folder)
        for name in sorted(n for n in os.listdir(folder) if n.endswith(".pth")):
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    lines = f.read(1 << 20).splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                line = line.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                path = os.path.join(folder, line)
                if os.path.isdir(path) and path not in sys.path:
                    sys.path.append(path)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -S -m adapters.identity")
    ap.add_argument("class_path", help="module:Class")
    ap.add_argument("--frameworks", help="a shipped adapter's frameworks, comma-separated (SHIPPED)")
    args = ap.parse_args(argv)
    if sys.flags.no_site:
        add_site_folders()
    try:
        found = identify(args.class_path, args.frameworks)
    except (IdentityError, OSError) as e:
        found = {"error": str(e)}
    print(MARK + json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())

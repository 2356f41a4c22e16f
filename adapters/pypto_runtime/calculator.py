"""pypto's torch-based "calculator" (the C++ library its tensor-graph interpreter computes with).

pypto 0.2.0 compiles it with cmake + g++ against torch's headers into a temporary
folder in every process (30-75 s each time).  Here it is built once into a cache
folder outside the repository and loaded from there.

    python -m adapters.pypto_runtime.calculator      # build it (CI's setup step)
"""
from __future__ import annotations

import ctypes
import fcntl
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIB_RELPATH = Path("lib", "libtile_fwk_calculator.so")
BUILD_TOOLS = ("cmake", "g++")


class CalculatorError(RuntimeError):
    """The calculator cannot be built or loaded; the message says why."""


def torch_version() -> str:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return ""


def cache_dir() -> Path:
    """Where the built calculator lives: one folder per torch version (its headers and ABI)."""
    root = os.environ.get("TC_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(xdg, "tensor-conformance")
    return Path(root, f"pypto-calculator-{torch_version() or 'no-torch'}")


def library_path() -> Path:
    return cache_dir() / LIB_RELPATH


def is_built() -> bool:
    return library_path().is_file()


def missing_tools() -> list:
    return [t for t in BUILD_TOOLS if shutil.which(t) is None]


def source_dir() -> Path | None:
    spec = importlib.util.find_spec("pypto")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0], "lib", "calculator")


def why_unbuildable() -> str:
    """'' when the calculator is present or can be built; otherwise the reason (cheap: no imports)."""
    if is_built():
        return ""
    if not torch_version():
        return "torch is not installed (pypto's calculator is built against torch's headers)"
    src = source_dir()
    if src is None or not (src / "CMakeLists.txt").is_file():
        return f"pypto's calculator sources are missing (looked in {src})"
    tools = missing_tools()
    if tools:
        return (f"{' and '.join(tools)} not found on PATH: needed once to build pypto's calculator "
                f"into {cache_dir()} (install them, or run `python -m adapters.pypto_runtime.calculator` "
                "where they exist and copy that folder)")
    return ""


def build(log=sys.stderr, jobs: int | None = None) -> Path:
    """Build the calculator into cache_dir() unless it is there; returns the library path.

    Concurrent workers serialise on a lock file; the result is moved into place
    in one rename, so a reader never sees half a build."""
    target = cache_dir()
    if is_built():
        return library_path()
    reason = why_unbuildable()
    if reason:
        raise CalculatorError(reason)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_built():                        # another worker built it while we waited
            return library_path()
        print(f"[tensor-conformance] building pypto's calculator into {target} "
              "(once per torch version; 30-75 s)...", file=log, flush=True)
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="tc-pypto-calc-") as tmp:
            staged = Path(tmp, "install")
            _cmake(Path(tmp, "build"), staged, jobs or os.cpu_count() or 2)
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(staged, Path(str(target) + ".partial"), symlinks=True)
            os.replace(str(target) + ".partial", target)
        print(f"[tensor-conformance] pypto's calculator built in {time.monotonic() - started:.0f} s",
              file=log, flush=True)
    return library_path()


def _cmake(build_dir: Path, install_dir: Path, jobs: int) -> None:
    import torch   # the build needs its install root and C++ ABI flag

    configure = ["cmake", "-S", str(source_dir()), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_INSTALL_PREFIX={install_dir}",
                 f"-DPY3_MOD_TORCH_VERSION={torch.__version__}",
                 f"-DPY3_MOD_TORCH_ROOT_PATH={os.path.dirname(torch.__file__)}",
                 f"-DPY3_MOD_TORCH_C_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"]
    for cmd in (configure, ["cmake", "--build", str(build_dir), "-j", str(jobs)],
                ["cmake", "--install", str(build_dir)]):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            raise CalculatorError(f"`{' '.join(cmd[:3])} ...` failed (exit {done.returncode}):\n{tail}")


_loaded: list = []


def load(log=sys.stderr) -> Path:
    """Build if needed, then load the library into the process (RTLD_GLOBAL: pypto looks its symbols up)."""
    path = build(log=log)
    if not _loaded:
        _loaded.append(ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL))
    return path


def main(argv=None) -> int:
    try:
        path = build()
    except CalculatorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The private temporary folder every file pypto writes goes to, removed at exit.

pypto never cleans up: each call leaves a compile folder, a verifier dump and a
log, and by default they land in ./output, ~/ascend/log and ~/.pypto.  The
environment variables must be set before `import pypto` (its import already
writes ~/.pypto/run/...).  ASCEND_HOME_PATH is never set: it switches pypto to
NPU mode.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

# env var -> sub-folder of the workspace
ENV_DIRS = {
    "TILE_FWK_OUTPUT_DIR": "output",        # compile folders (else ./output/)
    "ASCEND_PROCESS_LOG_PATH": "log",       # plog files (else ~/ascend/log/)
    "PYPTO_HOME": "home",                   # run records (else ~/.pypto/run/)
}


PREFIX = "tc-pypto-"


class Workspace:
    def __init__(self):
        remove_orphans()
        self.root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        self.dump_dir = self.root / "verify"          # pass_verify_save_tensor_dir
        self.kernel_dir = self.root / "kernels"       # generated kernel sources (inspect reads them)
        self._saved_env = {}
        for var, sub in ENV_DIRS.items():
            self._saved_env[var] = os.environ.get(var)
            os.environ[var] = str(self.root / sub)
        for d in (self.dump_dir, self.kernel_dir):
            d.mkdir()
        atexit.register(self.remove)

    def clear_call_files(self) -> None:
        """Delete what one call left (compile folder, dump) so a long run does not fill the disk."""
        for d in (self.root / ENV_DIRS["TILE_FWK_OUTPUT_DIR"], self.dump_dir):
            if d.is_dir():
                for child in d.iterdir():
                    shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        for var, old in self._saved_env.items():
            if os.environ.get(var) == str(self.root / ENV_DIRS[var]):
                if old is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = old
        atexit.unregister(self.remove)


def remove_orphans() -> None:
    """Remove the folders of workers that died without running atexit (a timed-out worker is SIGKILLed)."""
    for d in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        pid = d.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(d, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

"""Adapters for a framework verified against one release: available only where that release is installed."""
from __future__ import annotations

import importlib.util
import os
from importlib.metadata import PackageNotFoundError, version

from .base import Adapter

ANY_RELEASE = "CONFORM_ANY_RELEASE"     # "1": run an unpinned release and record it (conform run --any-release)


class PinnedAdapter(Adapter):
    package = ""        # the import name, and the distribution's unless `distribution` says otherwise
    distribution = ""   # the distribution's name where it is not the import name (tensorflow-cpu)
    pin = ""            # the release the adapter was verified against (its framework's declaration, adapters/
                        # <name>_framework.toml); a local build label is the same release ("1.2.3+cpu")
    where = ""          # how to get it, when not `pip install package==pin` in this environment

    def version(self) -> str:
        ok, _ = self.available()
        if not ok:
            return "unavailable"
        v = version(self.distribution or self.package)
        # run anyway (conform run --any-release): the version every record carries says so
        return f"{v} (unpinned: verified against {self.pin})" if self._unpinned(v) else v

    def _unpinned(self, v) -> bool:
        # a local version label (+cpu) names a build of the same release; a release the framework's declaration
        # lists (`releases`, run by `conform run --release`) is run as declared, not as unpinned
        return not any(v == r or v.startswith(r + "+") for r in (self.pin, *self._declared()))

    def _declared(self) -> tuple:
        from .frameworks import FRAMEWORKS
        dist = self.distribution or self.package
        return next((fw.all_releases for fw in FRAMEWORKS.values() if dist in fw.distributions), ())

    def available(self) -> tuple:
        if importlib.util.find_spec(self.package) is None:
            return False, (f"package {self.package!r} is not installed "
                           f"({self.where or f'pip install {self.distribution or self.package}=={self.pin}'})")
        dist = self.distribution or self.package
        try:
            v = version(dist)
        except PackageNotFoundError:
            return False, f"package {self.package!r} has no distribution metadata ({dist})"
        if self._unpinned(v) and os.environ.get(ANY_RELEASE) != "1":
            return False, f"{dist} {v} is installed; this adapter was verified against {self.pin}"
        return self.environment_problem()

    def environment_problem(self) -> tuple:
        """(True, "") or (False, why) for what else the pinned release needs around it."""
        return True, ""

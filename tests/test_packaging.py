"""The suite ships as a wheel and an sdist that hold everything it reads at run time (issue 37, item 5).

The build itself, a clean install of the wheel and a certification with it run in CI
(scripts/check-package.sh, from .ci/run); here the declarations they rest on are checked without building."""
from __future__ import annotations

import fnmatch
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_data_file_of_a_shipped_package_is_declared_package_data():
    setuptools = _pyproject()["tool"]["setuptools"]
    packages = [p.rstrip("*") for p in setuptools["packages"]["find"]["include"]]
    data = setuptools["package-data"]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for f in tracked:
        top, _, rest = f.partition("/")
        if top not in packages or not rest or f.endswith(".py"):
            continue
        if not any(fnmatch.fnmatch(rest, glob) for glob in data.get(top, ())):
            missing.append(f)
    assert not missing, f"not in [tool.setuptools.package-data], so absent from the wheel: {missing}"
    for needed in ("suites/corpus/corpus.jsonl", "suites/expectations/torch.txt",
                   "reports/templates/report.html.j2", "reports/schema/summary.schema.json"):
        assert needed in tracked, needed


def test_ci_builds_installs_and_certifies_the_package():
    run = (ROOT / ".ci" / "run").read_text()
    script = (ROOT / "scripts" / "check-package.sh").read_text()
    assert "bash scripts/check-package.sh" in run
    for step in ("uv\" build", "tensor_conformance-*.tar.gz", "-py3-none-any.whl", "venv", "pip install",
                 "conform\" certify", "conform\" verify"):
        assert step in script, step

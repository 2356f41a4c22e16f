"""Each framework is declared once (adapters/<name>_framework.toml, read by adapters/frameworks.py), and what
cannot be derived from the declarations at run time is held to them here: pyproject.toml (read at build time),
the install and CI scripts (they print what they install), the adapters' pins and the docs that quote them.

tests/test_adding_a_framework.py runs this file in a copy of the tree with a scratch framework added."""
from __future__ import annotations

import glob
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters import frameworks
from adapters.frameworks import FRAMEWORKS
from adapters.registry import SHIPPED, load_class

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PINNED = {name: fw for name, fw in FRAMEWORKS.items() if fw.pin and fw.distributions}
SCRIPTS = ("scripts/setup.sh", ".ci/run")
DOCS = ("README.md", "docs/CLI.md", "docs/CERTIFY.md", "docs/DESIGN.md")


def _norm(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _requirement_name(req: str) -> str:
    return _norm(re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req).group(1))


def _script(*args) -> str:
    # -I: no site-packages, no user paths, not the script's folder: what a fresh machine's python3 has
    r = subprocess.run([sys.executable, "-I", str(ROOT / "adapters" / "frameworks.py"), *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"adapters/frameworks.py {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return r.stdout


def test_every_shipped_adapter_but_the_oracle_is_a_row_of_one_declaration():
    declared = [a.name for fw in FRAMEWORKS.values() for a in fw.adapters]
    assert list(SHIPPED) == ["oracle", *declared]
    for fw in FRAMEWORKS.values():
        for a in fw.adapters:
            row = SHIPPED[a.name]
            assert (row.class_path, row.frameworks, row.environment, row.twin, row.compile_cache, row.sampled) == \
                (a.class_path, fw.distributions, fw.environment, a.twin, a.compile_cache, a.sampled), a.name
            assert not a.twin or SHIPPED[a.twin].frameworks == fw.distributions, f"{a.name}'s twin is another framework's"


def test_a_pinned_adapter_takes_its_pin_and_distribution_from_its_declaration():
    for fw in PINNED.values():
        for a in fw.adapters:
            cls = load_class(a.name)
            pin = getattr(cls, "pin", None)
            if isinstance(pin, str) and pin:        # a PinnedAdapter (pypto checks its own: pypto_runtime/patches.py)
                assert pin == fw.pin, f"{a.name}: pin {pin!r}, declared {fw.pin!r} in {fw.source}"
                dist = getattr(cls, "distribution", "") or cls.package
                assert _norm(dist) in map(_norm, fw.distributions), f"{a.name}: {dist} is not declared"


def test_the_declaration_module_runs_on_a_bare_python_and_prints_what_the_scripts_install():
    envs = dict(line.split(" ", 1) for line in _script("environments").splitlines())
    assert envs == frameworks.environments()
    assert _script("requirements").splitlines() == frameworks.environment_requirements()
    for name, folder in envs.items():
        assert _script("requirements", name).splitlines() == frameworks.environment_requirements(folder)
        tests = _script("ci-tests", name).split()
        assert tests, f"{name}: its environment runs no test in CI (ci_tests in {FRAMEWORKS[name].source})"
    pins = _script("pins").splitlines()
    assert pins == [f"{d}=={fw.pin}" for fw in PINNED.values() for d in fw.distributions]
    r = subprocess.run([sys.executable, "-I", str(ROOT / "adapters" / "frameworks.py"), "requirements", "nosuch"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "nosuch" in r.stderr, r


def test_every_declared_ci_test_file_exists():
    for fw in FRAMEWORKS.values():
        for pattern in fw.ci_tests:
            assert glob.glob(str(ROOT / pattern)), f"{fw.source}: ci_tests {pattern!r} matches no file"


@pytest.mark.parametrize("script", SCRIPTS)
def test_setup_and_ci_write_no_framework_list_or_pin_of_their_own(script):
    text = (ROOT / script).read_text()
    assert "adapters/frameworks.py" in text, f"{script} does not read the declarations"
    for fw in PINNED.values():
        assert fw.pin not in text, f"{script} writes {fw.name}'s pin {fw.pin}: it belongs to {fw.source}"
        if fw.environment:
            assert fw.environment not in text, f"{script} names {fw.environment}: it belongs to {fw.source}"
    words = re.findall(r"for \w+ in ([^;\n]+)", text)
    for fw in FRAMEWORKS.values():
        assert not any(re.search(rf"\b{re.escape(fw.name)}\b", w) for w in words), \
            f"{script} loops over a hand-written list naming {fw.name}: {words}"


def test_pyproject_names_no_declared_framework_and_no_copy_of_the_shipped_adapters():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_norm(d) for fw in FRAMEWORKS.values() for d in fw.distributions}
    reqs = list(project.get("dependencies", ()))
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    twice = sorted({_requirement_name(r) for r in reqs} & declared)
    assert not twice, f"pyproject.toml requires {twice}, which adapters/<name>_framework.toml declare (once)"
    extras = set(project.get("optional-dependencies", {}))
    assert not extras & set(FRAMEWORKS), f"pyproject.toml has extras named for frameworks: {extras & set(FRAMEWORKS)}"
    group = project.get("entry-points", {}).get("tensor_conformance.adapters", {})
    assert not set(group) & set(SHIPPED), f"pyproject.toml re-lists shipped adapters as entry points: {sorted(group)}"


def test_the_pin_is_written_once_as_data():
    """A pin as a value ("3.3.1", ==3.3.1) is in its declaration and nowhere else in the code and configuration
    (tests/ and benchmarks/ hold data of their own; prose that quotes a pin is checked below)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = [ROOT / p for p in tracked.decode().split("\0") if not p.startswith(("tests/", "benchmarks/"))
             and (p.endswith((".py", ".toml", ".sh", ".cfg", ".txt", ".ini")) or p == ".ci/run")]
    for fw in PINNED.values():
        value = re.compile(rf"""["']{re.escape(fw.pin)}["']|==\s*{re.escape(fw.pin)}\b""")
        # another framework's declaration speaks of its own releases (torch 2.10.0 is not mindspore's pin)
        mine = [p for p in files if not p.name.endswith("_framework.toml") or str(p) == str(Path(fw.source))]
        found = [str(p.relative_to(ROOT)) for p in mine if p.is_file() and value.search(p.read_text(errors="replace"))]
        assert found == [str(Path(fw.source).relative_to(ROOT))], f"{fw.name}'s pin {fw.pin} as a value in {found}"


def test_the_docs_quote_the_declared_pins_and_name_shipped_adapters_only():
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        for fw in PINNED.values():
            for d in fw.distributions:
                for m in re.finditer(rf"(?<![\w-]){re.escape(d)} (\d+\.\d+\.\d+)\b", text):
                    assert m.group(1) == fw.pin, f"{doc} quotes {d} {m.group(1)}; {fw.source} pins {fw.pin}"
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Adapters shipped", 1)[1].split("\n\n", 2)[1]
    named = [n for row in table.splitlines()[2:] for n in re.findall(r"`([^`]+)`", row.split("|")[1])]
    assert named and set(named) <= set(SHIPPED), f"README's adapter table names {set(named) - set(SHIPPED)}"

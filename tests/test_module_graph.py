"""The module graph has no cycle when every import counts, function-level ones too (scripts/module_graph.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("module_graph", ROOT / "scripts" / "module_graph.py")
module_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_graph)


def test_the_project_has_no_import_cycle_even_counting_function_level_imports():
    found = module_graph.cycles(module_graph.graph())
    assert found == [], f"actual: cycles {found}; expected: none (move the shared piece down a layer)"


def _tree(tmp_path, files: dict) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for pkg in module_graph.PACKAGES:
        (tmp_path / pkg).mkdir(exist_ok=True)
        (tmp_path / pkg / "__init__.py").touch()
    return tmp_path


def test_refuses_a_circle_hidden_behind_a_function_level_import(tmp_path):
    root = _tree(tmp_path, {
        "adapters/registry.py": "def info():\n    from .pool import probe\n    return probe()\n",
        "adapters/pool.py": "from .registry import info\n\ndef probe():\n    return 1\n",
    })
    assert module_graph.cycles(module_graph.graph(root)) == [["adapters.pool", "adapters.registry"]]


def test_a_package_importing_its_own_submodule_is_no_circle(tmp_path):
    root = _tree(tmp_path, {
        "oracle/__init__.py": "from .clip import clip\n",
        "oracle/clip.py": "from . import kernels\n",
        "oracle/kernels.py": "x = 1\n",
    })
    assert module_graph.cycles(module_graph.graph(root)) == []

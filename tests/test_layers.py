"""Imports run one way: contract < oracle < adapters < suites < reports < conform (no module imports upward)."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ("contract", "oracle", "adapters", "suites", "reports", "conform")


def _imports(path):
    """Top-level package names a module imports, wherever the import statement stands."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value.split(".")[0], node.lineno


def _modules(package):
    for dirpath, _, files in os.walk(os.path.join(ROOT, package)):
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(dirpath, f)


def upward_imports():
    bad = []
    for rank, package in enumerate(LAYERS):
        for path in _modules(package):
            for name, line in _imports(path):
                if name in LAYERS and LAYERS.index(name) > rank:
                    bad.append(f"{os.path.relpath(path, ROOT)}:{line} imports {name} (a layer above {package})")
    return bad


def test_no_module_imports_a_layer_above_its_own():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    pkg = tmp_path / "oracle"
    pkg.mkdir()
    (pkg / "bad.py").write_text("def f():\n    from suites import judge\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", str(tmp_path))
    assert upward_imports() == ["oracle/bad.py:2 imports suites (a layer above oracle)"]


def test_reports_read_results_files_and_the_clause_catalogue_only():
    # The reports layer never runs a candidate: of the project it may use the contract and the oracle's clauses.
    bad = [f"{os.path.relpath(p, ROOT)}:{line} imports {name}" for p in _modules("reports")
           for name, line in _imports(p) if name in ("adapters", "suites", "conform")]
    assert bad == []

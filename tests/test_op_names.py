"""The registry is the only op list: outside an op's own modules, an op's name appears in the suite's
code only as a key of an adapter's TABLE (docs/ADDING_AN_OP.md).  Generated files and the corpus are data."""
from __future__ import annotations

import ast
from pathlib import Path

from oracle import registry

ROOT = Path(__file__).resolve().parent.parent
CODE = ("contract", "oracle", "adapters", "suites", "reports", "conform")


def _own(path: Path, op: str) -> bool:
    """An op's own modules: its oracle module, its readings, its strategies, its mutants, its pytest file."""
    return path.stem in (op, f"test_{op}") and path.parent.name in ("oracle", "readings", "strategies", "mutants")


def _table_keys(tree) -> set:
    """ids of the string constants that are keys of a dict assigned to a TABLE (an adapter's op table)."""
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            names = [t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in node.targets]
            if any(n == "TABLE" or n.endswith(".TABLE") for n in names):
                keys |= {id(k) for k in node.value.keys if k is not None}
    return keys


def op_name_uses(root: Path = ROOT, ops=None) -> list:
    """(file, line, op) for each string constant naming an op outside its own modules and table rows."""
    ops = set(ops or registry.ops())
    found = []
    for pkg in CODE:
        for path in sorted((root / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            allowed = _table_keys(tree)
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ops
                        and id(node) not in allowed and not _own(path, node.value)):
                    found.append((str(path.relative_to(root)), node.lineno, node.value))
    return found


def test_an_op_name_appears_only_in_its_own_modules_and_adapter_table_rows():
    found = op_name_uses()
    assert found == [], f"actual: op names used by code outside the op's modules: {found}; expected: none"


def test_refuses_a_branch_on_an_op_name(tmp_path):
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "vendor.py").write_text(
        'TABLE = {"clip": 1}\n\ndef native(op):\n    return "x" if op == "clip" else "y"\n')
    assert op_name_uses(tmp_path, ["clip"]) == [("adapters/vendor.py", 4, "clip")]


def test_an_op_without_a_table_row_is_not_applicable_by_construction():
    import numpy as np

    import toy_op
    from adapters.mapping import FrameworkAdapter
    from adapters.registry import BUILTIN, load
    from contract.case import Case
    toy_op.register()
    try:
        case = Case(op=toy_op.OP, inputs={"x": np.array([-1.0], np.float32)}, params={})
        tabled = [a for a in map(load, BUILTIN) if isinstance(a, FrameworkAdapter)]
        assert {a.name for a in tabled} >= {"torch", "mindspore", "mindspore-variants"}
        for a in tabled:
            assert a.ops == tuple(a.TABLE), a.name
            out = a.run(case)          # no framework is imported for an op the table lacks
            assert (out.kind, out.native_api) == ("not_applicable", toy_op.OP), (a.name, out)
            assert "not applicable" in a.repro(case) and a.native_api(toy_op.OP, case) == toy_op.OP
    finally:
        toy_op.unregister()

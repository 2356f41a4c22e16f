"""docs/CERTIFY.md's FrameworkAdapter reference (issue 37, item 2): its minimal adapter runs as written and
passes check-adapter, and its table names every attribute and hook a FrameworkAdapter has."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "CERTIFY.md"


def _minimal_adapter() -> str:
    text = DOC.read_text()
    block = text[text.index("<!-- minimal-adapter -->"):]
    block = block[block.index("```python\n") + len("```python\n"):]
    return block[:block.index("```")]


def test_the_documented_minimal_adapter_runs_as_written_and_passes_check_adapter(tmp_path):
    (tmp_path / "minimal_adapter.py").write_text(_minimal_adapter())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    r = subprocess.run([sys.executable, "-m", "conform.cli", "check-adapter", "minimal_adapter:NumpyClipAdapter"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "clip: its repro scripts run and fail exactly where their cases fail" in r.stdout


def _public(cls) -> set:
    return {k for k in vars(cls) if not k.startswith("_")}


def test_the_table_names_every_attribute_and_hook_with_a_type_and_an_example():
    from adapters.base import Adapter
    from adapters.mapping import FrameworkAdapter, OpMap
    from adapters.pinned import PinnedAdapter
    text = DOC.read_text()
    section = text[text.index("#### Every attribute and hook"):text.index("#### Lazy and asynchronous frameworks")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([A-Za-z_.]+)(\(.*\))?`", cells[0]) if len(cells) == 4 else None
        if m:
            rows[m.group(1)] = cells
    names = _public(FrameworkAdapter) | _public(PinnedAdapter) | _public(Adapter)
    names |= {f"OpMap.{f}" for f in OpMap.__dataclass_fields__}
    missing = sorted(n for n in names if n not in rows)
    assert not missing, f"docs/CERTIFY.md's table lacks {missing}"
    for name, (_, typ, what, example) in rows.items():
        assert typ and what and example.startswith("`"), (name, typ, what, example)

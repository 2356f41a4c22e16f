"""The project's module graph, every import counted (function-level ones too), and its cycles.

`python scripts/module_graph.py` prints each cycle (a strongly connected group of modules) and exits 1
if there is one; tests/test_module_graph.py holds the tree to none.  A function-level import is fine for
cost (a framework imported only where it runs) but not to hide a circle: here it counts like any other.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("contract", "oracle", "adapters", "suites", "reports", "conform")


def modules(root: Path = ROOT) -> dict:
    """dotted module name -> path, for every module of the project's packages."""
    found = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict) -> str | None:
    # `import a.b.c` / `from a.b import c`: the longest prefix that is a module of ours
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in known:
            return candidate
    return None


def imports_of(module: str, path: Path, known: dict) -> set:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    here = module.split(".") if is_pkg else module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else []))
            names = [f"{prefix}.{a.name}" if prefix else a.name for a in node.names] + [prefix]
        else:
            continue
        for name in names:
            target = _resolve(name, known)
            if target and target != module:
                out.add(target)
    return out


def graph(root: Path = ROOT) -> dict:
    known = modules(root)
    return {m: imports_of(m, p, known) for m, p in known.items()}


def _is_parent_package(a: str, b: str) -> bool:
    # a package's __init__ importing its own submodule (and the submodule being inside the package) is
    # no circle of imports: Python loads the package first by construction
    return b.startswith(a + ".")


def cycles(g: dict) -> list:
    """Strongly connected groups of two or more modules (Tarjan), each sorted; package -> own submodule
    edges are left out."""
    edges = {m: {t for t in ts if not _is_parent_package(m, t) and not _is_parent_package(t, m)}
             for m, ts in g.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def main() -> int:
    found = cycles(graph())
    for group in found:
        print("cycle:", " <-> ".join(group))
    print(f"{len(found)} cycle(s) among {len(modules())} modules")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The main job's wall time against the adapters' own busy time (issue 23's goal).

    .venv/bin/python benchmarks/bench_mainjob.py [--tree PATH] [--jobs N] [--adapter NAME ...]

Runs `conform run` over the shipped corpus (every available adapter, or those named) from the tree PATH (default:
this checkout; another checkout's modules are put first on PYTHONPATH, so an older commit can be measured
the same way), then reads `elapsed_s` of every record: per adapter the busy seconds and the time per case,
and the ratio wall / (busy / cores), which the goal wants <= 1.3 plus start-up.  pypto's time per case is
over the cases it maps (its not-applicable answers take no kernel).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tree", default=str(ROOT), help="the checkout whose code runs (default: this one)")
    p.add_argument("--jobs", type=int, default=None, help="conform run --jobs (default: its own default)")
    p.add_argument("--adapter", action="append", default=[], help="adapters to run (default: every available)")
    args = p.parse_args(argv)
    tree = Path(args.tree).resolve()
    out = Path(tempfile.mkdtemp(prefix="bench-mainjob-"))
    cmd = [sys.executable, "-m", "conform.cli", "run", "--out", str(out), "--no-report"]
    cmd += [a for name in args.adapter for a in ("--adapter", name)]
    cmd += ["--jobs", str(args.jobs)] if args.jobs else []
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):
        print(r.stderr[-3000:], file=sys.stderr)
        return r.returncode
    busy, cases, mapped = defaultdict(float), defaultdict(int), defaultdict(int)
    for line in open(out / "results.jsonl", encoding="utf-8"):
        rec = json.loads(line)
        if rec.get("record") != "case":
            continue
        busy[rec["adapter"]] += rec.get("elapsed_s", 0.0)
        cases[rec["adapter"]] += 1
        mapped[rec["adapter"]] += rec["verdict"] != "not-applicable"
    cores = os.cpu_count() or 1
    total = sum(busy.values())
    print(f"tree {tree} ({_commit(tree)}), {cores} cores, jobs {args.jobs or 'default'}")
    print(f"wall {wall:.1f} s; adapters' busy time {total:.1f} s; busy / cores {total / cores:.1f} s; "
          f"ratio wall / (busy / cores) {wall / (total / cores):.2f}")
    print("| adapter | results | busy s | ms per mapped case |")
    print("|---|---|---|---|")
    for name in sorted(busy):
        print(f"| {name} | {cases[name]} | {busy[name]:.1f} | {1000 * busy[name] / max(mapped[name], 1):.1f} |")
    print(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")
    return 0


def _commit(tree: Path) -> str:
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    return r.stdout.strip() or "no git"


if __name__ == "__main__":
    sys.exit(main())

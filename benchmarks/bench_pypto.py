"""pypto adapter throughput: cases/s per worker, and with several workers in parallel.

    .venv/bin/python benchmarks/bench_pypto.py [--corpus PATH] [--limit N] [--jobs 1 2]

The pypto share of the corpus (setitem, clip, scatter; the other ops are
not-applicable at no cost) runs through `conform run` exactly as CI does: a
persistent worker per job, the oracle and the judge included.  Each job count
is a separate run into a temporary folder.  Also printed: the adapter's own
time per case split by how the call ended (returned / raised / timed out),
read from the results, since a hanging key costs its whole hang limit.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PYPTO_OPS = ("setitem", "clip", "scatter")


def subset(corpus_path, limit, folder) -> tuple:
    """A corpus file with the pypto ops only (first `limit` of them); (path, count)."""
    from suites import corpus as C
    src = corpus_path or str(C.DEFAULT_PATH)
    lines = []
    with open(src, encoding="utf-8") as f:
        header = json.loads(f.readline())
        for line in f:
            if json.loads(line).get("op") in PYPTO_OPS:
                lines.append(line if line.endswith("\n") else line + "\n")
    lines = lines[:limit] if limit else lines
    header["cases"] = len(lines)
    path = os.path.join(folder, "pypto-corpus.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        f.writelines(lines)
    return path, len(lines)


def timed_run(corpus, jobs, folder) -> tuple:
    from conform.runner import run
    out = os.path.join(folder, f"jobs{jobs}")
    t0 = time.monotonic()
    result = run(["pypto"], corpus=corpus, out_dir=out, jobs=jobs, expectations_dir=None)
    return time.monotonic() - t0, result, os.path.join(out, "results.jsonl")


def split(results_path) -> dict:
    """{how the call ended: (count, adapter seconds)} from the case records."""
    agg = collections.defaultdict(lambda: [0, 0.0])
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("record") != "case":
                continue
            kind = "timed out" if rec["verdict"] == "timeout" else (rec.get("outcome") or "?").split(" ")[0]
            agg[kind][0] += 1
            agg[kind][1] += float(rec.get("elapsed_s") or 0.0)
    return dict(agg)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="corpus file (default: the shipped corpus)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N pypto cases (0: all)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="worker counts to measure")
    args = ap.parse_args(argv)
    from adapters.pypto_adapter import PyptoAdapter
    ok, why = PyptoAdapter().available()
    if not ok:
        print(f"pypto adapter unavailable: {why}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-pypto-") as folder:
        corpus, n = subset(args.corpus, args.limit, folder)
        print(f"{n} pypto cases (setitem, clip, scatter); {os.cpu_count()} CPUs")
        for jobs in args.jobs:
            wall, result, results = timed_run(corpus, jobs, folder)
            rate = n / wall
            print(f"  {jobs} worker(s): {wall:6.1f} s wall, {rate:6.1f} cases/s, "
                  f"{rate / jobs:6.1f} cases/s per worker (exit {result.exit_code})")
            for kind, (count, secs) in sorted(split(results).items()):
                print(f"      {kind:10s} {count:5d} cases, adapter time {secs:7.1f} s "
                      f"({1000 * secs / max(count, 1):7.1f} ms/case)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

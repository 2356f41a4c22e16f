"""Corpus throughput per framework adapter, and where the time goes.

    .venv/bin/python benchmarks/bench_adapters.py [--adapter torch ...] [--corpus PATH] [--limit N]

Each adapter runs the corpus through its persistent worker (as `conform run`
does); per case the oracle answers and the judge decides.  Time is split into:

  framework   time inside the adapter's run() in the worker, less the conversions
  conversion  NumPy -> framework tensors -> NumPy for the case's inputs (measured
              separately in this process, the same helpers the adapter uses)
  round trip  wire encoding, the pipe and the worker loop (wall time of
              handle.run() less the adapter's own run() time)
  oracle+judge the expectation and the verdict

The harness is round trip + oracle+judge; the issue's goal is < 10% of the total.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DEFAULT = ("torch", "mindspore", "adapters.mindspore_adapter:MindsporeVariantAdapter")
WARMUP = 20


def conversion_seconds(spec: str, cases) -> float:
    from adapters import convert
    if "torch" in spec:
        there, back = convert.to_torch, convert.from_torch
    else:
        import mindspore
        mindspore.set_device("CPU")
        there, back = convert.to_ms, convert.from_ms
    t0 = time.perf_counter()
    for case in cases:
        for a in case.inputs.values():
            back(there(a))
    return time.perf_counter() - t0


def bench(spec: str, cases) -> dict:
    import oracle
    from adapters.pool import open_handle
    from suites.judge import judge
    handle = open_handle(spec)
    try:
        if not handle.available:
            return {"adapter": spec, "skipped": handle.reason}
        for case in cases[:WARMUP]:
            handle.run(case)
        t_oracle = t_run = t_adapter = 0.0
        t_start = time.perf_counter()
        for case in cases:
            t0 = time.perf_counter()
            exp = oracle.expect(case)
            t1 = time.perf_counter()
            out = handle.run(case)
            t2 = time.perf_counter()
            judge(case, exp, out, handle)
            t3 = time.perf_counter()
            t_oracle += (t1 - t0) + (t3 - t2)
            t_run += t2 - t1
            t_adapter += out.elapsed_s
        total = time.perf_counter() - t_start
    finally:
        handle.close()
    conv = min(conversion_seconds(spec, cases), t_adapter)
    return {"adapter": handle.name, "cases": len(cases), "total": total,
            "framework": t_adapter - conv, "conversion": conv,
            "round_trip": t_run - t_adapter, "oracle_judge": t_oracle}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adapter", action="append", help="adapter spec (default: torch, mindspore, variants)")
    ap.add_argument("--corpus", default=None, help="corpus file (default: the shipped corpus)")
    ap.add_argument("--limit", type=int, default=0, help="first N cases only")
    args = ap.parse_args(argv)
    from suites.corpus import load_corpus
    cases, digest = load_corpus(args.corpus)
    cases = cases[: args.limit] if args.limit else cases
    print(f"corpus {digest}: {len(cases)} cases")
    print(f"{'adapter':<20} {'cases/s':>8} {'framework':>10} {'conversion':>11} {'round trip':>11} "
          f"{'oracle+judge':>13} {'harness':>8}")
    for spec in args.adapter or DEFAULT:
        r = bench(spec, cases)
        if "skipped" in r:
            print(f"{spec:<20} unavailable: {r['skipped']}")
            continue
        tot = r["total"]
        pct = {k: 100 * r[k] / tot for k in ("framework", "conversion", "round_trip", "oracle_judge")}
        print(f"{r['adapter']:<20} {r['cases'] / tot:>8.0f} {pct['framework']:>9.1f}% {pct['conversion']:>10.1f}% "
              f"{pct['round_trip']:>10.1f}% {pct['oracle_judge']:>12.1f}% "
              f"{pct['round_trip'] + pct['oracle_judge']:>7.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Corpus throughput per framework adapter, and where the time goes.

    .venv/bin/python benchmarks/bench_adapters.py [--adapter torch ...] [--corpus PATH] [--limit N]

Each adapter runs the corpus through its persistent worker (as `conform run`
does); per case the oracle answers and the judge decides.  Time is split into:

  framework   the adapter's run() in the worker (Outcome.elapsed_s), less the conversions
  conversion  NumPy -> framework -> NumPy of the case's inputs, timed warm in a child
              process with the adapter's own helpers (an estimate: outputs are not redone)
  round trip  wire encoding, the pipe and the worker loop: handle.run() wall time less run()
  oracle      the spec's expectation (the same work whatever the adapter)
  judge       the verdict, plus the repro the worker writes for a failing one

harness = round trip + judge; the issue's goal is under 10% of the time.  Cases that
crash or time out are left out of the split (their worker restart is reported apart).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

DEFAULT = ("torch", "mindspore", "adapters.mindspore_adapter:MindsporeVariantAdapter")
WARMUP = 20


def conversion_seconds(spec: str, corpus, ran: list) -> float:
    """Time the NumPy <-> framework round trips of every case's inputs, in a child process:
    importing mindspore here would re-register NumPy's "bfloat16" name under the oracle."""
    import subprocess
    code = (
        "import sys, time\n"
        f"sys.path.insert(0, {ROOT!r})\n"
        "from suites.corpus import load_corpus\n"
        f"ran = set({sorted(ran)!r})\n"
        f"cases = [c for c in load_corpus({corpus!r})[0] if c.id in ran]\n"
        + ("from adapters.torch_adapter import to_torch as there, from_torch as back\n" if "torch" in spec else
           "import mindspore\nmindspore.set_device('CPU')\n"
           "from adapters.mindspore_adapter import to_ms as there, from_ms as back\n")
        + "for warm in (True, False):\n"
        "    t0 = time.perf_counter()\n"
        "    for case in cases:\n"
        "        for a in case.inputs.values():\n"
        "            back(there(a))\n"
        "print(time.perf_counter() - t0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bench(spec: str, cases, corpus) -> dict:
    import oracle
    from adapters.base import CRASHED, RAISED, RETURNED, TIMED_OUT
    from adapters.pool import open_handle
    from suites.describe import describe
    from suites.judge import judge
    handle = open_handle(spec)
    try:
        if not handle.available:
            return {"adapter": spec, "skipped": handle.reason}
        for case in cases[:WARMUP]:
            handle.run(case)
        t = dict.fromkeys(("oracle", "run", "adapter", "judge", "lost"), 0.0)
        lost, ran = 0, []
        t_start = time.perf_counter()
        for case in cases:
            t0 = time.perf_counter()
            exp = oracle.expect(case)
            t1 = time.perf_counter()
            out = handle.run(case)
            t2 = time.perf_counter()
            describe(judge(case, exp, out, handle), case, exp, handle)   # a failing verdict also asks the worker for a repro
            t3 = time.perf_counter()
            if out.kind in (CRASHED, TIMED_OUT):
                # a dead worker is restarted on the next call: charge that to isolation, not per case
                lost += 1
                t["lost"] += t3 - t1
                continue
            if out.kind in (RETURNED, RAISED):     # not-applicable cases convert nothing
                ran.append(case.id)
            t["oracle"] += t1 - t0
            t["run"] += t2 - t1
            t["adapter"] += out.elapsed_s
            t["judge"] += t3 - t2
        total = time.perf_counter() - t_start
    finally:
        handle.close()
    conv = min(conversion_seconds(spec, corpus, ran), t["adapter"])
    return {"adapter": handle.name, "cases": len(cases), "total": total, "lost_cases": lost,
            "framework": t["adapter"] - conv, "conversion": conv, "round_trip": t["run"] - t["adapter"],
            "oracle": t["oracle"], "judge": t["judge"], "lost": t["lost"]}


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
          f"{'oracle':>7} {'judge':>7} {'harness':>8}  crash/timeout")
    for spec in args.adapter or DEFAULT:
        r = bench(spec, cases, args.corpus)
        if "skipped" in r:
            print(f"{spec:<20} unavailable: {r['skipped']}")
            continue
        keys = ("framework", "conversion", "round_trip", "oracle", "judge")
        tot = sum(r[k] for k in keys)           # crashed cases and worker restarts excluded
        pct = {k: 100 * r[k] / tot for k in keys}
        print(f"{r['adapter']:<20} {r['cases'] / r['total']:>8.0f} {pct['framework']:>9.1f}% "
              f"{pct['conversion']:>10.1f}% {pct['round_trip']:>10.1f}% {pct['oracle']:>6.1f}% "
              f"{pct['judge']:>6.1f}% {pct['round_trip'] + pct['judge']:>7.1f}%  "
              f"{r['lost_cases']} cases, {r['lost']:.1f} s with restarts")
        n = r["cases"] - r["lost_cases"]
        print(f"{'':<20} {n / (r['total'] - r['lost']):.0f} cases/s without them; per case, microseconds: "
              + ", ".join(f"{k} {1e6 * r[k] / n:.0f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Harness overhead per case and corpus throughput with the oracle adapter.

    .venv/bin/python benchmarks/bench_harness.py [--corpus PATH] [--repeat N]
    .venv/bin/python benchmarks/bench_harness.py --scale 100000     # issue 7: peak memory of a big run

Overhead per case is everything the harness adds around the adapter's own
work: sending the case to the worker and the outcome back (or the in-process
call), judging, and writing the results record.  It is the wall time of
run + judge + record minus the adapter's run() time as measured where it ran;
the oracle's expectation is computed beforehand and not counted.  Goals
(issue 3): median < 0.3 ms in-process, < 1 ms through the worker; corpus
throughput >= 1000 cases/s.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import oracle  # noqa: E402
from adapters.pool import InProcessHandle, WorkerHandle  # noqa: E402
from conform import runner  # noqa: E402
from contract.results import ResultsWriter, case_record  # noqa: E402
from suites.describe import describe  # noqa: E402
from suites.judge import judge  # noqa: E402


def overhead(handle, cases, expected, out_path, repeat):
    samples = []
    with ResultsWriter(out_path) as w:
        for _ in range(repeat):
            for case, exp in zip(cases, expected):
                t0 = time.perf_counter()
                outcome = handle.run(case)
                v = describe(judge(case, exp, outcome, handle), case, exp, handle)    # as the run loop does
                w.write(case_record("bench", v, case))
                samples.append(time.perf_counter() - t0 - outcome.elapsed_s)
    samples.sort()
    return {"median_ms": 1e3 * statistics.median(samples), "p90_ms": 1e3 * samples[int(0.9 * len(samples))],
            "n": len(samples)}


def throughput(corpus, in_process, jobs=1):
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        r = runner.run(["oracle"], corpus=corpus, out_dir=d, in_process=in_process, jobs=jobs)
        dt = time.perf_counter() - t0
    assert r.exit_code == 0, (r.exit_code, r.message, dict(r.counts))
    return {"cases": r.cases, "seconds": dt, "cases_per_s": r.cases / dt}


def scale(n):
    """Peak memory of a `conform run` over an n-case corpus (small clip cases, distinct ids), oracle in a worker."""
    import json
    import subprocess

    import numpy as np

    from contract.case import Case
    from suites.corpus import write_corpus
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "corpus.jsonl")
        cases = [Case(op="clip", inputs={"x": rng.standard_normal(8).astype(np.float32)},
                      params={"min": {"kind": "float", "value": -0.5}, "max": {"kind": "float", "value": 0.5}},
                      clauses=("CL-FORMULA",)) for _ in range(n)]
        write_corpus(path, cases)
        del cases
        # The run in its own process, so its peak is not this process's (which built the corpus).
        out = subprocess.run([sys.executable, __file__, "--scale-run", path, os.path.join(d, "out")],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"scale: {r['cases']} results in {r['seconds']:.1f} s ({r['cases'] / r['seconds']:.0f} cases/s), "
          f"results file {r['results_mb']:.1f} MB")
    print(f"peak RSS: harness {r['harness_mb']:.0f} MB, oracle worker {r['worker_mb']:.0f} MB (goal < 1024 MB)")


def scale_run(corpus, out_dir):
    import json
    import resource
    t0 = time.perf_counter()
    r = runner.run(["oracle"], corpus=corpus, out_dir=out_dir)
    dt = time.perf_counter() - t0
    print(json.dumps({"cases": r.cases, "seconds": dt, "exit": r.exit_code,
                      "results_mb": os.path.getsize(r.results_path) / 1e6,
                      "harness_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", help="corpus file (default: the shipped corpus)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--scale", type=int, help="instead: run an N-case synthetic corpus and report peak memory")
    ap.add_argument("--scale-run", nargs=2, metavar=("CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.scale_run:
        return scale_run(*args.scale_run)
    if args.scale:
        return scale(args.scale)
    cases, corpus_hash = runner.load_corpus(args.corpus)
    expected = [oracle.expect(c) for c in cases]
    print(f"corpus: {len(cases)} cases, {corpus_hash[:20]}...")
    with tempfile.TemporaryDirectory() as d:
        ip = overhead(InProcessHandle("oracle"), cases, expected, os.path.join(d, "a.jsonl"), args.repeat)
        h = WorkerHandle("oracle")
        try:
            wk = overhead(h, cases, expected, os.path.join(d, "b.jsonl"), args.repeat)
        finally:
            h.close()
    print(f"overhead in-process:  median {ip['median_ms']:.3f} ms  p90 {ip['p90_ms']:.3f} ms  "
          f"(goal < 0.3 ms; {ip['n']} samples)")
    print(f"overhead via worker:  median {wk['median_ms']:.3f} ms  p90 {wk['p90_ms']:.3f} ms  "
          f"(goal < 1 ms; {wk['n']} samples)")
    for in_process in (True, False):
        t = throughput(args.corpus, in_process)
        where = "in-process" if in_process else "worker"
        print(f"throughput ({where}, whole run incl. corpus load, oracle.expect, results file): "
              f"{t['cases_per_s']:.0f} cases/s ({t['cases']} cases in {t['seconds']:.2f} s; goal >= 1000)")


if __name__ == "__main__":
    main()

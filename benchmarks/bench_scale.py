"""Scale: a 100,000-case `conform run` and its report in bounded memory; time to resume; merge speed.

    .venv/bin/python benchmarks/bench_scale.py [--cases 100000] [--keep DIR]

Every measured command runs in a fresh child process; its peak RSS is
ru_maxrss from os.wait4 (the child and the descendants it waited for: the
harness and its adapter worker, whichever peaked higher).  `--in-process`
gives the harness alone with the oracle in it.  Figures:

  run      100,000 cases (oracle + WrongOutputs, a tenth of them failing with values recorded): time, peak RSS
  resume   a run SIGKILLed halfway, resumed: the resume's own overhead (reading the file back) and total time
  merge    the results split into 3 shards, `conform merge`: records/s, peak RSS
  report   `conform report` of the 100,000-case results: time, peak RSS
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bad_adapters import clip_case  # noqa: E402
from contract.vocabulary import SUITE_VERSION  # noqa: E402
from suites import corpus as C  # noqa: E402

LIMIT_MB = 1024
DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64")
ADAPTERS = ("oracle", "bad_adapters:WrongOutputs")


def build_corpus(path: Path, n: int, seed=0) -> None:
    """n distinct clip cases of mixed dtypes and sizes; every tenth is labelled so WrongOutputs fails it."""
    rng = np.random.default_rng(seed)
    header = {"record": "corpus", "schema": C.SCHEMA, "suite_version": SUITE_VERSION, "cases": n}
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header, sort_keys=True, separators=(",", ":")) + "\n")
        for i in range(n):
            dtype = DTYPES[i % len(DTYPES)]
            x = rng.integers(-50, 50, size=int(rng.integers(1, 33))).astype("float64") + i % 7
            label = ("value" if i % 10 == 0 else "ok") + f"-{i}"
            case = clip_case(label, x=np.append(x, divmod(i, 1000)).tolist(), lo=float(rng.integers(-20, 0)),
                             hi=float(rng.integers(0, 20)), dtype="float32" if dtype == "bfloat16" else dtype)
            f.write(json.dumps(case.to_json(), sort_keys=True, separators=(",", ":")) + "\n")


def child(args, stop_when=None):
    """Run `python -m conform.cli ARGS` in a child: (seconds, peak RSS in MB of it and its waited descendants, rc).

    stop_when(): SIGKILL the child as soon as it returns true (checked every 10 ms)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "conform.cli", *args], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if stop_when is not None:
        while p.poll() is None and not stop_when():
            time.sleep(0.01)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    took = time.monotonic() - t0
    if p.returncode not in (0, 1, -signal.SIGKILL):
        raise SystemExit(f"conform {' '.join(args)} failed ({p.returncode}):\n{err.decode()[-3000:]}")
    return took, usage.ru_maxrss / 1024, p.returncode


def count_cases(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for line in f if line.startswith(b'{"record":"case"'))


def split_shards(results: Path, out_dir: Path, k: int = 3) -> list:
    """The records of one run dealt into k shard files with their own headers (as --shard i/k would write)."""
    paths = [out_dir / f"shard{i + 1}.jsonl" for i in range(k)]
    files = [open(p, "w", encoding="utf-8") for p in paths]
    try:
        with open(results, encoding="utf-8") as f:
            header = json.loads(f.readline())
            for i, out in enumerate(files):
                out.write(json.dumps({**header, "shard": f"{i + 1}/{k}", "run_id": f"{header['run_id']}-{i}"}) + "\n")
            for line in f:
                rec = json.loads(line)
                if rec["record"] != "case":
                    continue
                i = int(rec["case_id"][:15], 16) % k
                files[i].write(json.dumps({**rec, "run_id": f"{header['run_id']}-{i}"}) + "\n")
    finally:
        for out in files:
            out.close()
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--keep", metavar="DIR", help="keep the files here instead of a temp dir")
    ap.add_argument("--skip-in-process", action="store_true")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    adapters = [a for spec in ADAPTERS for a in ("--adapter", spec)]
    figures = {}
    try:
        corpus = work / "corpus.jsonl"
        t = time.monotonic()
        build_corpus(corpus, args.cases)
        print(f"corpus: {args.cases} cases, {corpus.stat().st_size / 1e6:.1f} MB, built in {time.monotonic() - t:.1f} s")
        base = ["run", *adapters, "--corpus", str(corpus), "--no-report"]

        full = work / "full"
        took, rss, _ = child([*base, "--out", str(full)])
        results = full / "results.jsonl"
        n = count_cases(results)
        figures["run"] = (took, rss)
        print(f"run (workers): {n} records in {took:.1f} s ({n / took:.0f} records/s), "
              f"peak RSS {rss:.0f} MB; results {results.stat().st_size / 1e6:.0f} MB")

        if not args.skip_in_process:
            took, rss, _ = child([*base, "--out", str(work / "inproc"), "--in-process"])
            figures["run-in-process"] = (took, rss)
            print(f"run (in-process, harness + oracle in one process): {took:.1f} s, peak RSS {rss:.0f} MB")
            shutil.rmtree(work / "inproc", ignore_errors=True)

        took, rss, _ = child([*base, "--out", str(full), "--resume"])
        figures["resume-finished"] = (took, rss)
        print(f"resume of the finished run (reads {n} records back, runs nothing): {took:.2f} s, peak RSS {rss:.0f} MB")

        cut = work / "cut"
        half = n // 2
        cut_results = cut / "results.jsonl"

        def halfway():
            try:
                return os.path.getsize(cut_results) >= results.stat().st_size // 2
            except OSError:
                return False
        child([*base, "--out", str(cut)], stop_when=halfway)
        done = count_cases(cut_results)
        took, rss, _ = child([*base, "--out", str(cut), "--resume"])
        figures["resume-half"] = (took, rss)
        print(f"resume after SIGKILL at {done}/{n} records (~{half}): {took:.1f} s to finish, peak RSS {rss:.0f} MB")
        assert count_cases(cut_results) == n, "the resumed run must end with every record"

        shards = split_shards(results, work)
        took, rss, _ = child(["merge", *map(str, shards), "--out", str(work / "merged")])
        figures["merge"] = (took, rss)
        print(f"merge of 3 shards: {n} records in {took:.1f} s ({n / took:.0f} records/s), peak RSS {rss:.0f} MB")

        took, rss, _ = child(["report", str(results), "--out", str(work / "report")])
        figures["report"] = (took, rss)
        html = work / "report" / "report.html"
        size = f", report.html {html.stat().st_size / 1e6:.1f} MB" if html.exists() else ""
        print(f"report of {n} records: {took:.1f} s, peak RSS {rss:.0f} MB{size}")

        over = {k: v[1] for k, v in figures.items() if v[1] >= LIMIT_MB}
        print("peak memory: " + ("all under" if not over else f"OVER for {over}:") + f" {LIMIT_MB} MB")
        return 0 if not over else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

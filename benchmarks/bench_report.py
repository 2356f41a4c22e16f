"""Report at scale: a 100,000-record results file -> report.html; time, peak memory, browser load time.

    .venv/bin/python benchmarks/bench_report.py [--records 100000] [--keep DIR]

Writes everything into a temp dir (or --keep DIR).  The report is rendered in
a fresh child process so its peak RSS (resource.getrusage of the child) is the
report's alone, not the generator's.  The browser figure is Debian chromium via
Playwright: navigation start to the load event of the file opened from disk.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from report_fixtures import case_record, clip_case, header  # noqa: E402

ADAPTERS = ("oracle", "torch", "vendor", "mindspore")
CLAUSES = ("CL-FORMULA", "CL-MIN-GT-MAX", "CL-BROADCAST", "CL-NAN-BOUND", "CL-DEFAULTS", "CL-GAP-NAN-X")
# failure rates per adapter: the oracle conforms, the others fail a few percent in different ways
FAIL = {"oracle": 0.0, "torch": 0.02, "vendor": 0.08, "mindspore": 0.05}
FAIL_VERDICTS = ("value-mismatch", "unexpected-error", "crash", "wrong-error-class")


def generate(path: Path, n_records: int, seed=0) -> None:
    rng = np.random.default_rng(seed)
    n_cases = n_records // len(ADAPTERS)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header(adapters=ADAPTERS, cases=n_cases)) + "\n")
        for i in range(n_cases):
            c = clip_case(n=1 + i % 64, seed=i, lo=1.0, hi=3.0 if i % 7 else 0.5)
            clauses = [CLAUSES[i % len(CLAUSES)]] + list(c.clauses)
            for a in ADAPTERS:
                verdict = "pass"
                if rng.random() < FAIL[a]:
                    verdict = FAIL_VERDICTS[int(rng.integers(len(FAIL_VERDICTS)))]
                rec = case_record(c, a, verdict, message=f"kernel failed at element {i % 13}")
                rec["clauses"] = clauses
                f.write(json.dumps(rec) + "\n")
        f.write(json.dumps({"record": "end", "schema": 1, "run_id": "run-1", "finished": "2026-11-30T17:00:00Z",
                            "cases": n_cases * len(ADAPTERS), "counts": {}}) + "\n")


def render_in_child(results: Path, out: Path) -> dict:
    code = ("import json, sys, time\n"
            "t = time.perf_counter()\n"
            "from reports.render import write_report\n"
            f"r = write_report([{str(results)!r}], {str(out)!r})\n"
            "print(json.dumps({'seconds': time.perf_counter() - t, 'records': r['records']}))\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out_ = json.loads(p.stdout.strip().splitlines()[-1])
    out_["peak_rss_mb"] = max(peak_kb, before) / 1024
    return out_


def browser_load(html: Path) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"browser": "playwright not installed"}
    if not Path("/usr/bin/chromium").exists():
        return {"browser": "chromium not installed"}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = b.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        t = time.perf_counter()
        page.goto(html.as_uri(), wait_until="load")
        wall = time.perf_counter() - t
        nav = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
        groups = page.locator("details.fgroup").count()
        b.close()
    nav = json.loads(nav)
    return {"browser_load_s": round(wall, 3), "dom_interactive_ms": round(nav["domInteractive"]),
            "load_event_ms": round(nav["loadEventEnd"]), "failure_groups": groups, "page_errors": errors}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--keep", help="write into this folder instead of a temp dir")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        results = d / "results.jsonl"
        t = time.perf_counter()
        generate(results, args.records)
        gen_s = time.perf_counter() - t
        r = render_in_child(results, d / "out")
        html = d / "out" / "report.html"
        figures = {"records": r["records"], "results_mb": round(results.stat().st_size / 2**20, 1),
                   "generate_s": round(gen_s, 1), "report_s": round(r["seconds"], 2),
                   "report_peak_rss_mb": round(r["peak_rss_mb"], 1),
                   "html_kb": round(html.stat().st_size / 1024, 1), **browser_load(html)}
        print(json.dumps(figures, indent=2))
        assert figures["report_peak_rss_mb"] < 1024, "peak memory over 1 GB"
        return figures


if __name__ == "__main__":
    main()

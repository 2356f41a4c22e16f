"""Report at scale: a 100,000-record results file -> report.html; time, peak memory, time to first paint.

    .venv/bin/python benchmarks/bench_report.py [--records 100000] [--fail-rate F] [--loads 5] [--keep DIR]
    .venv/bin/python benchmarks/bench_report.py --main-job [--loads 5] [--keep DIR]

Writes everything into a temp dir (or --keep DIR).  The report, a 3-shard
merge and a diff are each run in a fresh child process, so each peak RSS
(resource.getrusage in the child) is that command's alone, not the generator's.
The browser figures are Debian chromium via Playwright, the file opened from
disk in a fresh page each time, median of --loads: first paint and first
contentful paint (the Paint Timing API), the load event, and "ready" (the
page's script has read every failing case and drawn the first page of them),
all from navigation start.  --fail-rate F makes every non-oracle adapter fail
a share F of its cases (default: 2-8% per adapter), half of the failures
listed as expected divergences.

--main-job builds the main job's shape instead (benchmarks/README.md: 78,504
results): every shipped adapter and the layout variants of those that declare
layouts (24 adapters; compiled modes carry their `mode` record, layouts their
`layout` record), the five ops, about 10% failing across a few causes per
adapter and op, 60% of them listed; the browser figures are then taken at
1400x900, and 1400 and 390 px screenshots of the matrix are kept with --keep.
"""
from __future__ import annotations

import argparse
import json
import statistics
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


def generate(path: Path, n_records: int, seed=0, fail_rate=None) -> None:
    rng = np.random.default_rng(seed)
    n_cases = n_records // len(ADAPTERS)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header(adapters=ADAPTERS, cases=n_cases)) + "\n")
        for i in range(n_cases):
            c = clip_case(n=1 + i % 64, seed=i, lo=1.0, hi=3.0 if i % 7 else 0.5)
            clauses = [CLAUSES[i % len(CLAUSES)]] + list(c.clauses)
            for a in ADAPTERS:
                verdict, listed = "pass", None
                rate = FAIL[a] if fail_rate is None or a == "oracle" else fail_rate
                if rng.random() < rate:
                    verdict = FAIL_VERDICTS[int(rng.integers(len(FAIL_VERDICTS)))]
                    listed = f"{a} is known to fail here" if rng.random() < 0.5 else None
                rec = case_record(c, a, verdict, message=f"kernel failed at element {i % 13}",
                                  expected_divergence=listed)
                rec["clauses"] = clauses
                f.write(json.dumps(rec) + "\n")
        f.write(json.dumps({"record": "end", "schema": 1, "run_id": "run-1", "finished": "2026-11-30T17:00:00Z",
                            "cases": n_cases * len(ADAPTERS), "counts": {}}) + "\n")


def generate_main_job(path: Path, n_records: int = 78_504, seed=0) -> None:
    """The main job's results at its size: 24 adapters (SHIPPED and its layout variants), five ops."""
    from adapters.registry import MODES, SHIPPED, load_class
    from contract.vocabulary import LAYOUTS
    from oracle.registry import CLAUSES, SPECS
    rng = np.random.default_rng(seed)
    layouted = [n for n in SHIPPED if getattr(load_class(n), "layouts", ())]
    adapters = list(SHIPPED) + [f"{a}@{x}" for a in layouted for x in LAYOUTS]
    ops = list(SPECS)
    clauses = {op: [c for c, v in CLAUSES.items() if v.op == op and v.kind in ("sem", "err")] for op in ops}
    verdicts = FAIL_VERDICTS + ("missing-error", "timeout")
    rate = {a: 0.0 if a == "oracle" else 0.11 if "@" in a else float(rng.choice([0.02, 0.055, 0.11, 0.2]))
            for a in adapters}
    causes = {a: [(op, clauses[op][int(rng.integers(len(clauses[op])))], verdicts[int(rng.integers(len(verdicts)))])
                  for op in ops for _ in range(int(rng.integers(1, 5)))] for a in adapters}
    n_cases = n_records // len(adapters)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header(adapters=adapters, cases=n_cases)) + "\n")
        for i in range(n_cases):
            op = ops[i % len(ops)]
            c = clip_case(n=1 + (i * 7) % 40, seed=i, lo=1.0, hi=3.0 if i % 9 else 0.5,
                          label=f"{op} float32 shape ({1 + (i * 7) % 40},) example {i}")
            for a in adapters:
                verdict, listed, blamed = "pass", None, None
                if rng.random() < rate[a]:
                    _, blamed, verdict = causes[a][int(rng.integers(len(causes[a])))]
                    listed = f"{a.split('@')[0]}: a known divergence" if rng.random() < 0.6 else None
                rec = case_record(c, a, verdict, exc_class="RuntimeError", expected_divergence=listed,
                                  message=f"{a} kernel failed: index {i % 97} is out of bounds for size {1 + i % 40}")
                rec["op"] = rec["case"]["op"] = op
                rec["clauses"] = [blamed or clauses[op][i % len(clauses[op])], clauses[op][0]]
                rec["native_api"] = f"{a.split('@')[0].split(':')[-1]}.{op}"
                if "@" in a:
                    base, layout = a.split("@")
                    rec["layout"] = {"layout": layout, "of": base, "agrees": verdict == "pass" or rng.random() < 0.5,
                                     "default_verdict": "pass", "default_outcome": "returned out",
                                     "listed": "a known layout difference" if listed else ""}
                if a in MODES:
                    rec["mode"] = {"twin": MODES[a], "agrees": True, "twin_verdict": "pass",
                                   "twin_outcome": "returned out", "listed": ""}
                f.write(json.dumps(rec) + "\n")
        f.write(json.dumps({"record": "end", "schema": 1, "run_id": "run-1", "finished": "2026-11-30T17:00:00Z",
                            "cases": n_cases * len(adapters), "counts": {}}) + "\n")


def in_child(call: str) -> dict:
    """Run `call` (Python using reports.*) in a fresh interpreter; its time and peak memory.

    Two peak figures: resource.getrusage's ru_maxrss, which Linux carries over
    from the forking parent across exec (an upper bound), and the child's own
    high-water mark VmHWM from /proc (reset by exec).
    """
    code = ("import json, resource, time\n"
            "t = time.perf_counter()\n"
            f"{call}\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
            "print(json.dumps({'seconds': time.perf_counter() - t,\n"
            "                  'ru_maxrss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,\n"
            "                  'vmhwm_mb': int(hwm[0].split()[1]) / 1024 if hwm else None}))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def split(results: Path, n: int) -> list:
    """The results file as n shard files, like `--shard K/N` runs would give (each its own header's shard K/N
    and an end record, as merge requires of a finished shard); streamed."""
    paths = [results.with_name(f"shard{k + 1}.jsonl") for k in range(n)]
    outs = [open(p, "w", encoding="utf-8") for p in paths]
    counts = [0] * n
    try:
        with open(results, encoding="utf-8") as f:
            head = json.loads(f.readline())
            for k, o in enumerate(outs):
                o.write(json.dumps(dict(head, shard=f"{k + 1}/{n}")) + "\n")
            i = 0
            for line in f:
                if line.startswith('{"record": "case"'):
                    outs[i % n].write(line)
                    counts[i % n] += 1
                    i += 1
        for o, c in zip(outs, counts):
            o.write(json.dumps({"record": "end", "schema": 1, "run_id": head["run_id"],
                                "finished": "2026-11-30T17:00:00Z", "cases": c, "counts": {}}) + "\n")
    finally:
        for o in outs:
            o.close()
    return paths


PAINT = """() => {
  const nav = performance.getEntriesByType("navigation")[0], paint = {};
  performance.getEntriesByType("paint").forEach(p => { paint[p.name] = p.startTime; });
  return {fp: paint["first-paint"], fcp: paint["first-contentful-paint"], load: nav.loadEventEnd,
          ready: window.__ready, dom_interactive: nav.domInteractive};
}"""


def browser_load(html: Path, loads: int = 5, viewport=(1280, 800), shots=None) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"browser": "playwright not installed"}
    if not Path("/usr/bin/chromium").exists():
        return {"browser": "chromium not installed"}
    runs, errors = [], []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for _ in range(loads):
            page = b.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            page.on("pageerror", lambda e: errors.append(str(e)))
            # "ready": the moment the failing-case list has its first page, seen by a MutationObserver
            page.add_init_script("""new MutationObserver((_, o) => {
                const list = document.getElementById("case-list");
                if (list && list.childElementCount) { window.__ready = performance.now(); o.disconnect(); }
              }).observe(document, {childList: true, subtree: true});""")
            page.goto(html.as_uri(), wait_until="load")
            page.wait_for_function("() => performance.getEntriesByType('paint').length >= 2 && window.__ready")
            runs.append(page.evaluate(PAINT))
            groups = page.locator("details.fgroup").count()
            rows_in_dom, elements = page.evaluate("[document.querySelectorAll('tr').length, "
                                                  "document.querySelectorAll('*').length]")
            rows = int(page.inner_text("#f-count").split(", ")[1].split()[0])    # "G of G groups, N failing cases"
            if shots and not runs[1:]:          # the matrix at a desktop and a phone width, for a person to look at
                for width, height in ((1400, 900), (390, 844)):
                    page.set_viewport_size({"width": width, "height": height})
                    page.evaluate("document.getElementById('matrix').scrollIntoView()")
                    page.screenshot(path=str(Path(shots) / f"matrix-{width}.png"))
            page.close()
        b.close()

    def med(k):
        return round(statistics.median(r[k] for r in runs))
    return {"first_paint_ms": med("fp"), "first_contentful_paint_ms": med("fcp"), "ready_ms": med("ready"),
            "load_event_ms": med("load"), "dom_interactive_ms": med("dom_interactive"),
            "first_contentful_paint_ms_each": [round(r["fcp"]) for r in runs],
            "failure_groups": groups, "failing_rows": rows, "page_errors": errors,
            "table_rows": rows_in_dom, "elements": elements}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--fail-rate", type=float, default=None,
                    help="share of failing cases of every non-oracle adapter (default: 2-8%% each)")
    ap.add_argument("--loads", type=int, default=5, help="page loads to take the median of")
    ap.add_argument("--keep", help="write into this folder instead of a temp dir")
    ap.add_argument("--main-job", action="store_true",
                    help="the main job's shape: 24 adapters (variants included), 78,504 results; browser at 1400 px")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        results = d / "results.jsonl"
        t = time.perf_counter()
        if args.main_job:
            generate_main_job(results)
        else:
            generate(results, args.records, fail_rate=args.fail_rate)
        gen_s = time.perf_counter() - t
        r = in_child(f"from reports.render import write_report; write_report([{str(results)!r}], {str(d / 'out')!r})")
        html = d / "out" / "report.html"
        figures = {"records": sum(1 for _ in open(results, encoding="utf-8")) - 2,
                   "results_mb": round(results.stat().st_size / 2**20, 1), "generate_s": round(gen_s, 1),
                   "report_s": round(r["seconds"], 2), "report_peak_rss_mb": round(r["vmhwm_mb"], 1),
                   "report_ru_maxrss_mb": round(r["ru_maxrss_mb"], 1),
                   "html_kb": round(html.stat().st_size / 1024, 1), "html_mb": round(html.stat().st_size / 2**20, 2)}
        if not args.main_job:       # merge and diff: measured on the 4-adapter file (their cost is per record)
            shards = [str(p) for p in split(results, 3)]
            mg = in_child(f"from reports.merge import merge; merge({shards!r}, {str(d / 'merged.jsonl')!r})")
            df = in_child(f"from reports.diff import write_diff; write_diff({str(results)!r}, "
                          f"{str(d / 'merged.jsonl')!r}, {str(d / 'diff')!r})")
            figures.update({"merge_3_shards_s": round(mg["seconds"], 2), "merge_peak_rss_mb": round(mg["vmhwm_mb"], 1),
                            "merge_ru_maxrss_mb": round(mg["ru_maxrss_mb"], 1),
                            "diff_s": round(df["seconds"], 2), "diff_peak_rss_mb": round(df["vmhwm_mb"], 1),
                            "diff_ru_maxrss_mb": round(df["ru_maxrss_mb"], 1)})
        figures.update(browser_load(html, args.loads, *(((1400, 900), args.keep) if args.main_job else ())))
        print(json.dumps(figures, indent=2))
        for k in ("report_ru_maxrss_mb", "merge_ru_maxrss_mb", "diff_ru_maxrss_mb"):
            assert figures.get(k, 0) < 1024, f"{k}: peak memory over 1 GB"
        return figures


if __name__ == "__main__":
    main()

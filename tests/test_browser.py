"""The report in a real browser: Debian chromium driven by Playwright, opened from disk, no network."""
import shutil
from pathlib import Path

import pytest

from reports.render import write_report

from report_fixtures import case_record, clip_case, small_run, write_results

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                       reason="Debian chromium is not installed at /usr/bin/chromium (.ci/run installs it)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright for Python is not installed")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    cases, recs = small_run(6)
    recs.append(case_record(clip_case(n=5, lo=3.0, hi=1.0, seed=9), "vendor", "value-mismatch",
                            actual=[3.0, 3.0, 3.0, 3.0, 3.0]))
    recs.append(case_record(clip_case(n=4, seed=1), "vendor", "pass"))
    write_results(d / "r.jsonl", recs, adapters=("oracle", "torch", "vendor"))
    return Path(write_report([d / "r.jsonl"], d / "out")["report_html"])


@pytest.fixture(scope="module")
def page(report):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page()
        problems = []
        pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
        pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        pg.on("request", lambda r: problems.append(f"network request: {r.url}") if not r.url.startswith(("file:", "data:")) else None)
        pg.goto(report.as_uri())
        pg.problems = problems
        yield pg
        browser.close()


def test_matrix_shows_each_adapter_rate_and_counts(page):
    cell = page.locator('#matrix-table td.cell[data-op="clip"][data-adapter="torch"]')
    assert cell.count() == 1
    text = cell.inner_text()
    assert "66.7%" in text and "pass 4" in text and "value-mismatch 1" in text and "torch.clamp" in text
    assert "100.0%" in page.locator('#matrix-table td.cell[data-adapter="oracle"]').inner_text()
    assert page.locator("svg rect.bar").count() == 6     # oracle 1 verdict, torch 3, vendor 2


def test_filter_hides_other_groups(page):
    page.click("#f-reset")
    groups = page.locator("details.fgroup")
    assert groups.count() == 3
    page.select_option("#f-adapter", "vendor")
    visible = page.locator("details.fgroup:not([hidden])")
    assert visible.count() == 1 and visible.get_attribute("data-adapter") == "vendor"
    assert page.inner_text("#f-count") == "1 of 3 groups, 1 failing cases"
    page.click("#f-reset")
    assert page.locator("details.fgroup:not([hidden])").count() == 3


def test_drill_down_from_matrix_cell_to_minimal_repro_in_two_clicks(page):
    page.click('#matrix-table td.cell[data-adapter="vendor"]')                 # click 1: the cell
    group = page.locator("details.fgroup:not([hidden])")
    assert group.count() == 1 and group.get_attribute("open") is not None     # opened on its minimal case
    body = group.locator(".body")
    assert body.locator("pre.repro").is_visible() and "vendor" in body.locator("pre.repro").inner_text()
    # x = [2.25 .. 6.25], min 3 > max 1: the document says every element is max (CL-MIN-GT-MAX); vendor gave min
    exp_table, act_table = body.locator(".pair").last.locator("table.arr").all()
    assert exp_table.locator("td.diff").all_inner_texts() == ["1.0"] * 5
    assert act_table.locator("td.diff").all_inner_texts() == ["3.0"] * 5
    assert body.locator(".ndiff").inner_text() == "5"


def test_hostile_message_shows_as_text(page):
    page.click("#f-reset")
    page.select_option("#f-verdict", "unexpected-error")
    g = page.locator("details.fgroup:not([hidden])")
    g.locator("summary").click()
    assert g.locator("pre.message").inner_text() == "boom <script>alert(1)</script>"
    page.click("#f-reset")


def test_agreement_link_opens_the_differing_cases(page):
    page.click("#agreement-table a[href='#agree-oracle-torch']")
    d = page.locator("details#agree-oracle-torch")
    assert d.get_attribute("open") is not None
    assert d.locator("tbody tr").count() == 2


def test_console_shows_no_errors(page):     # last in the file: after every interaction
    assert page.problems == []

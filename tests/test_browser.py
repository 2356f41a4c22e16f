"""The report in a real browser: Debian chromium driven by Playwright, opened from disk, no network.

Geometry is checked the way a user meets it: `document.elementFromPoint` at
the centre of every matrix row header and cell says whether that spot can be seen
and clicked, at a 1280 or 1400 px desktop and a 390 px phone.
"""
import csv
import io
import json
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from adapters.registry import BUILTIN, MODES
from contract.vocabulary import DIVERGENT, LAYOUTS
from reports.render import PAGE_ROWS, write_report

from report_fixtures import FIVE, case_record, clip_case, five_adapter_run, write_results

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP, WIDE_DESKTOP, PHONE = (1280, 800), (1400, 900), (390, 844)

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                       reason="Debian chromium is not installed at /usr/bin/chromium (.ci/run installs it)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright for Python is not installed")
ADAPTERS = FIVE + ("vendor",)     # the five shipped adapters and a vendor's: six columns


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(report path, case records): the records are what the tests derive every expected figure from."""
    d = tmp_path_factory.mktemp("browser")
    _, recs = five_adapter_run()
    recs.append(case_record(clip_case(n=5, lo=3.0, hi=1.0, seed=9), "vendor", "value-mismatch",
                            actual=[3.0, 3.0, 3.0, 3.0, 3.0]))
    recs.append(case_record(clip_case(n=4, seed=1), "vendor", "pass"))
    write_results(d / "r.jsonl", recs, adapters=ADAPTERS)
    return Path(write_report([d / "r.jsonl"], d / "out")["report_html"]), recs


@pytest.fixture(scope="module")
def report(run):
    return run[0]


@pytest.fixture(scope="module")
def records(run):
    return run[1]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        b.problems = []
        yield b
        b.close()


def open_page(browser, url, size=DESKTOP, **kw):
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]}, **kw)
    pg.on("console", lambda m: browser.problems.append(f"console {m.type}: {m.text}")
          if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: browser.problems.append(f"page error: {e}"))
    # file: is the report, data: its icon, blob: the CSV it builds; anything else would be the network
    pg.on("request", lambda r: browser.problems.append(f"network request: {r.url}")
          if not r.url.startswith(("file:", "data:", "blob:")) else None)
    pg.goto(url)
    # the failing cases and the groups' bodies are unpacked once after load (render.packed)
    pg.wait_for_selector("html[data-ready]", state="attached")
    return pg


@pytest.fixture(scope="module")
def page(browser, report):
    pg = open_page(browser, report.as_uri(), accept_downloads=True)
    yield pg
    pg.close()


def divergent(records, listed=None):
    return [r for r in records if r["verdict"] in DIVERGENT
            and (listed is None or bool(r.get("expected_divergence")) == listed)]


def shown_count(page):
    return page.inner_text("#f-count")


def search(page, query):
    page.fill("#f-q", query)
    page.press("#f-q", "Enter")          # applies at once (typing applies after a short pause)


def wait_count(page, text):
    page.wait_for_function("t => document.getElementById('f-count').textContent === t", arg=text)


def case_ids_on_page(page, box="#case-list"):
    return page.locator(f"{box} tr[data-case]").evaluate_all("rows => rows.map(r => r.getAttribute('data-case'))")


# ---- layout: real geometry at a desktop and a phone width ------------------------------------------

# For every element: can the point at its centre be seen and clicked, i.e. is the topmost element there
# the element itself or inside it?  Scrolls it into view first (window, and its own scroll box).
HIT_TEST = """([sel, inline]) => Array.from(document.querySelectorAll(sel)).map(el => {
  el.scrollIntoView({block: "center", inline: inline});
  const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {what: (el.getAttribute("data-op") || "header") + "/" + (el.getAttribute("data-adapter") || el.textContent.trim()),
          ok: !!hit && (hit === el || el.contains(hit)), hit: hit ? hit.outerHTML.slice(0, 80) : null,
          left: r.left, right: r.right, vw: innerWidth};
})"""

# Every table fits its page, or scrolls inside a box of its own that fits.
TABLES_FIT = """() => Array.from(document.querySelectorAll("table")).filter(t => t.getClientRects().length).map(t => {
  let box = t.parentElement;
  while (box && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
  const r = (box || t).getBoundingClientRect();
  return {table: t.id || t.className || t.outerHTML.slice(0, 60), boxed: !!box,
          ok: r.left >= -0.5 && r.right <= innerWidth + 0.5};
})"""

PAGE_WIDTH = """() => ({scroll: document.documentElement.scrollWidth, vw: innerWidth,
  overflow: [getComputedStyle(document.documentElement).overflowX, getComputedStyle(document.body).overflowX]})"""


def assert_page_does_not_scroll_sideways(pg):
    w = pg.evaluate(PAGE_WIDTH)
    # not hidden: a clipped page would hide the overflow instead of fixing it
    assert w["overflow"] == ["visible", "visible"], w
    assert w["scroll"] <= w["vw"], f"page is {w['scroll']} px wide in a {w['vw']} px viewport"


def open_everything(pg):
    """Open every <details> so the tables inside have a geometry too."""
    pg.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")


def test_desktop_every_adapter_row_visible_and_clickable(browser, report):
    pg = open_page(browser, report.as_uri(), DESKTOP)
    try:
        pg.screenshot(path=str(report.parent / "desktop-1280.png"))     # the first screen, for a person to look at
        scroll = pg.evaluate("() => { const s = document.getElementById('matrix-scroll');"
                             " return [s.scrollWidth, s.clientWidth]; }")
        assert scroll[0] <= scroll[1], f"the matrix needs a sideways scroll at 1280 px: {scroll}"
        headers = pg.evaluate(HIT_TEST, ["#matrix-table th.adapter[data-adapter]", "nearest"])
        # mindspore-variants is a variant of mindspore: it follows it
        assert [h["what"] for h in headers] == [f"header/{a}" for a in ("oracle", "mindspore", "mindspore-variants",
                                                                        "pypto", "torch", "vendor")]
        cells = pg.evaluate(HIT_TEST, ["#matrix-table td[data-adapter]", "nearest"])
        assert len(cells) == len(ADAPTERS)      # one op (clip) x every adapter
        for e in headers + cells:
            assert e["ok"] and 0 <= e["left"] and e["right"] <= e["vw"], e
        assert pg.evaluate("document.getElementById('matrix-scroll').scrollLeft") == 0
        # a real click on the last column's cell reaches it
        last = pg.locator("#matrix-table td.cell").last
        box = last.bounding_box()
        pg.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert pg.input_value("#f-adapter") == last.get_attribute("data-adapter")
        pg.click("#f-reset")
        open_everything(pg)
        assert all(t["ok"] for t in pg.evaluate(TABLES_FIT)), pg.evaluate(TABLES_FIT)
        assert_page_does_not_scroll_sideways(pg)
    finally:
        pg.close()


def test_phone_page_does_not_scroll_sideways_and_matrix_scrolls_in_its_box(browser, report):
    pg = open_page(browser, report.as_uri(), PHONE)
    try:
        pg.screenshot(path=str(report.parent / "phone-390.png"))
        assert_page_does_not_scroll_sideways(pg)
        for sel in ("#matrix-table th.adapter[data-adapter]", "#matrix-table td[data-adapter]",
                    "#clause-table thead th", "#clause-table td[data-adapter]"):
            for e in pg.evaluate(HIT_TEST, [sel, "center"]):
                assert e["ok"], (sel, e)
        assert_page_does_not_scroll_sideways(pg)        # scrolling the boxes did not widen the page
        open_everything(pg)
        fits = pg.evaluate(TABLES_FIT)
        assert fits and all(t["ok"] for t in fits), [t for t in fits if not t["ok"]]
        assert any(t["boxed"] and t["table"] == "matrix-table" for t in fits)
        assert_page_does_not_scroll_sideways(pg)
    finally:
        pg.close()


# ---- the gate ---------------------------------------------------------------------------------------

def test_gate_is_on_the_first_screen_with_counts_per_adapter(browser, report, records):
    pg = open_page(browser, report.as_uri(), DESKTOP)
    try:
        unlisted, listed = len(divergent(records, False)), len(divergent(records, True))
        assert unlisted and listed, "the fixture must have both kinds"
        total = pg.locator("#gate-total")
        assert total.bounding_box()["y"] + total.bounding_box()["height"] <= DESKTOP[1]
        assert int(total.locator(".n-unlisted").inner_text()) == unlisted
        assert int(total.locator(".n-expected").inner_text()) == listed
        assert "exit code 1" in total.inner_text()          # docs/CLI.md: 1 when a divergence is unlisted
        for a in ADAPTERS:
            card = pg.locator(f'.card[data-adapter="{a}"]')
            assert card.bounding_box()["y"] + card.bounding_box()["height"] <= DESKTOP[1], f"{a}'s card below the fold"
            u = sum(1 for r in divergent(records, False) if r["adapter"] == a)
            e = sum(1 for r in divergent(records, True) if r["adapter"] == a)
            applicable = [r for r in records if r["adapter"] == a and r["verdict"] != "not-applicable"]
            assert int(card.locator(".n-unlisted").inner_text()) == u
            assert int(card.locator(".n-expected").inner_text()) == e
            assert f"(exit {1 if u else 0})" in card.inner_text()
            tone = "unlisted" if u else "listed" if e else "clean" if applicable else "na"
            assert card.get_attribute("data-tone") == tone, a     # coloured by the gate, not by the rate
        # mindspore's rate is low, but all its divergences are listed: not red
        colour = pg.evaluate("getComputedStyle(document.querySelector('.card[data-adapter=mindspore]')).borderTopColor")
        assert colour != pg.evaluate("getComputedStyle(document.querySelector('.card[data-adapter=torch]')).borderTopColor")
    finally:
        pg.close()


def test_unlisted_only_filter_and_gate_link(page, records):
    page.click("#f-reset")
    page.click("#gate-total a.show-unlisted")                  # "show them"
    # the link changes the hash; the page reads it on hashchange, a task after the click returns
    page.wait_for_selector("#f-unlisted:checked", timeout=5000)
    unlisted = divergent(records, False)
    wait_count(page, f"{len({(r['adapter'], r['verdict']) for r in unlisted})} of "
                     f"{page.locator('details.fgroup').count()} groups, {len(unlisted)} failing cases")
    assert set(case_ids_on_page(page)) == {r["case_id"] for r in unlisted}
    assert page.locator("details.fgroup:not([hidden])[data-listed='1']").count() == 0
    page.click("#f-reset")


# ---- terms and clauses --------------------------------------------------------------------------------

def test_clause_statement_is_visible_text_with_source_and_failing_group_links(page):
    import oracle
    clause = oracle.CLAUSES["CL-MIN-GT-MAX"]
    row = page.locator('#clause-table tr[data-clause="CL-MIN-GT-MAX"]')
    statement = row.locator(".statement")
    statement.scroll_into_view_if_needed()
    # the section is laid out once near the viewport (content-visibility): wait for its text to be drawn
    page.wait_for_function("s => document.querySelector(s).innerText === %s" % json.dumps(clause.statement),
                           arg='#clause-table tr[data-clause="CL-MIN-GT-MAX"] .statement')
    assert statement.is_visible() and statement.inner_text() == clause.statement
    assert row.get_attribute("title") is None
    assert row.locator("a.spec-link").get_attribute("href").endswith("docs/SPEC.md#cl-min-gt-max")
    link = row.locator("a.group-link", has_text="vendor")
    link.click()
    group = page.locator("details.fgroup[data-adapter=vendor][data-clause=CL-MIN-GT-MAX]")
    page.wait_for_function("() => document.querySelector('details.fgroup[data-adapter=vendor]').open")
    assert group.is_visible() and "open=" in page.url
    page.click("#f-reset")


def test_every_term_used_is_explained_in_the_glossary(page):
    import oracle
    glossary = page.locator("#glossary")
    for v in ("pass", "value-mismatch", "missing-error", "unexpected-error", "wrong-error-class", "crash",
              "timeout", "extension", "not-applicable"):
        assert glossary.locator(f"#term-{v} + dd").inner_text().strip(), v
    for k in {c.kind for c in oracle.CLAUSES.values()}:
        assert glossary.locator(f"#term-kind-{k} + dd").inner_text().strip(), k
    for t in ("gate", "unlisted", "listed", "rate", "agreement", "actual", "colours"):
        assert glossary.locator(f"#term-{t} + dd").inner_text().strip(), t
    assert "disagree" in glossary.locator("#term-agreement + dd").inner_text()
    dup = page.evaluate("() => { const ids = Array.from(document.querySelectorAll('[id]'), e => e.id);"
                        " return ids.filter((id, i) => ids.indexOf(id) !== i); }")
    assert dup == []
    # every in-page term link lands on a definition
    targets = page.locator("a.term").evaluate_all("as => as.map(a => a.getAttribute('href').slice(1))")
    missing = page.evaluate("ids => ids.filter(id => !document.getElementById(id))", sorted(set(targets)))
    assert missing == []


# ---- navigation: search, pages, URL state, export -----------------------------------------------------

def test_search_finds_cases_by_id_label_clause_and_message(page, records):
    page.click("#f-reset")
    torch_error = next(r for r in records if r["adapter"] == "torch" and r["verdict"] == "unexpected-error")
    listed = divergent(records, True)
    for query, expect in ((listed[7]["case_id"], {(listed[7]["case_id"], "mindspore")}),
                          ('"ms listed 042"', {(r["case_id"], r["adapter"]) for r in listed
                                               if r["case"]["label"] == "ms listed 042"}),
                          ("alert(1)", {(torch_error["case_id"], "torch")}),     # the exception message
                          ("CL-MIN-GT-MAX", {(r["case_id"], r["adapter"]) for r in divergent(records)
                                             if "CL-MIN-GT-MAX" in r["clauses"]})):
        search(page, query)
        wait_count(page, f"{len({a for _, a in expect})} of {page.locator('details.fgroup').count()} groups, "
                         f"{len(expect)} failing cases")
        rows = page.locator("#case-list tr[data-case]")
        assert {(rows.nth(i).get_attribute("data-case"), rows.nth(i).locator("td").nth(1).inner_text())
                for i in range(rows.count())} == expect, query
    page.click("#f-reset")


def test_every_failing_case_is_reachable_page_by_page(page, records):
    page.click("#f-reset")
    page.select_option("#f-adapter", "mindspore")
    want = [r["case_id"] for r in divergent(records) if r["adapter"] == "mindspore"]
    assert len(want) > PAGE_ROWS
    seen = case_ids_on_page(page)
    assert len(seen) == PAGE_ROWS
    while page.locator("#case-list .pg-next").is_enabled():
        page.click("#case-list .pg-next")
        seen += case_ids_on_page(page)
    assert Counter(seen) == Counter(want)
    # and inside the group, ten at a time
    group = page.locator("details.fgroup[data-adapter=mindspore]")
    group.locator("summary").click()
    group.locator(".group-cases tr[data-case]").first.wait_for()
    inside = case_ids_on_page(page, "details.fgroup[data-adapter=mindspore] .group-cases")
    while group.locator(".group-cases .pg-next").is_enabled():
        group.locator(".group-cases .pg-next").click()
        inside += case_ids_on_page(page, "details.fgroup[data-adapter=mindspore] .group-cases")
    assert Counter(inside) == Counter(want)
    page.click("#f-reset")


def test_url_reproduces_the_view(page, browser):
    page.click("#f-reset")
    page.select_option("#f-adapter", "mindspore")
    search(page, '"ms listed 0"')                          # a phrase: all 60 labels, two pages
    wait_count(page, "1 of %d groups, 60 failing cases" % page.locator("details.fgroup").count())
    page.click("#case-list .pg-next")
    page.locator("details.fgroup[data-adapter=mindspore] summary").click()
    page.wait_for_function("() => location.hash.includes('open=')")     # the toggle event writes it
    url = page.url
    params = parse_qs(url.split("#", 1)[1])
    assert params["adapter"] == ["mindspore"] and params["q"] == ['"ms listed 0"'] and params["page"] == ["2"]
    assert params["open"] == [page.locator("details.fgroup[data-adapter=mindspore]").get_attribute("id")[2:]]
    count, rows = shown_count(page), case_ids_on_page(page)
    assert len(rows) == 60 - PAGE_ROWS
    other = open_page(browser, url)
    try:
        assert other.input_value("#f-adapter") == "mindspore" and other.input_value("#f-q") == '"ms listed 0"'
        assert shown_count(other) == count and case_ids_on_page(other) == rows
        assert other.locator("details.fgroup[data-adapter=mindspore]").get_attribute("open") is not None
    finally:
        other.close()
    page.click("#f-reset")


def test_csv_export_holds_every_filtered_case(page, records):
    page.click("#f-reset")
    page.select_option("#f-adapter", "mindspore")
    with page.expect_download() as dl:
        page.click("#f-csv")
    assert dl.value.suggested_filename == "failures.csv"
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    want = [r for r in divergent(records) if r["adapter"] == "mindspore"]
    assert Counter(r["case_id"] for r in rows) == Counter(r["case_id"] for r in want)
    assert {(r["adapter"], r["verdict"], r["gate"]) for r in rows} == {("mindspore", "value-mismatch", "listed")}
    assert {r["expected_divergence"] for r in rows} == {want[0]["expected_divergence"]}
    # a label that starts like a formula is defused, and kept readable
    assert "'=1+1 ms listed 000" in {r["label"] for r in rows}
    page.click("#f-reset")


# ---- drill-down, escaping, agreement (the earlier checks) ---------------------------------------------

def test_drill_down_from_matrix_cell_to_minimal_repro_in_two_clicks(page):
    page.click("#f-reset")
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
    page.click("#f-reset")


def test_hostile_message_shows_as_text(page):
    page.click("#f-reset")
    page.select_option("#f-verdict", "unexpected-error")
    g = page.locator("details.fgroup:not([hidden])")
    g.locator("summary").click()
    assert g.locator("pre.message").inner_text() == "boom <script>alert(1)</script>"
    # the group's case table is drawn by the page's script when the group opens: wait for its first row
    g.locator(".group-cases tr[data-case]").first.wait_for()
    assert "alert(1)" in g.locator(".group-cases").inner_text()       # rendered by the script as text too
    assert page.locator("#case-list script, .group-cases script").count() == 0
    page.click("#f-reset")


def test_agreement_link_opens_the_differing_cases(page):
    page.click("#agreement-table a[href='#agree-oracle-torch']")
    d = page.locator("details#agree-oracle-torch")
    page.wait_for_function("() => document.querySelector('details#agree-oracle-torch').open", timeout=5000)
    assert d.get_attribute("open") is not None
    assert d.locator("tbody tr").count() == 2


def test_console_shows_no_errors(browser, page):     # last in the file: after every interaction
    assert browser.problems == []


# ---- the report at every adapter the main job runs (issue 37: 24 adapters, variants under their base) --------

# every shipped adapter (compiled modes included), the layout variants the main job runs (docs/CLI.md: torch,
# mindspore and mindspore-variants declare layouts), a vendor's adapter and a second construction of it
LAYOUTED = ("torch", "mindspore", "mindspore-variants")
WIDE = ADAPTERS + tuple(name for name in BUILTIN if name not in ADAPTERS) \
    + tuple(f"{a}@{x}" for a in LAYOUTED for x in LAYOUTS) + ("vendor@from_numpy",)
OPS = ("clip", "scatter", "setitem")


def family_of(name):
    """The adapter a variant belongs under, from the registry (the report derives it from names and records)."""
    base = name.split("@")[0]
    base = MODES.get(base, base)
    return next((b for b in BUILTIN if base.startswith(b + "-")), base)


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory, run):
    d = tmp_path_factory.mktemp("browser-wide")
    recs = list(run[1])
    for i, name in enumerate(WIDE[len(ADAPTERS):]):
        for k, op in enumerate(OPS):    # a few ops as columns; the records' op is what the matrix reads
            for rec in (case_record(clip_case(n=4, seed=20 + k), name, "pass"),
                        case_record(clip_case(n=5, lo=3.0, hi=1.0, seed=30 + k), name, "value-mismatch",
                                    actual=[3.0] * 5,
                                    expected_divergence="framework bug: a listed reason" if i % 2 else None)):
                rec["op"] = rec["case"]["op"] = op
                if name in MODES:
                    rec["mode"] = {"twin": MODES[name], "agrees": True, "twin_verdict": "pass",
                                   "twin_outcome": "returned out", "listed": ""}
                recs.append(rec)
    write_results(d / "r.jsonl", recs, adapters=WIDE)
    return Path(write_report([d / "r.jsonl"], d / "out")["report_html"])


# Where a name's lines break: each break must follow "-" or ":" or come before "@" (never inside a word)
BREAKS = """() => Array.from(document.querySelectorAll("#matrix-table th.adapter .aname")).map(el => {
  const text = el.textContent, bad = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), chars = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode())
    for (let i = 0; i < n.length; i++) {
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      chars.push([n.data[i], r.getBoundingClientRect().top]);
    }
  for (let i = 1; i < chars.length; i++)
    if (chars[i][1] > chars[i - 1][1] + 2 && !("-:".includes(chars[i - 1][0]) || chars[i][0] === "@"))
      bad.push(text.slice(0, i) + " | " + text.slice(i));
  return {name: text, bad};
})"""


@pytest.mark.parametrize("size", [WIDE_DESKTOP, PHONE], ids=["1400px", "390px"])
def test_every_adapter_of_the_main_job_is_a_reachable_row_under_its_base(browser, wide_report, size):
    pg = open_page(browser, wide_report.as_uri(), size)
    try:
        pg.evaluate("document.getElementById('matrix').scrollIntoView()")
        pg.screenshot(path=str(wide_report.parent / f"wide-{size[0]}.png"))    # for a person to look at
        assert_page_does_not_scroll_sideways(pg)
        # no op column cut off: the matrix needs no sideways scroll at either width
        scroll = pg.evaluate("() => { const s = document.getElementById('matrix-scroll');"
                             " return [s.scrollWidth, s.clientWidth]; }")
        assert scroll[0] <= scroll[1], f"{len(WIDE)} adapters: the matrix needs a sideways scroll: {scroll}"
        rows = pg.evaluate(HIT_TEST, ["#matrix-table th.adapter[data-adapter]", "nearest"])
        assert sorted(r["what"] for r in rows) == sorted(f"header/{a}" for a in WIDE)
        assert all(r["ok"] and r["left"] >= 0 and r["right"] <= r["vw"] for r in rows), [r for r in rows if not r["ok"]]
        cells = pg.evaluate(HIT_TEST, ["#matrix-table td[data-adapter]", "nearest"])
        assert len(cells) == len(WIDE) * len(OPS)
        bad = [c for c in cells if not (c["ok"] and c["left"] >= 0 and c["right"] <= c["vw"])]
        assert bad == [], bad[:3]
        assert pg.evaluate("document.getElementById('matrix-scroll').scrollLeft") == 0
        # each variant in its base's row group, after its base
        family = pg.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll(
            "#matrix-table tbody.family tr[data-adapter]"), tr => [tr.getAttribute("data-adapter"),
            tr.parentElement.getAttribute("data-family")]))""")
        assert family == {a: family_of(a) for a in WIDE}
        order = list(family)
        assert all(order.index(a.split("@")[0]) < order.index(a) for a in WIDE if "@" in a)
        assert [b for b in pg.evaluate(BREAKS) if b["bad"]] == []
        open_everything(pg)
        fits = pg.evaluate(TABLES_FIT)
        assert all(t["ok"] for t in fits), [t for t in fits if not t["ok"]]
        assert_page_does_not_scroll_sideways(pg)
    finally:
        pg.close()


def test_failures_are_browsed_by_family_adapter_and_op(browser, wide_report):
    pg = open_page(browser, wide_report.as_uri(), PHONE)
    try:
        # torch@strided's failing groups sit under torch's family, torch@strided, then the op
        group = pg.locator('details.fgroup[data-adapter="torch@strided"]').first
        path = group.evaluate("""g => { const out = [];
            for (let p = g.parentElement; p; p = p.parentElement)
              if (p.tagName === "DETAILS") out.push(p.className + ":" + (p.getAttribute("data-op")
                || p.getAttribute("data-adapter") || p.getAttribute("data-family")));
            return out; }""")
        assert path == ["fnode fop:" + group.get_attribute("data-op"), "fnode fadapter:torch@strided",
                        "fnode ffamily:torch"]
        # closed, the levels show their counts; only the families and lone adapters are on the page
        assert pg.locator("details.fnode[open], details.fgroup[open]").count() == 0
        summary = pg.locator('details.fadapter[data-adapter="torch@strided"] > summary').text_content()
        n = sum(int(g.get_attribute("data-count"))
                for g in pg.locator('details.fgroup[data-adapter="torch@strided"]').all())
        assert f"{n} failing case" in summary
        # the adapter filter leaves one adapter's levels, opened down to its groups
        pg.select_option("#f-adapter", "torch@strided")
        assert pg.locator("details.fnode:not([hidden])").evaluate_all(
            "ns => ns.map(n => n.getAttribute('data-adapter') || n.getAttribute('data-family'))") == \
            ["torch", "torch@strided"] + ["torch@strided"] * pg.locator('details.fop[data-adapter="torch@strided"]').count()
        g = pg.locator("details.fgroup:not([hidden])").first
        g.locator("summary").click()
        g.locator("pre.repro").wait_for()
        assert "torch@strided" in g.locator("pre.repro").inner_text()
        assert_page_does_not_scroll_sideways(pg)
        # what the page hides stays hidden, whatever its class's display (the unpack note was shown by .gate-total)
        shown = pg.evaluate("""() => [...document.querySelectorAll('[hidden]')]
            .filter(e => getComputedStyle(e).display !== 'none').map(e => e.id || e.className)""")
        assert shown == [], f"actual: hidden elements on screen: {shown[:5]}; expected: none"
    finally:
        pg.close()

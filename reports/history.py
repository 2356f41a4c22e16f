"""The life of each divergence, from a history store's timelines (conform/history_store.py): transitions between consecutive
releases, causes with first seen / last seen / fixed in, and a self-contained HTML page (docs/HISTORY.md).

A case's verdict in a release is the one of the latest stored run of that (adapter, release).  A divergence's
cause is the expectations line that listed it, else its unlisted group `op/verdict/clauses`.  A regression is a
case that conformed in release N and diverges in N+1, the next release stored: the page shows those first.
"""
from __future__ import annotations

import html
import os
from dataclasses import dataclass, field

from contract.vocabulary import CONFORMING, DIVERGENT

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


@dataclass
class Transition:
    adapter: str
    case_id: str
    op: str
    before: str             # release
    after: str
    was: str                # verdict
    now: str
    was_outcome: str
    now_outcome: str
    repro: str
    cause: str

    @property
    def regression(self) -> bool:
        return self.was in CONFORMING and self.now in DIVERGENT

    @property
    def fix(self) -> bool:
        return self.was in DIVERGENT and self.now in CONFORMING


@dataclass
class Cause:
    adapter: str
    cause: str
    releases: list = field(default_factory=list)    # the releases it was seen in, oldest first
    cases: set = field(default_factory=set)
    repro: str = ""


def cause_of(rec) -> str:
    if rec.get("expected_divergence"):
        return "listed: " + rec["expected_divergence"]
    return "unlisted: " + "/".join((rec["op"], rec["verdict"], ",".join(rec["clauses"])))


def analyse(adapter, releases, by) -> dict:
    """Transitions, causes and conforming rates of one adapter from its timeline: `releases` oldest first,
    `by` {release: {case_id: results record}} (conform.history_store.timeline)."""
    transitions, causes = [], {}
    for i, rel in enumerate(releases):
        for cid, rec in by[rel].items():
            if rec["verdict"] in DIVERGENT:
                c = causes.setdefault(cause_of(rec), Cause(adapter, cause_of(rec)))
                if rel not in c.releases:
                    c.releases.append(rel)
                c.cases.add(cid)
                c.repro = c.repro or rec.get("repro", "")
            if i == 0:
                continue
            old = by[releases[i - 1]].get(cid)
            if old is None or old["verdict"] == rec["verdict"]:
                continue
            div = rec if rec["verdict"] in DIVERGENT else old
            transitions.append(Transition(adapter, cid, rec["op"], releases[i - 1], rel, old["verdict"],
                                          rec["verdict"], old.get("outcome", ""), rec.get("outcome", ""),
                                          div.get("repro", "") or rec.get("repro", ""), cause_of(div)))
    rates = {}
    for rel in releases:
        for rec in by[rel].values():
            if rec["verdict"] in CONFORMING | DIVERGENT:
                n, ok = rates.get((rel, rec["op"]), (0, 0))
                rates[(rel, rec["op"])] = (n + 1, ok + (rec["verdict"] in CONFORMING))
    transitions.sort(key=lambda t: (not t.regression, releases.index(t.after), t.case_id))
    return {"adapter": adapter, "releases": releases, "transitions": transitions,
            "causes": sorted(causes.values(), key=lambda c: c.cause), "rates": rates}


def fate(c: Cause, releases) -> tuple:
    """(first seen, last seen, fixed in or '', still open) of a cause over the adapter's ordered releases."""
    first, last = c.releases[0], c.releases[-1]
    after = releases.index(last) + 1
    fixed = releases[after] if after < len(releases) else ""
    return first, last, fixed, not fixed


# ---- the page -----------------------------------------------------------------------------

def chart(a) -> str:
    """An inline SVG line plot: the conforming rate of each op (a line) over the adapter's releases."""
    rels = a["releases"]
    ops = sorted({op for _, op in a["rates"]})
    w, h, left, top, bottom, legend = 760, 260, 48, 16, 40, 140     # the legend right of the plot
    right = w - legend
    span = max(len(rels) - 1, 1)
    x = lambda i: left + (right - left - 16) * i / span
    y = lambda r: top + (h - top - bottom) * (1 - r)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
             f'aria-label="conforming rate per op over {html.escape(a["adapter"])} releases">']
    for frac in (0, .25, .5, .75, 1):
        parts.append(f'<line x1="{left}" x2="{right - 16}" y1="{y(frac):.1f}" y2="{y(frac):.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y(frac) + 4:.1f}" text-anchor="end" font-size="11">{frac:.0%}</text>')
    for i, rel in enumerate(rels):
        parts.append(f'<text x="{x(i):.1f}" y="{h - bottom + 16}" text-anchor="middle" font-size="11">'
                     f'{html.escape(rel)}</text>')
    for k, op in enumerate(ops):
        colour = COLOURS[k % len(COLOURS)]
        # a release that answered no case of the op (it lacks the API: all not applicable) has no point
        pts = [(x(i), y(ok / n), rel, n, ok) for i, rel in enumerate(rels)
               if (n_ok := a["rates"].get((rel, op))) for n, ok in [n_ok]]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{" ".join(f"{px:.1f},{py:.1f}" for px, py, *_ in pts)}"/>')
        for px, py, rel, n, ok in pts:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"><title>{html.escape(op)} '
                         f'{html.escape(rel)}: {ok}/{n} conform</title></circle>')
        parts.append(f'<text x="{right}" y="{top + 14 * (k + 1)}" font-size="12" fill="{colour}">'
                     f'&#9632; {html.escape(op)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render(analyses) -> str:
    """The page, from analyse() of each adapter."""
    e = html.escape
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>Conformance history</title><style>",
           _CSS, "</style></head><body><h1>Conformance history</h1>"]
    regressions = [t for a in analyses for t in a["transitions"] if t.regression]
    out.append(f"<section id='regressions'><h2>Regressions between consecutive releases ({len(regressions)})</h2>")
    out.append(_transition_table(regressions) if regressions else "<p>None: no case that conformed in a release "
               "diverges in the next one stored.</p>")
    out.append("</section>")
    for a in analyses:
        out.append(f"<section><h2>{e(a['adapter'])}: releases {e(', '.join(a['releases']))}</h2>")
        out.append(f"<figure>{chart(a)}<figcaption>Conforming rate per op (cases with an answer: pass or "
                   f"extension, over those and the divergent ones)</figcaption></figure>")
        out.append("<h3>Divergence causes</h3><div class='cards'>")
        for c in a["causes"]:
            first, last, fixed, still = fate(c, a["releases"])
            out.append(f"<div class='card {'open' if still else 'fixed'}'><p class='cause'>{e(c.cause)}</p>"
                       f"<p>first seen <b>{e(first)}</b>, last seen <b>{e(last)}</b>, "
                       f"{'<b>still open</b>' if still else f'fixed in <b>{e(fixed)}</b>'}; {len(c.cases)} cases</p>"
                       f"<details><summary>repro</summary><pre>{e(c.repro)}</pre></details></div>")
        out.append("</div><h3>Transitions (cases whose verdict changed between consecutive releases)</h3>")
        out.append(_transition_table(a["transitions"]) if a["transitions"] else "<p>None.</p>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out)


def _transition_table(ts) -> str:
    e = html.escape
    rows = "".join(f"<tr class='{'reg' if t.regression else 'fix' if t.fix else ''}'><td>{e(t.adapter)}</td>"
                   f"<td><code>{e(t.case_id)}</code></td><td>{e(t.op)}</td><td>{e(t.before)} &rarr; {e(t.after)}</td>"
                   f"<td>{e(t.was)} &rarr; {e(t.now)}</td><td>{e(t.was_outcome[:160])}<br>&rarr; "
                   f"{e(t.now_outcome[:160])}</td><td>{e(t.cause)}</td><td><details><summary>repro</summary>"
                   f"<pre>{e(t.repro)}</pre></details></td></tr>" for t in ts)
    return ("<table><tr><th>adapter</th><th>case</th><th>op</th><th>releases</th><th>verdict</th><th>outcomes</th>"
            f"<th>cause</th><th></th></tr>{rows}</table>")


def write(analyses, out_dir) -> str:
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "history.html")
    text = render(analyses)         # before the file is touched: a failure leaves the last report as it was
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return path


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ccc;padding:4px;vertical-align:top;font-size:13px}tr.reg{background:#fde2e1}
tr.fix{background:#e3f6e3}.cards{display:flex;flex-wrap:wrap;gap:8px}.card{border:1px solid #ccc;border-radius:6px;
padding:8px;width:360px;font-size:13px}.card.open{border-left:6px solid #d62728}.card.fixed{border-left:6px solid
#2ca02c}pre{white-space:pre-wrap;font-size:12px;max-height:300px;overflow:auto}"""

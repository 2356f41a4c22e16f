"""badge-<adapter>.svg: one adapter's conforming rate and unlisted divergences, as a README badge.

Shaped like the shields.io flat badge (a grey label, a coloured message) so it
sits among a project's other badges, but drawn here: the report needs no
network.  The colour is the gate's, as on the report's cards: green when no
divergence is unlisted (the run exits 0), red when one is (exit 1), grey when
nothing applied.  Documented in docs/SUMMARY.md.
"""
from __future__ import annotations

import re
from xml.sax.saxutils import escape

GREEN, RED, GREY = "#2e7d32", "#c62828", "#9e9e9e"
# Verdana 11px advance widths, roughly: narrow, wide and average glyphs; the badge only needs to fit its text.
_NARROW, _WIDE = set("ijlI.,:;|!' ()[]"), set("mwMW%@")


def text_width(text: str) -> int:
    return int(sum(3.4 if ch in _NARROW else 9.8 if ch in _WIDE else 6.6 for ch in text)) + 12


def badge_message(rate, unlisted: int) -> str:
    """'97.9% · 0 unlisted'; 'n/a' for the rate when no case applied."""
    pct = "n/a" if rate is None else f"{100 * rate:.1f}%"
    return f"{pct} · {unlisted} unlisted"


def badge_colour(rate, unlisted: int) -> str:
    return RED if unlisted else GREY if rate is None else GREEN


def badge_svg(adapter: str, rate, unlisted: int) -> str:
    label, message = f"conform {adapter}", badge_message(rate, unlisted)
    colour = badge_colour(rate, unlisted)
    lw, mw = text_width(label), text_width(message)
    w = lw + mw
    title = f"{label}: conforming rate {message}"
    e = escape
    aria = escape(title, {'"': "&quot;"})
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{aria}">'
            f"<title>{e(title)}</title>"
            f'<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
            f'<stop offset="1" stop-opacity=".1"/></linearGradient>'
            f'<clipPath id="r"><rect width="{w}" height="20" rx="3" fill="#fff"/></clipPath>'
            f'<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/>'
            f'<rect x="{lw}" width="{mw}" height="20" fill="{colour}"/><rect width="{w}" height="20" fill="url(#s)"/></g>'
            f'<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
            f'<text x="{lw / 2:.1f}" y="14">{e(label)}</text>'
            f'<text x="{lw + mw / 2:.1f}" y="14">{e(message)}</text></g></svg>\n')


def badge_filename(adapter: str) -> str:
    """badge-<adapter>.svg, the name reduced to characters safe in any file system."""
    return f"badge-{re.sub(r'[^A-Za-z0-9_-]+', '_', adapter) or '_'}.svg"

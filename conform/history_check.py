"""`conform expectations check FILE HISTORY.db`: an expectations file against every release a history holds.

Per release, each divergence is matched as that release's run matches it (`@ <releases>` lines hold only for
the releases they name).  It lists the lines no release needs any more (they matched an older release and
nothing since: "fixed in" the release after the last one they matched), the lines that match nothing in any
release, and per release the divergences no line lists.  Exit 0 when every divergence of every release is
listed, 1 when some stay unlisted, 3 for a damaged file or store.
"""
from __future__ import annotations

import sys
from collections import defaultdict

from contract.vocabulary import DIVERGENT, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE

SHOWN = 5


def is_history(path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


def check(path, db, adapter=None) -> dict:
    """{"adapter", "releases", "lines": {Pattern: [releases matched]}, "stale": [(Pattern, last, fixed in)],
    "never": [Pattern], "unlisted": {release: [key]}}; ValueError for an adapter not to be chosen."""
    from suites.known_divergences import KnownDivergences
    from suites.judge import record_evidence, record_key
    from .history_store import runs, timeline
    names = sorted({r[1] for r in runs(db)})
    if adapter is None:
        if len(names) != 1:
            raise ValueError(f"the history holds adapters {', '.join(names) or 'none'}: name one with --adapter")
        adapter = names[0]
    elif adapter not in names:
        raise ValueError(f"the history has no runs of adapter {adapter!r} (it has {', '.join(names) or 'none'})")
    releases, by = timeline(db, adapter)
    known = KnownDivergences.load(path)
    matched, unlisted = defaultdict(list), defaultdict(list)
    for rel in releases:
        for rec in by[rel].values():
            if rec["verdict"] not in DIVERGENT:
                continue
            before = [p.hits for p in known.patterns]
            if known.match(record_key(rec), record_evidence(rec), release=rel) is None:
                unlisted[rel].append(record_key(rec))
                continue
            line = next(p for p, b in zip(known.patterns, before) if p.hits != b)
            if rel not in matched[id(line)]:
                matched[id(line)].append(rel)
    stale, never = [], []
    for p in known.patterns:
        seen = matched.get(id(p))
        if not seen:
            never.append(p)
        elif seen[-1] != releases[-1]:
            stale.append((p, seen[-1], releases[releases.index(seen[-1]) + 1]))
    return {"adapter": adapter, "releases": releases, "lines": {id(p): matched.get(id(p), []) for p in known.patterns},
            "stale": stale, "never": never, "unlisted": dict(unlisted)}


def main(path, db_path, adapter=None) -> int:
    from contract.inputfile import InputFileError
    from .history_store import HistoryError, open_store
    try:
        r = check(path, open_store(db_path), adapter)
    except ValueError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (HistoryError, InputFileError, OSError, UnicodeDecodeError) as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{path} against {db_path} (adapter {r['adapter']}, releases {', '.join(r['releases'])})")
    for p, last, fixed in r["stale"]:
        held = f"; it holds for {p.releases}" if p.releases else ""
        print(f"no release needs it any more (last matched {last}, fixed in {fixed}{held}): {p.where()} {p.glob}")
    for p in r["never"]:
        print(f"matches nothing in any release: {p.where()} {p.glob}")
    for rel, keys in r["unlisted"].items():
        groups = sorted({"/".join(k.split("/")[:3]) for k in keys})
        print(f"unlisted in {rel}: {len(keys)} divergences, {len(groups)} groups: " + "; ".join(groups[:SHOWN])
              + (f" … and {len(groups) - SHOWN} more" if len(groups) > SHOWN else ""))
    return EXIT_DIVERGED if r["unlisted"] else EXIT_OK

"""The verdict table of docs/DESIGN.md, written from contract.vocabulary.VERDICT_MEANINGS (the one definition
the report's glossary shows too).  `python -m reports.glossary --write` rewrites it; `--check` exits 1 when
the page is stale."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract.vocabulary import VERDICT_MEANINGS

DESIGN = Path(__file__).resolve().parent.parent / "docs" / "DESIGN.md"
BEGIN = "<!-- verdict table: written by `python -m reports.glossary --write` from contract/vocabulary.py -->"
END = "<!-- end of verdict table -->"


def table() -> str:
    rows = [f"| `{v}` | {meaning} |" for v, meaning in VERDICT_MEANINGS.items()]
    return "\n".join([BEGIN, "| verdict | when |", "|---|---|", *rows, END])


def plain(meaning: str) -> str:
    """A meaning as the report's glossary prints it (no markdown)."""
    return meaning.replace("`", "")


def rewritten(text: str) -> str:
    if BEGIN not in text or END not in text:
        raise ValueError(f"{DESIGN} has no verdict table markers ({BEGIN!r} ... {END!r})")
    return text[:text.index(BEGIN)] + table() + text[text.index(END) + len(END):]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reports.glossary", description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true", help=f"rewrite the table in {DESIGN}")
    p.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = p.parse_args(argv)
    old = DESIGN.read_text(encoding="utf-8")
    new = rewritten(old)
    if args.check:
        print(f"{DESIGN}: {'current' if new == old else 'stale: python -m reports.glossary --write'}")
        return 0 if new == old else 1
    if args.write:
        if new != old:
            DESIGN.write_text(new, encoding="utf-8")
        print(f"{DESIGN}: {'rewritten' if new != old else 'up to date'}")
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())

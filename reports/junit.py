"""JUnit XML from results files, for CI systems that show test results (`conform run|certify --junit FILE`).

One <testsuite> per adapter; in it one <testcase> per (op, failure group) --
a group is the report's (op, adapter, verdict, attributed clause, listed or
not) -- and one passing <testcase> per op for its conforming cases.  An
unlisted group is a <failure> whose text is the smallest case's expected,
actual, call, attribution and repro; a group of divergences listed in the
adapter's expectations file is <skipped> with the listed reason, so the
failures are what fails the exit code.  Properties carry the smallest case's
id, its clauses, the verdict, the attributed clause and the counts.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from . import model as M


def junit_tree(m: M.Model) -> ET.ElementTree:
    root = ET.Element("testsuites", name="tensor-conformance")
    groups = m.sorted_groups()
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for adapter in m.adapter_names:
        suite = ET.SubElement(root, "testsuite", name=xml_text(adapter))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for op in m.ops:
            c = m.matrix.get((op, adapter))
            if not c:
                continue
            conforming = sum(c.get(v, 0) for v in M.CONFORMING)
            if conforming:
                case = ET.SubElement(suite, "testcase", classname=xml_text(f"{adapter}.{op}"),
                                     name=f"conforming ({_cases(conforming)})")
                _properties(case, {"verdict": "pass", "cases": conforming})
                counts["tests"] += 1
            for g in groups:
                if g.op == op and g.adapter == adapter:
                    counts["tests"] += 1
                    counts["failures" if _testcase(suite, g) else "skipped"] += 1
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        suite.set("errors", "0")
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("errors", "0")
    ET.indent(root)
    return ET.ElementTree(root)


EXAMPLES = 5        # further case ids listed in a failure's text

# characters XML 1.0 cannot carry at all (a framework's ANSI colours, a NUL in a message)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(s) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(s))


def _testcase(suite, g: M.FailureGroup) -> bool:
    """Add the group's testcase; True when it fails the gate (an unlisted divergence)."""
    rec = g.minimal or {}
    unlisted = g.count - g.expected_divergences
    case = ET.SubElement(suite, "testcase", classname=xml_text(f"{g.adapter}.{g.op}"),
                         name=xml_text(f"{g.verdict} {g.clause} ({_cases(g.count)}{', listed' if g.listed else ''})"))
    _properties(case, {"case_id": rec.get("case_id", ""), "clauses": ",".join(rec.get("clauses") or ()),
                       "verdict": g.verdict, "attributed_to": g.clause, "cases": g.count, "unlisted": unlisted,
                       "expected_divergence": rec.get("expected_divergence") or ""})
    if not unlisted:
        ET.SubElement(case, "skipped", message=xml_text(f"expected divergence: {rec.get('expected_divergence') or ''}"))
        return False
    failure = ET.SubElement(case, "failure", type=g.verdict,
                            message=xml_text(f"{unlisted} unlisted of {g.count}: {M.short_outcome(rec, 200)}"))
    failure.text = xml_text(failure_text(g))
    return True


def failure_text(g: M.FailureGroup) -> str:
    rec = g.minimal or {}
    label = (rec.get("case") or {}).get("label", "")
    lines = [f"case {rec.get('case_id', '')}{f' ({label})' if label else ''} [{', '.join(rec.get('clauses') or ())}]",
             f"actual:   {rec.get('outcome', '')}", f"expected: {rec.get('expected', '')}",
             f"call:     {rec.get('native_api', '')}", f"attributed to {g.clause}: {g.why}"]
    others = [r for r in g.rows if r.case_id != rec.get("case_id")]
    lines += [f"also:     {r.case_id} {r.label}".rstrip() for r in others[:EXAMPLES]]
    if len(others) > EXAMPLES:
        lines.append(f"          ... {len(others) - EXAMPLES} more cases in the report")
    lines.append("repro:\n" + (rec.get("repro") or "(none)"))
    return "\n".join(lines)


def _cases(n) -> str:
    return f"{n} case{'s' if n != 1 else ''}"


def _properties(case, props):
    el = ET.SubElement(case, "properties")
    for k, v in props.items():
        ET.SubElement(el, "property", name=k, value=xml_text(v))


def write_junit(results_paths, out_file) -> dict:
    """Write the JUnit XML of the results files to out_file (atomically); {"tests", "failures", "skipped"}."""
    from .render import atomic_write
    tree = junit_tree(M.build_model([Path(p) for p in results_paths]))
    root = tree.getroot()
    out = Path(out_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return {k: int(root.get(k)) for k in ("tests", "failures", "skipped")}

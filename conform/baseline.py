"""`conform certify --baseline CERTDIR`: a new release stays certified only if nothing that conformed before
now fails (the rule a Khronos-conformant product lives by; docs/CERTIFY.md, docs/HISTORY.md).

Every case of the baseline certificate's results that conformed (pass or extension) in an op both certificates
claim must conform in the new results; a case that diverges now is a regression even where an expectations line
lists the new divergence, and so is one the new run did not record.  The new certificate records its baseline
(the certificate's hash, its adapter version) and the regressions checked (how many cases, which regressed).
"""
from __future__ import annotations

import json
from pathlib import Path

from contract.vocabulary import CONFORMING

SHOWN = 10


class BaselineError(ValueError):
    """A baseline folder that holds no readable certificate and results."""


def load(certdir) -> tuple:
    """(certificate dict, {case_id: verdict} of its results) of a baseline folder; BaselineError if unreadable."""
    from contract.results import iter_records
    folder = Path(certdir)
    path = folder / "certificate.json"
    try:
        cert = json.loads(path.read_text(encoding="utf-8"))
        results = folder / cert["results"]["file"]
        verdicts = {}
        for rec in iter_records(str(results)):
            if rec.get("record") == "case":
                verdicts.setdefault(rec["case_id"], (rec["op"], rec["verdict"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BaselineError(f"--baseline {certdir}: not a certificate folder ({type(e).__name__}: {e})") from None
    return cert, verdicts


def check(certdir, out_dir) -> dict:
    """Compare the new certificate in out_dir with the baseline and record the comparison in it."""
    from contract.results import file_sha256
    base, before = load(certdir)
    cert, after = load(out_dir)
    ops = set(base.get("claimed_ops", ())) & set(cert.get("claimed_ops", ()))
    conformed = sorted(c for c, (op, v) in before.items() if op in ops and v in CONFORMING)
    regressions = [{"case_id": c, "before": before[c][1], "now": after.get(c, (None, "not run"))[1]}
                   for c in conformed if after.get(c, (None, ""))[1] not in CONFORMING]
    cert["baseline"] = {"certificate": str(Path(certdir).resolve() / "certificate.json"),
                        "sha256": file_sha256(str(Path(certdir) / "certificate.json")),
                        "adapter_version": base.get("adapter", {}).get("version", ""),
                        "ops": sorted(ops), "checked": len(conformed), "regressions": regressions}
    path = Path(out_dir) / "certificate.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cert, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return cert["baseline"]

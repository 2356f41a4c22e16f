"""badge-<adapter>.svg: written next to the report, one per adapter, with its conforming rate and unlisted count."""
import xml.etree.ElementTree as ET

from reports.badge import GREEN, GREY, RED, badge_filename, badge_svg
from reports.render import write_report

from report_fixtures import case_record, clip_case, small_run, write_results

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str):
    root = ET.fromstring(svg)                    # well-formed XML, or this raises
    return [t.text for t in root.iter(f"{SVG}text")], root


def test_badges_are_written_per_adapter_with_rate_and_unlisted_count(tmp_path):
    _, recs = small_run(5)                       # torch: 3 pass, 2 unlisted divergences of 5
    recs.append(case_record(clip_case(n=9), "vendor", "value-mismatch", expected_divergence="known"))
    recs.append(case_record(clip_case(n=8), "vendor", "pass"))
    write_results(tmp_path / "r.jsonl", recs, adapters=("oracle", "torch", "vendor"))
    out = write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").glob("badge-*.svg")) == \
        ["badge-oracle.svg", "badge-torch.svg", "badge-vendor.svg"]
    assert out["badges"]["torch"] == str(tmp_path / "out" / "badge-torch.svg")
    texts, root = _texts((tmp_path / "out" / "badge-torch.svg").read_text())
    assert texts == ["conform torch", "60.0% · 2 unlisted"]
    fills = [r.get("fill") for r in root.iter(f"{SVG}rect")]
    assert RED in fills and GREEN not in fills                  # an unlisted divergence fails the gate
    texts, root = _texts((tmp_path / "out" / "badge-vendor.svg").read_text())
    assert texts == ["conform vendor", "50.0% · 0 unlisted"]
    assert GREEN in [r.get("fill") for r in root.iter(f"{SVG}rect")]   # listed only: the gate passes
    texts, _ = _texts((tmp_path / "out" / "badge-oracle.svg").read_text())
    assert texts == ["conform oracle", "100.0% · 0 unlisted"]


def test_badge_escapes_the_name_and_handles_no_applicable_case():
    svg = badge_svg('a<b>&"c', None, 0)
    texts, root = _texts(svg)
    assert texts == ['conform a<b>&"c', "n/a · 0 unlisted"]
    assert GREY in [r.get("fill") for r in root.iter(f"{SVG}rect")]
    assert root.get("width") == str(sum(int(r.get("width")) for r in list(root.iter(f"{SVG}rect"))[1:3]))


def test_badge_filename_is_safe():
    assert badge_filename("torch") == "badge-torch.svg"
    assert badge_filename("mindspore-variants") == "badge-mindspore-variants.svg"
    assert badge_filename("../../etc/x:Y") == "badge-_etc_x_Y.svg"

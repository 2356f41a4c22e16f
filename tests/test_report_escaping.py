"""Text from a candidate (exception messages, stderr, labels) reaches the report as text, never as markup."""
import base64
import gzip
import json
import re

from reports.render import write_report

from report_fixtures import case_record, clip_case, write_results

HOSTILE = '<script>alert("pwned")</script><img src=x onerror=alert(1)> & </pre></details>'


def test_exception_message_with_html_is_escaped(tmp_path):
    c = clip_case(n=3, label='<b>label</b>')
    rec = case_record(c, "torch", "unexpected-error", exc_class="RuntimeError", message=HOSTILE)
    rec["error"]["stderr"] = "[ERROR] <script>x()</script>"
    write_results(tmp_path / "r.jsonl", [rec])
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    # The only <script> elements are the report's own: its code and its data block (JSON, not run).
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="application/json" id="failing-data">',
                                                   '<script type="application/octet-stream" id="group-bodies">',
                                                   "<script>"], "a candidate's <script> became markup"
    # the failure groups' bodies: base64 (no markup can close the block), HTML the page inserts when a group opens
    packed = re.search(r'id="group-bodies">(.*?)</script>', html, re.S).group(1)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", packed)
    bodies = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert "<script" not in "".join(bodies)
    html += "".join(bodies)
    data = re.search(r'<script type="application/json" id="failing-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in data and ">" not in data, "the data block could be closed early by a candidate's text"
    rows = json.loads(data)["rows"]
    assert rows[0][3].startswith("raised RuntimeError: <script>alert(") and rows[0][2] == "<b>label</b>"
    assert "<img src=x" not in html and "<b>label</b>" not in html
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &lt;/pre&gt;" in html
    assert "[ERROR] &lt;script&gt;x()&lt;/script&gt;" in html

"""Text from a candidate (exception messages, stderr, labels) reaches the report as text, never as markup."""
import re

from reports.render import write_report

from report_fixtures import case_record, clip_case, unpacked, write_results

HOSTILE = '<script>alert("pwned")</script><img src=x onerror=alert(1)> & </pre></details>'


def test_exception_message_with_html_is_escaped(tmp_path):
    c = clip_case(n=3, label='<b>label</b>')
    rec = case_record(c, "torch", "unexpected-error", exc_class="RuntimeError", message=HOSTILE)
    rec["error"]["stderr"] = "[ERROR] <script>x()</script>"
    write_results(tmp_path / "r.jsonl", [rec])
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    # The only <script> elements are the report's own: its code and its two packed data blocks (base64, not run,
    # which no candidate text can close early: unpacked() checks they hold base64 only).
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="application/octet-stream" id="failing-data">',
                                                   '<script type="application/octet-stream" id="group-bodies">',
                                                   "<script>"], "a candidate's <script> became markup"
    rows = unpacked(html, "failing-data")["rows"]     # the page's script renders these through textContent
    assert rows[0][3].startswith("raised RuntimeError: <script>alert(") and rows[0][2] == "<b>label</b>"
    # the groups' bodies are HTML the page inserts when a group opens: escaped like the page
    bodies = "".join(unpacked(html, "group-bodies"))
    for text in (html, bodies):
        assert "<script>" not in text.replace("<script>\n(function", "") and "<img src=x" not in text
        assert "<b>label</b>" not in text
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &lt;/pre&gt;" in bodies
    assert "[ERROR] &lt;script&gt;x()&lt;/script&gt;" in bodies

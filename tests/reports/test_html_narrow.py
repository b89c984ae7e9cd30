"""The html reports at 1280 and 390 px in headless Chromium, and the timeline's FAILs at scale.

A phone is 390 px wide: no table may widen the page (each wraps or scrolls inside its own box),
the chain's red segment must be on screen, and a FAIL among thousands of receipts must still be
drawn on the timeline. Headless Chromium will not make a window narrower than 500 px, so the
page is measured inside a 390 px iframe (media queries follow the iframe's width); a script
added to a copy of the page (its Content-Security-Policy removed, the shipped page keeps it)
posts what the browser laid out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal.reports.formats.html.verify_page import VerifyPage, receipt_fragments
from sealverify._internal.results.model import Report, Subject, fail, passed
from tests.helpers.html_support import (
    Page,
    browser,
    chain_demo_html,
    chromium,
    diff_demo_html,
    verify_demo_html,
)

_MEASURE = """<script>
const out = {width: window.innerWidth, page: document.documentElement.scrollWidth, boxes: []};
const box = (what, element) => {
  const b = element.getBoundingClientRect();
  out.boxes.push({what, left: b.left, right: b.right, height: b.height});
};
for (const t of document.querySelectorAll("table")) {
  box("table " + (t.id || t.className), t.closest(".scroll") || t);
}
for (const s of document.querySelectorAll("svg")) box("svg " + (s.id || ""), s);
for (const r of document.querySelectorAll("rect[data-state=broken]")) box("broken", r);
for (const r of document.querySelectorAll("rect.bin[data-outcome=FAIL]")) box("fail-bin", r);
out.cut = [...document.querySelectorAll("span.id")].filter(s => s.getClientRects().length > 1)
  .map(s => s.textContent);
out.headers = [...document.querySelectorAll("th")].map(h => {
  const range = document.createRange();
  range.selectNodeContents(h);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return [h.textContent, tops.size];
});
parent.postMessage(JSON.stringify(out), "*");
</script></body>"""
_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="{page}" width="{width}" height="3000" style="border:0"></iframe>
<script>addEventListener("message", e => document.body.setAttribute("data-measure", e.data));
</script></body></html>"""


def _measure(text: str, width: int, tmp: Path) -> dict[str, Any]:
    page = tmp / f"page-{width}.html"
    shown = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)
    page.write_text(shown.replace("</body>", _MEASURE), encoding="utf-8")
    frame = tmp / f"frame-{width}.html"
    frame.write_text(_FRAME.format(page=page.name, width=width), encoding="utf-8")
    done = browser(
        ["--window-size=1300,3000", "--virtual-time-budget=5000", "--dump-dom", frame.as_uri()],
        tmp / f"profile-{width}",
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    (body,) = Page(done.stdout.decode("utf-8")).find("body")
    measured: dict[str, Any] = json.loads(body.attrs["data-measure"])
    assert measured["width"] == width
    return measured


def big_timeline_html() -> str:
    """A run of 1,200 signed receipts, binned on the timeline: 1,199 UNPINNED, one FAIL last."""
    with VerifyPage() as page:
        for index in range(1_200):
            outcome = "FAIL" if index == 1_199 else "UNPINNED"
            check = fail("binding.args-hash", "differs") if outcome == "FAIL" else passed("x", "y")
            subject = Subject(
                f"r{index}.receipt.json",
                outcome,
                (check,),
                facts={"family": "v3"},
                display={"signed_time_ms": 1_786_000_000_000 + (index % 7) * 1_000},
            )
            page.add(subject, receipt_fragments(subject))
        summary = {"receipts": 1_200, "UNPINNED": 1_199, "FAIL": 1, "findings": 0}
        return "".join(page.pieces(Report("verify", (), summary, 1, ())))


def test_a_lone_fail_among_thousands_is_drawn_on_the_timeline() -> None:
    page = Page(big_timeline_html())
    bins = [e for e in page.with_class("bin", "rect") if e.attrs["data-outcome"] == "FAIL"]
    assert bins and all(float(b.attrs["height"]) >= 5 for b in bins)
    assert "never under 5 px" in page.by_id("timeline-note").joined


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    chromium()  # skips the module with a clear message where it is not installed
    return {
        "verify": verify_demo_html(),
        "chain": chain_demo_html(tmp_path_factory.mktemp("chain")),
        "diff": diff_demo_html(),
        "timeline": big_timeline_html(),
    }


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("name", ["verify", "chain", "diff", "timeline"])
def test_nothing_leaves_the_screen(
    pages: dict[str, str], name: str, width: int, tmp_path: Path
) -> None:
    measured = _measure(pages[name], width, tmp_path)
    assert measured["page"] <= width, f"the page is {measured['page']} px wide"
    boxes = measured["boxes"]
    tables = [b for b in boxes if b["what"].startswith("table")]
    assert tables
    for found in tables + [b for b in boxes if b["what"].startswith(("svg", "broken"))]:
        assert found["left"] >= 0 and found["right"] <= width + 0.5, found
    assert measured["cut"] == [], "check ids broken across lines"
    # No header word is broken: "status" drawn as "stat/us", "location" a letter a line.
    broken = [(text, lines) for text, lines in measured["headers"] if lines > len(text.split())]
    assert broken == [], broken
    if name == "chain":  # the break, red on the strip, on screen
        assert [b for b in boxes if b["what"] == "broken"]
    if name == "timeline":
        fails = [b for b in boxes if b["what"] == "fail-bin"]
        assert fails and all(b["height"] >= 1 for b in fails), fails


def test_the_subtitle_never_says_verified_beside_verified_0() -> None:
    page = Page(verify_demo_html())
    (subtitle,) = [p for p in page.find("p") if p.attrs == {} and "exact bytes" in p.joined]
    assert subtitle.joined == "13 receipt(s) checked from their exact bytes: 6 VERIFIED"
    timeline = Page(big_timeline_html())
    (subtitle,) = [p for p in timeline.find("p") if p.attrs == {} and "exact bytes" in p.joined]
    assert "verified" not in subtitle.joined and subtitle.joined.endswith(": 0 VERIFIED")

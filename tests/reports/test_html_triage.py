"""The verify page puts the worst first: drill-downs FAIL first, a by-check table, a footer.

The old page detailed the first DETAIL_CAP receipts in input order, so 299 UNPINNED receipts
and one forged receipt named last left the forged one without detail.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sealverify import Report, Subject
from sealverify._internal.cli.main import cli
from sealverify._internal.cli.verify_html import report_command
from sealverify._internal.reports.formats.html.env import anchor
from sealverify._internal.reports.formats.html.verify_page import (
    DETAIL_CAP,
    VerifyPage,
    bare,
    receipt_fragments,
)
from sealverify._internal.results.model import Check
from sealverify._version import __version__
from tests.helpers.html_support import DEMO, Page

PUBLISHED = Check("authority.published-key", "not-evaluated", "a published key", "/signature")
FORGED = Check("binding.args-hash", "fail", "args_hash differs", "/args_hash")


def _page(subjects: list[Subject], worker: bool = False) -> Page:
    summary = {"receipts": len(subjects), "findings": 0}
    for s in subjects:
        summary[s.outcome] = summary.get(s.outcome, 0) + 1
    with VerifyPage() as page:
        for subject in subjects:
            # A worker sends the parent only bare(subject) and the fragments (run/engine.py).
            page.add(bare(subject) if worker else subject, receipt_fragments(subject))
        return Page("".join(page.pieces(Report("verify", (), summary, 1), command="x")))


def _unpinned(n: int) -> list[Subject]:
    return [Subject(f"u{i:03}.json", "UNPINNED", (PUBLISHED,)) for i in range(n)]


def test_a_forged_receipt_named_last_gets_its_drill_down_first() -> None:
    subjects = [*_unpinned(299), Subject("zz-forged.json", "FAIL", (FORGED, PUBLISHED))]
    for worker in (False, True):
        page = _page(subjects, worker)
        details = page.with_class("receipt", "section")
        assert len(details) == DETAIL_CAP
        assert details[0].attrs["id"] == anchor("zz-forged.json")  # FAIL first
        assert details[1].attrs["id"] == anchor("u000.json")  # then UNPINNED in input order
        # the forged receipt's row links to its drill-down; a cut receipt's row links nowhere
        links = {a.attrs["href"] for a in page.find("a")}
        assert f"#{anchor('zz-forged.json')}" in links
        assert f"#{anchor('u250.json')}" not in links
        note = page.by_id("details-note").joined
        assert "worst first: 1 FAIL, 199 UNPINNED" in note
        assert "100 more did not verify and are not shown in detail (100 UNPINNED)" in note


def test_reduced_comes_between_fail_and_unpinned() -> None:
    reduced = Check("scope.request-unparseable", "not-evaluated", "unparseable", "")
    subjects = [
        *_unpinned(3),
        Subject("r.json", "REDUCED", (reduced,)),
        Subject("f.json", "FAIL", (FORGED,)),
    ]
    ids = [d.attrs["id"] for d in _page(subjects).with_class("receipt", "section")]
    order = ["f.json", "r.json", "u000.json", "u001.json", "u002.json"]
    assert ids == [anchor(name) for name in order]


def test_the_by_check_table_counts_each_check_once_with_its_severity() -> None:
    subjects = [*_unpinned(5), Subject("f.json", "FAIL", (FORGED, PUBLISHED))]
    for worker in (False, True):
        page = _page(subjects, worker)
        table = page.by_id("check-table")
        rows = [r for r in page.find("tr") if "data-status" in r.attrs and "show" in r.text]
        assert table and [r.attrs["data-status"] for r in rows] == ["fail", "not-evaluated"]
        cells = [c.joined for c in page.find("td")]
        start = cells.index("binding.args-hash")
        assert cells[start : start + 4] == ["binding.args-hash", "1", "fail", "error"]
        start = cells.index("authority.published-key")
        assert cells[start : start + 4] == [
            "authority.published-key",
            "6",
            "not-evaluated",
            "warning",
        ]
        shows = [a for a in page.find("a") if a.attrs.get("data-filter") == "binding.args-hash"]
        assert len(shows) == 1 and shows[0].attrs["href"] == "#receipts"


def test_the_footer_names_the_version_and_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    args = ["verify", str(DEMO / "receipts"), "--trust", str(DEMO / "trust.json")]
    result = CliRunner().invoke(cli, [*args, "--format", "html", "-j", "2", "--output", str(out)])
    assert result.exit_code == 1, result.output
    footer = Page(out.read_text(encoding="utf-8")).by_id("footer").joined
    assert footer.startswith(f"Written by sealverify {__version__}: sealverify verify ")
    assert str(DEMO / "trust.json") in footer and "--format html" in footer
    assert "-j" not in footer.split() and "--output" not in footer  # how, not what


def test_the_command_line_leaves_out_what_does_not_change_the_report() -> None:
    argv = ("verify", "a b", "--jobs", "3", "-j4", "--cluster=local:2", "--output", "o.html")
    argv += ("--storage-option", "key=SECRET", "--trust", "t.json")
    assert report_command(argv) == "sealverify verify 'a b' --trust t.json"
    assert report_command(None) == ""


def test_the_triage_page_in_chromium(tmp_path: Path) -> None:
    from tests.helpers.html_support import browser, chromium

    chromium()  # skips with a clear message where Chromium is not installed
    subjects = [*_unpinned(299), Subject("zz-forged.json", "FAIL", (FORGED, PUBLISHED))]
    summary = {"receipts": 300, "findings": 0, "UNPINNED": 299, "FAIL": 1}
    with VerifyPage() as built:
        for subject in subjects:
            built.add(bare(subject), receipt_fragments(subject))
        text = "".join(built.pieces(Report("verify", (), summary, 1), command="sealverify x"))
    path = tmp_path / "triage.html"
    path.write_text(text, encoding="utf-8")
    # The address pre-fills the filter with a check id, as the by-check "show" link does.
    done = browser(["--dump-dom", path.as_uri() + "#filter:q=binding.args-hash"], tmp_path / "p")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    page = Page(done.stdout.decode("utf-8"))
    rows = [r for r in page.find("tr") if "data-outcome" in r.attrs]
    shown = [r for r in rows if "hidden" not in r.attrs]
    assert len(rows) == 300 and len(shown) == 1 and "zz-forged.json" in shown[0].joined
    assert page.with_class("receipt", "section")[0].attrs["id"] == anchor("zz-forged.json")
    assert page.by_id("footer").joined.endswith("sealverify x")


def test_each_failing_check_is_listed_once_with_links_to_its_drill_downs() -> None:
    # 300 UNPINNED receipts (only the first 199 kept in detail after the FAIL) and a forged
    # receipt named last: from the by-check table a reader reaches the forged one directly.
    subjects = [*_unpinned(300), Subject("zz-forged.json", "FAIL", (FORGED, PUBLISHED))]
    for worker in (False, True):
        page = _page(subjects, worker)
        by_check = [
            r for r in page.find("tr") if "data-status" in r.attrs and "class" not in r.attrs
        ]
        rows = {i: r for r in by_check for i in (FORGED.id, PUBLISHED.id) if r.joined.startswith(i)}
        assert len(rows) == len(by_check) == 2  # each check once
        forged = [a.attrs["href"] for a in _links(page, rows["binding.args-hash"])]
        assert forged == [f"#{anchor('zz-forged.json')}", "#receipts"]
        assert rows["binding.args-hash"].joined.count("binding.args-hash") == 1
        published = [a.attrs["href"] for a in _links(page, rows["authority.published-key"])]
        # Worst first: the FAIL receipt, then UNPINNED ones in input order, five in all.
        expected = ["zz-forged.json", "u000.json", "u001.json", "u002.json", "u003.json"]
        assert published == [f"#{anchor(n)}" for n in expected] + ["#receipts"]
        assert "+296 more" in rows["authority.published-key"].joined
        # Every link lands on a drill-down the page shows.
        ids = {e.attrs["id"] for e in page.elements if "id" in e.attrs}
        assert all(h[1:] in ids for h in published)


def test_a_check_on_receipts_cut_from_detail_links_none_of_them() -> None:
    cut = Check("scope.other", "not-evaluated", "only on cut receipts", "")
    subjects = [*_unpinned(DETAIL_CAP), Subject("late.json", "UNPINNED", (PUBLISHED, cut))]
    page = _page(subjects)
    (row,) = [
        r
        for r in page.find("tr")
        if "data-status" in r.attrs and r.joined.startswith("scope.other")
    ]
    assert [a.attrs["href"] for a in _links(page, row)] == ["#receipts"]
    assert "+1 more" in row.joined


def _links(page: Page, row: object) -> list:  # type: ignore[type-arg]
    """The anchors inside ``row``, in document order."""
    elements = page.elements
    start = elements.index(row)  # type: ignore[arg-type]
    out = []
    for element in elements[start + 1 :]:
        if element.tag == "tr":
            break
        if element.tag == "a":
            out.append(element)
    return out

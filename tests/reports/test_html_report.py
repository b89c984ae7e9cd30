"""The html reports: sections and counts, the compared bytes, self-containment, hostile input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sealverify_testkit import mint
from sealverify_testkit.auditlog import audit_payload, chain_lines

from sealverify import Check, Report, Subject, VerifyOptions, verify_receipt
from sealverify._internal.reports.explain_text import describe, document_of
from sealverify._internal.reports.formats.html import spans
from sealverify._internal.reports.formats.html.verify_page import DETAIL_CAP
from sealverify.formats import FORMATS, render
from tests.helpers.html_support import (
    DEMO,
    FRAMES,
    ROOT,
    Page,
    chain_demo_html,
    diff_demo_html,
    run_cli,
    verify_demo_html,
)

# Every element and attribute the templates write. Anything else in a page came from input.
TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "p",
    "nav",
    "a",
    "main",
    "section",
    "div",
    "span",
    "b",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "svg",
    "text",
    "rect",
    "circle",
    "line",
    "path",
    "dl",
    "dt",
    "dd",
    "pre",
    "mark",
    "details",
    "summary",
    "label",
    "input",
    "script",
}
ATTRIBUTES = {
    "lang",
    "charset",
    "http-equiv",
    "content",
    "name",
    "class",
    "id",
    "href",
    "width",
    "height",
    "viewbox",  # the charts scale down to a narrow screen
    "role",
    "aria-label",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "d",
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "text-anchor",
    "type",
    "placeholder",
    "checked",
    "data-outcome",
    "data-verdict",
    "data-status",
    "data-filter-outcome",
    "data-filter",
    "data-state",
    "data-side",
    "data-equal",
    "data-identity",
    "data-count",
}
FILTER_JS = (ROOT / "sealverify/_internal/reports/formats/html/templates/filter.js").read_text()


def _json(args: list[str]) -> dict:
    _code, out = run_cli([*args, "--format", "json"])
    return json.loads(out)


def assert_self_contained(page: Page, text: str) -> None:
    """No external fetch: every link an in-page anchor that exists, no src, one script."""
    targets = {e.attrs["id"] for e in page.elements if "id" in e.attrs}
    for link in page.find("a"):
        assert link.attrs["href"][1:] in targets, link.attrs["href"]
    for element in page.elements:
        for name, value in element.attrs.items():
            if name in ("href", "xlink:href"):
                assert value.startswith("#"), (element.tag, value)
            assert name not in ("src", "srcset", "action", "formaction", "poster", "data")
    assert not page.find("link") and not page.find("img") and not page.find("iframe")
    scripts = page.find("script")
    assert len(scripts) == 1 and scripts[0].joined == FILTER_JS
    assert "url(" not in text and "@import" not in text
    csp = page.find("meta", **{"http-equiv": "Content-Security-Policy"})
    assert csp and "default-src 'none'" in csp[0].attrs["content"]


def assert_only_template_markup(page: Page) -> None:
    for element in page.elements:
        assert element.tag in TAGS, element.tag
        for name in element.attrs:
            assert name in ATTRIBUTES, (element.tag, name)
            assert not name.startswith("on"), (element.tag, name)


def test_verify_page_sections_counts_and_outcomes_match_the_json_report() -> None:
    text = verify_demo_html()
    page = Page(text)
    report = _json(
        [
            "verify",
            str(DEMO / "receipts"),
            "--trust",
            str(DEMO / "trust.json"),
            "--allow-published-keys",
        ]
    )
    for section in ("summary", "timeline", "receipts", "details", "run-settings"):
        page.by_id(section)
    rows = [e for e in page.find("tr") if "data-outcome" in e.attrs]
    assert len(rows) == report["summary"]["receipts"] == 13
    by_outcome = {
        o: sum(r.attrs["data-outcome"] == o for r in rows)
        for o in report["summary"]
        if o in ("VERIFIED", "UNPINNED", "REDUCED", "FAIL")
    }
    assert by_outcome == {o: report["summary"][o] for o in by_outcome}
    details = page.with_class("receipt", "section")
    not_verified = [s["name"] for s in report["subjects"] if s["outcome"] != "VERIFIED"]
    assert [d.attrs["data-outcome"] for d in details] == [
        s["outcome"] for s in report["subjects"] if s["outcome"] != "VERIFIED"
    ]
    assert len(details) == len(not_verified)
    assert all(n in d.joined for n, d in zip(not_verified, details, strict=True))
    cards = {
        e.attrs["data-outcome"]: e.joined
        for e in page.with_class("card", "div")
        if "data-outcome" in e.attrs
    }
    assert {o: int(re.sub(r"\D", "", c)) for o, c in cards.items()} == by_outcome
    settings = page.by_id("run-settings").joined
    assert "trust.json" in settings and "allowed (--allow-published-keys)" in settings
    # The run finding (line 3 of the log) is on the page, with its location.
    assert "log.broken-line" in page.by_id("findings").joined or "log.broken-line" in text


def test_verify_drill_down_marks_the_edited_bytes() -> None:
    page = Page(verify_demo_html())
    receipt = json.loads((DEMO / "receipts" / "fail-edited-arguments.receipt.json").read_text())
    # What the file says, read here independently: the signed line says one command, the
    # arguments another.
    assert "systemctl restart app" in receipt["canonical_request"]
    assert receipt["arguments"]["command"] == "systemctl stop app"
    (detail,) = [
        d for d in page.with_class("receipt", "section") if "fail-edited-arguments" in d.joined
    ]
    marks = [m.joined for m in page.find("mark") if m.joined]
    assert any("stop" in m for m in marks) and any("resta" in m for m in marks)
    assert "binding.canonical-request" in detail.joined
    assert "first difference at character" in detail.joined
    # The explain text of each failing id, from the docs' check tables.
    assert describe("binding.args-hash") is not None
    assert describe("binding.args-hash") in detail.joined


def test_checks_carry_what_they_compared_but_the_json_does_not() -> None:
    data = (DEMO / "receipts" / "fail-forged-binding.receipt.json").read_bytes()
    subject = verify_receipt(data, "forged", VerifyOptions())
    doc = json.loads(data)
    (check,) = [c for c in subject.checks if c.id == "binding.request-sha256"]
    assert check.compared is not None and check.compared.found == doc["request_sha256"]
    assert check.compared.expected != doc["request_sha256"]
    assert "compared" not in json.dumps(check.to_dict())
    assert subject.display == {"signed_time_ms": doc["now"]}
    assert "display" not in subject.to_dict() and "signed_time_ms" not in json.dumps(
        subject.to_dict()
    )


def test_chain_page_marks_genesis_the_break_the_anchor_and_the_tail(tmp_path: Path) -> None:
    page = Page(chain_demo_html(tmp_path))
    for section in ("summary", "timeline", "breaks", "records", "checks"):
        page.by_id(section)
    rows = [r for r in page.find("tr") if "data-state" in r.attrs]
    states = [r.attrs["data-state"] for r in rows]
    # demo_log: 12 records of s1 (entry 5's payload edited), 4 of s2 after the anchor.
    assert len(rows) == 16
    assert states.index("broken") == 5 and states.count("broken") == 1
    assert states[12:] == ["tail"] * 4 and states.count("ok") == 11
    cells = page.with_class("cell", "rect")
    assert [c.attrs["data-state"] for c in cells] == states
    strip = page.by_id("chain-strip").joined
    assert "genesis" in strip and "tail: unanchored" in strip
    assert len(page.with_class("anchor", "path")) == 1
    breaks = page.by_id("breaks").joined
    assert "mutation" in breaks and describe("chain.break") in breaks
    # The two heads the break compared: recomputed from the payload, and as recorded.
    assert "expected: commit(prev_head, payload)" in breaks and "found: head" in breaks


def test_diff_page_shows_both_sides_the_marked_span_identities_and_meta_keys() -> None:
    page = Page(diff_demo_html())
    report = _json(["diff", str(FRAMES / "call.bin"), str(FRAMES / "call-other-trace.bin")])
    facts = report["subjects"][0]["facts"]
    assert report["subjects"][0]["outcome"] in page.by_id("verdict-text").joined
    identity_rows = [r for r in page.find("tr") if "data-equal" in r.attrs]
    assert len(identity_rows) == len(facts["identities"])
    differing = sorted(n for n, row in facts["identities"].items() if row["equal"] is False)
    assert (
        sorted(r.attrs["data-identity"] for r in identity_rows if r.attrs["data-equal"] == "False")
        == differing
    )
    a = (FRAMES / "call.bin").read_text()
    b = (FRAMES / "call-other-trace.bin").read_text()
    start = facts["bytes"]["first_difference_offset"]
    (mark_a,) = [m.joined for m in page.find("mark") if m.joined in a[start:]]
    assert a.index(mark_a, start - 1) == start and mark_a not in b
    assert "traceparent" in page.by_id("meta-table").joined


@pytest.mark.parametrize("make", ["verify", "chain", "diff", "generic"])
def test_every_page_is_self_contained(make: str, tmp_path: Path) -> None:
    if make == "verify":
        text = verify_demo_html()
    elif make == "chain":
        text = chain_demo_html(tmp_path)
    elif make == "diff":
        text = diff_demo_html()
    else:  # a command without a page of its own, its strings hostile
        check = Check(HOSTILE[0], "fail", HOSTILE[1], HOSTILE[2], {HOSTILE[3]: HOSTILE[0]})
        subject = Subject(HOSTILE[1], HOSTILE[0], (check,), {HOSTILE[2]: HOSTILE[3]}, HOSTILE[3])
        text = render(Report(HOSTILE[2], (subject,), {HOSTILE[0]: 1}, 1, (check,)), "html")
        assert_inert(text, Page(text))
    page = Page(text)
    assert_self_contained(page, text)
    assert_only_template_markup(page)


HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><svg onload=alert(3)>",
    "</textarea></pre><iframe src=//evil.example>",
    "{{ 7*7 }}{% raw %}",
    "javascript:alert(4)",
]


def _hostile_frame(text: str, index: int) -> bytes:
    meta = json.dumps({text: text, "traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"})
    arguments = json.dumps({"command": text, text: [text]})
    return mint.tools_call_frame(text, arguments, request_id=index, meta=meta)


def assert_inert(text: str, page: Page) -> None:
    assert_only_template_markup(page)
    assert_self_contained(page, text)
    data = "".join(page.data)
    for planted in HOSTILE[:4]:
        assert planted in data  # shown, as text


def test_hostile_receipt_strings_meta_keys_and_file_names_stay_text(tmp_path: Path) -> None:
    for index, planted in enumerate(HOSTILE):
        frame = _hostile_frame(planted, index)
        receipt = mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG)
        safe = planted.replace("/", "∕")  # a file name cannot hold "/"
        (tmp_path / f"{safe}{index}.receipt.json").write_bytes(receipt)
        # and one that fails: the record edited after signing
        doc = json.loads(receipt)
        doc["tool"] = planted + "!"
        (tmp_path / f"edited-{safe}{index}.json").write_text(json.dumps(doc))
    code, text = run_cli(["verify", str(tmp_path), "--format", "html"])
    assert code == 1  # unpinned, and half of them edited after signing
    page = Page(text)
    assert_inert(text, page)
    data = "".join(page.data)
    for index, planted in enumerate(HOSTILE):
        assert f"{planted.replace('/', '∕')}{index}.receipt.json" in data  # the file name, as text
    assert len(page.with_class("receipt", "section")) == 2 * len(HOSTILE)
    assert "{{ 7*7 }}" in "".join(page.data)  # never evaluated as a template


def test_hostile_chain_and_diff_inputs_stay_text(tmp_path: Path) -> None:
    name = HOSTILE[1].replace("/", "∕")
    lines, _ = chain_lines([audit_payload(0, tool=HOSTILE[0])], session=HOSTILE[0])
    lines.insert(0, HOSTILE[2].encode())
    log = tmp_path / f"{name}.log"
    log.write_bytes(b"\n".join(lines) + b"\n")
    code, text = run_cli(["chain", str(log), "--format", "html"])
    page = Page(text)
    assert_only_template_markup(page)
    assert_self_contained(page, text)
    assert HOSTILE[0] in "".join(page.data) and name in "".join(page.data)
    a, b = tmp_path / f"a{name}.bin", tmp_path / f"b{name}.bin"
    a.write_bytes(_hostile_frame(HOSTILE[0], 1))
    b.write_bytes(_hostile_frame(HOSTILE[1], 1))
    code, text = run_cli(["diff", str(a), str(b), "--format", "html"])
    assert code == 1  # different invocations
    page = Page(text)
    assert_only_template_markup(page)
    assert_self_contained(page, text)
    data = "".join(page.data)
    assert HOSTILE[0] in data and HOSTILE[1] in data


def test_spans_mark_exactly_what_differs() -> None:
    left, right = spans.compare("abc-XYZ-def", "abc-Q-def")
    assert "".join(s.text for s in left) == "abc-XYZ-def"
    assert [s.text for s in left if s.differs] == ["XYZ"]
    assert [s.text for s in right if s.differs] == ["Q"]
    one, _other = spans.compare("0" * 63 + "1", "0" * 63 + "2")
    assert [s.text for s in one if s.differs] == ["1"]
    hexa, _hexb = spans.compare("5fb47122", "30290f70")
    assert [s.text for s in hexa if s.differs] == ["5fb47122"]  # digests differ as wholes
    same, _ = spans.compare("x", "x")
    assert not any(s.differs for s in same)
    assert spans.first_difference("abc", "abd") == 2 and spans.first_difference("ab", "abc") == 2


def test_html_is_a_registered_format_of_every_command() -> None:
    assert "html" in FORMATS
    code, out = run_cli(["diff", "--help"])
    assert code == 0
    assert "html" in out


def test_explain_text_is_the_catalogue_entry() -> None:
    from sealverify._internal import catalogue

    entry = catalogue.lookup("binding.args-hash")
    assert entry is not None
    assert describe("binding.args-hash") == catalogue.plain(entry.full)  # no raw backticks
    assert "`" in entry.full and "`" not in (describe("binding.args-hash") or "")
    assert "sha256" in (describe("binding.args-hash") or "")
    assert document_of("binding.args-hash") == "docs/verify.md"
    assert describe("no.such-check") is None and document_of("no.such-check") == "docs/checks.md"
    assert describe("log.broken-line") is not None
    assert document_of("log.broken-line") == "docs/verify.md"


def test_in_memory_render_of_a_verify_report_matches_the_cli_rows() -> None:
    from sealverify import build_report

    options = VerifyOptions()
    subjects = [
        verify_receipt(p.read_bytes(), p.as_posix(), options)
        for p in sorted((DEMO / "receipts").glob("*.receipt.json"))
    ]
    page = Page(render(build_report(subjects, []), "html"))
    assert len([r for r in page.find("tr") if "data-outcome" in r.attrs]) == len(subjects)
    assert len(subjects) <= DETAIL_CAP
    assert len(page.with_class("receipt", "section")) == sum(
        s.outcome != "VERIFIED" for s in subjects
    )


def test_verify_page_is_the_same_with_workers_and_deterministic() -> None:
    args = [
        "verify",
        str(DEMO / "receipts"),
        "--trust",
        str(DEMO / "trust.json"),
        "--format",
        "html",
    ]
    _code, one = run_cli(args)
    _code, again = run_cli(args)
    _code, workers = run_cli([*args, "--jobs", "2"])
    assert one == again == workers


def test_large_runs_bin_the_timeline_and_state_what_they_do_not_list() -> None:
    from sealverify._internal.reports.formats.html.verify_page import (
        DOT_CAP,
        VERIFIED_ROW_CAP,
        VerifyPage,
        receipt_fragments,
    )

    verified, failed = VERIFIED_ROW_CAP + 300, DETAIL_CAP + 20
    checks = (Check("binding.args-hash", "fail", "args_hash differs", "/args_hash"),)
    subjects = [
        Subject(f"v{i}.json", "VERIFIED", display={"signed_time_ms": 1_786_000_000_000 + i})
        for i in range(verified)
    ] + [
        Subject(f"f{i}.json", "FAIL", checks, display={"signed_time_ms": 1_786_000_000_000 + i})
        for i in range(failed)
    ]
    assert len(subjects) > DOT_CAP
    summary = {"receipts": len(subjects), "VERIFIED": verified, "FAIL": failed, "findings": 0}
    with VerifyPage() as built:
        for subject in subjects:
            built.add(subject, receipt_fragments(subject))
        text = "".join(built.pieces(Report("verify", (), summary, 1)))
    page = Page(text)
    rows = [r for r in page.find("tr") if "data-outcome" in r.attrs]
    assert sum(r.attrs["data-outcome"] == "VERIFIED" for r in rows) == VERIFIED_ROW_CAP
    assert sum(r.attrs["data-outcome"] == "FAIL" for r in rows) == failed
    assert len(page.with_class("receipt", "section")) == DETAIL_CAP
    assert "300 receipt(s) are not listed (300 VERIFIED)" in page.by_id("table-note").joined
    assert "20 more did not verify" in page.by_id("details-note").joined
    assert not page.with_class("dot", "circle") and page.with_class("bin", "rect")
    assert "in 60 bins" in page.by_id("timeline-note").joined
    # A row whose drill-down was cut links nowhere: every in-page link has its target.
    targets = {e.attrs["id"] for e in page.elements if "id" in e.attrs}
    assert all(a.attrs["href"][1:] in targets for a in page.find("a"))


def _truncated_log(tmp_path: Path) -> tuple[Path, str]:
    """Six chained records of which the last two were cut off; the full chain's final head."""
    lines, heads = chain_lines([audit_payload(i) for i in range(6)])
    path = tmp_path / "cut.log"
    path.write_bytes(b"".join(line + b"\n" for line in lines[: 3 * 4]))  # 3 lines per record
    return path, heads[-1]


def test_truncated_chain_draws_its_missing_tail_in_red(tmp_path: Path) -> None:
    path, _ = _truncated_log(tmp_path)
    code, text = run_cli(["chain", str(path), "--expect-count", "6", "--format", "html"])
    assert code == 1
    page = Page(text)
    cells = page.with_class("cell", "rect")
    assert [c.attrs["data-state"] for c in cells] == ["ok"] * 4 + ["missing"]
    assert cells[-1].attrs["stroke"] == "#cf222e"
    strip = page.by_id("chain-strip").joined
    assert "tail: truncated (2 missing)" in strip and "tail: anchored" not in strip
    rows = [r.attrs["data-state"] for r in page.find("tr") if "data-state" in r.attrs]
    assert rows == ["ok"] * 4 + ["missing"]
    assert "truncated (2 missing)" in page.by_id("summary").joined
    # The table says it too, and the json keeps the count apart from the word.
    code, table = run_cli(["chain", str(path), "--expect-count", "6"])
    assert re.search(r"^tail +truncated$", table, re.M)
    assert re.search(r"^tail_missing +2$", table, re.M)


def test_head_anchor_not_reached_is_a_truncated_tail_of_unknown_size(tmp_path: Path) -> None:
    path, head = _truncated_log(tmp_path)
    code, text = run_cli(["chain", str(path), "--expect-head", head, "--format", "html"])
    assert code == 1
    page = Page(text)
    assert page.with_class("cell", "rect")[-1].attrs["data-state"] == "missing"
    strip = page.by_id("chain-strip").joined
    assert "tail: truncated (how many missing is not known)" in strip
    report = _json(["chain", str(path), "--expect-head", head])
    facts = report["subjects"][0]["facts"]
    assert facts["tail"] == "truncated" and "tail_missing" not in facts


def test_a_check_s_doc_reference_is_a_link_when_the_source_tree_is_known() -> None:
    from click.testing import CliRunner

    from sealverify._internal.cli.main import cli

    demo = str(Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "receipts")
    args = ["verify", demo, "--format", "html"]
    base = "https://example.org/sv/blob/v1/"
    linked = CliRunner(env={"SEALVERIFY_SOURCE_URL": base}).invoke(cli, args).stdout
    assert f'<a href="{base}docs/verify.md">docs/verify.md</a>' in linked
    plain = CliRunner(env={"SEALVERIFY_SOURCE_URL": ""}).invoke(cli, args).stdout
    assert "(docs/verify.md)" in plain and "example.org" not in plain

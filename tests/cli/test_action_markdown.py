"""The Action's run summary: evidence renders as the text it is, and the worst comes first.

Every string from evidence (a file name, a finding reason quoting a member name) goes into the
summary through ``sealverify._internal.cli.markdown``. A corpus of hostile strings is rendered by a
real CommonMark renderer (markdown-it-py, with the GFM table extension and linkify, as GitHub
renders a step summary) and the rendered text must equal what ``visible`` shows, with no
link, image, HTML element or emphasis made from it. Then the Action itself runs on evidence
named and written to attack its summary, and on a run whose FAILs come last.
"""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from sealverify._internal import catalogue
from sealverify._internal.cli import github_action, markdown
from sealverify._internal.reports.visible import visible
from tests.conftest import ROOT

DEMO = "fixtures/demo"

HOSTILE = [
    "![img](https://evil.example/x.png)",
    "[link](https://evil.example/)",
    "[ref][r]\n\n[r]: https://evil.example/",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<a href='https://evil.example'>x</a>",
    "<!-- hidden --> after",
    "<https://evil.example/auto>",
    "https://evil.example/bare www.evil.example user@evil.example",
    "*em* _em_ **strong** __strong__ ***both***",
    "~~strike~~",
    "`code` ``two`` ```three```",
    "` leading backtick",
    "trailing backtick `",
    "``",
    "`",
    " padded both ends ",
    "a|b||c",
    "\\|",
    "\\",
    "x\\",
    "\\`",
    "\\\\|\\\\",
    "&lt;img src=x&gt; &amp; &#60;b&#62; &copy;",
    "# heading",
    "> quote",
    "- item",
    "1. item",
    "---",
    "| cell | cell |",
    "line\nbreak",
    "carriage\r\nreturn",
    "\x1b[31mred\x1b[0m",
    "\u202eevil\u202c",
    "zero\u200bwidth",
    "tab\there",
    "[x](javascript:alert(1))",
    "![x](data:image/png;base64,AAAA)",
    "<details><summary>s</summary>hidden</details>",
    "[![nested](https://evil.example/i.png)](https://evil.example/)",
    "$x^2$ :smile: @someone #123",
    "",
]
_RENDER = MarkdownIt("gfm-like")  # CommonMark, GFM tables and strikethrough, linkify, html on


class _Text(HTMLParser):
    """The rendered page's text and its elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _rendered(source: str) -> _Text:
    parsed = _Text()
    parsed.feed(_RENDER.render(source))
    return parsed


def _tokens(source: str) -> list[Token]:
    flat: list[Token] = []
    for token in _RENDER.parse(source):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


@pytest.mark.parametrize("value", HOSTILE)
def test_text_renders_as_the_visible_text_and_nothing_else(value: str) -> None:
    page = _rendered(f"before {markdown.text(value)} after")
    assert page.tags == ["p"], page.tags
    assert "".join(page.text).removesuffix("\n") == f"before {visible(value)} after"


@pytest.mark.parametrize("value", HOSTILE)
def test_a_code_span_shows_the_visible_text_exactly(value: str) -> None:
    page = _rendered(f"x {markdown.code(value)} y")
    if not visible(value):
        assert "".join(page.text).removesuffix("\n") == "x (empty) y"
        return
    assert page.tags == ["p", "code"], page.tags
    assert "".join(page.text).removesuffix("\n") == f"x {visible(value)} y"


@pytest.mark.parametrize("value", HOSTILE)
def test_in_a_table_cell_both_writers_stay_one_cell(value: str) -> None:
    row = f"| {markdown.code(value, cell=True)} | {markdown.text(value)} | end |"
    page = _rendered(f"| a | b | c |\n|---|---|---|\n{row}\n")
    assert page.tags.count("td") == 3 and "a" not in page.tags and "img" not in page.tags
    source = f"| a | b | c |\n|---|---|---|\n{row}\n"
    cells = [t for t in _RENDER.parse(source) if t.type == "inline"]
    texts = ["".join(c.content for c in cell.children or []) for cell in cells[3:]]
    shown = visible(value) or "(empty)"
    assert texts == [shown, visible(value), "end"]


def test_a_link_to_an_id_s_help_goes_where_the_action_says_and_nowhere_else() -> None:
    url = "https://github.com/owner/sealverify/blob/v1/docs/checks.md#binding.args-hash"
    tokens = _tokens(markdown.link("binding.args-hash", url))
    (opened,) = [t for t in tokens if t.type == "link_open"]
    assert opened.attrs["href"] == url
    assert markdown.link("binding.args-hash", None) == "`binding.args-hash`"
    odd = _tokens(markdown.link("x", "https://a.example/x y)(<z>"))
    (opened,) = [t for t in odd if t.type == "link_open"]
    assert opened.attrs["href"] == "https://a.example/x%20y%29%28%3Cz%3E"


def _step(tmp: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv(catalogue.SOURCE_URL_ENV, raising=False)
    tmp.mkdir(parents=True, exist_ok=True)
    summary = tmp / "summary.md"
    full = {
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "GITHUB_WORKSPACE": str(ROOT),
        "INPUT_SARIF": "",
        **env,
    }
    out = io.StringIO()
    code = github_action.main(env=full, out=out)
    return code, out.getvalue(), summary.read_text(encoding="utf-8")


def test_hostile_evidence_makes_no_markup_in_the_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The held-out attack: a log line's duplicate member name, quoted in the finding reason,
    # and file names written to be Markdown. None may render as anything but its text.
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    lines = [
        '{"![x](https://evil.example/x.png)":1,"![x](https://evil.example/x.png)":2}',
        '{"<img src=x onerror=alert(1)>":1,"<img src=x onerror=alert(1)>":2}',
        '{"[click](https://evil.example/)":1,"[click](https://evil.example/)":2}',
        '{"**bold** _em_ `tick`":1,"**bold** _em_ `tick`":2}',
    ]
    (evidence / "log [x](https:evil) *a*.jsonl").write_text("\n".join(lines) + "\n")
    bypass = (ROOT / DEMO / "receipts" / "fail-bypass.receipt.json").read_bytes()
    (evidence / "![i](https:__evil.example_i.png) <b>.receipt.json").write_bytes(bypass)
    (evidence / "a|b `c` \\d.receipt.json").write_bytes(bypass)
    env = {
        "INPUT_PATHS": str(evidence),
        "SEALVERIFY_ACTION_REPOSITORY": "owner/sealverify",
        "SEALVERIFY_ACTION_REF": "v1",
    }
    code, _, summary = _step(tmp_path / "run", monkeypatch, env)
    assert code == 1
    assert "duplicate member name" in summary  # the attack's text is there, as text
    tokens = _tokens(summary)
    kinds = {t.type for t in tokens}
    assert not kinds & {"image", "html_inline", "html_block", "em_open", "s_open"}, kinds
    links = [t.attrs["href"] for t in tokens if t.type == "link_open"]
    docs = "https://github.com/owner/sealverify/blob/v1/docs/checks.md#"
    assert links and all(str(href).startswith(docs) for href in links), links
    strong = [t for t in tokens if t.type == "strong_open"]
    assert len(strong) == 1  # the count line's own bold, nothing from the evidence
    page = _rendered(summary)
    text = "".join(page.text)
    for name in ("![i](https:__evil.example_i.png) <b>.receipt.json", "a|b `c` \\d.receipt.json"):
        assert visible(str(evidence / name)).replace(str(ROOT) + "/", "") in text
    assert '"<img src=x onerror=alert(1)>"' in text and '"**bold** _em_ `tick`"' in text


def test_every_linked_id_has_its_anchor_in_checks_md(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        "INPUT_PATHS": f"{DEMO}/receipts",
        "INPUT_TRUST": f"{DEMO}/trust.json",
        "SEALVERIFY_ACTION_REPOSITORY": "owner/sealverify",
        "SEALVERIFY_ACTION_REF": "v1",
    }
    _, _, summary = _step(tmp_path, monkeypatch, env)
    checks = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    anchors = [
        str(t.attrs["href"]).partition("#")[2] for t in _tokens(summary) if t.type == "link_open"
    ]
    assert "binding.args-hash" in anchors and "binding.effect-view.*" in anchors
    for anchor in anchors:
        assert f'<a id="{anchor}"></a>' in checks, anchor
    plain = _step(
        tmp_path / "plain", monkeypatch, {k: v for k, v in env.items() if "ACTION" not in k}
    )
    assert "](" not in plain[2] and "`binding.args-hash`" in plain[2]


def test_the_worst_come_first_when_the_rows_and_annotations_are_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Input order puts the UNPINNED receipts first and the FAILs last; with room for three
    # rows and three annotations the FAILs must still be the ones shown, and the cut named.
    monkeypatch.setattr(github_action, "_MAX_ROWS", 3)
    monkeypatch.setattr(github_action, "_MAX_ANNOTATIONS", 3)
    paths = "\n".join(
        f"{DEMO}/receipts/{glob}" for glob in ("verified-*.json", "reduced-*.json", "fail-*.json")
    )
    env = {"INPUT_PATHS": paths, "INPUT_TRUST": f"{DEMO}/trust.json"}
    code, out, summary = _step(tmp_path, monkeypatch, env)
    assert code == 1
    rows = [line for line in summary.splitlines() if line.startswith("| `fixtures/")]
    assert [row.split(" | ")[1] for row in rows] == ["FAIL \\(NOT MEDIATED\\)", "FAIL", "FAIL"]
    assert "| … | 5 more not listed (5 UNPINNED): at most 3 rows, worst first |" in summary
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(errors) == 3 and all("title=sealverify%3A FAIL" in e for e in errors)
    assert "::notice::5 more not annotated (5 UNPINNED)" in out
    assert "sealverify-action-" not in out + summary  # no internal temporary path


def test_the_kept_items_are_bounded_and_the_two_late_fails_survive() -> None:
    worst = github_action._Worst(100)
    for index in range(4990):
        worst.add("UNPINNED", f"u{index}")
    worst.add("FAIL", "f1")
    worst.add("FAIL", "f2")
    shown = worst.shown()
    assert shown[:2] == ["f1", "f2"] and len(shown) == 100
    assert worst.cut() == {"UNPINNED": 4892}  # 98 of them shown after the two FAILs
    assert sum(len(kept) for kept in worst.kept.values()) <= 300


def test_format_html_writes_verify_s_own_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sealverify._internal.cli.main import cli

    target = tmp_path / "page" / "report.html"
    env = {
        "INPUT_PATHS": f"{DEMO}/receipts",
        "INPUT_TRUST": f"{DEMO}/trust.json",
        "INPUT_FORMAT": "html",
        "INPUT_REPORT": str(target),
    }
    code, _, _ = _step(tmp_path, monkeypatch, env)
    assert code == 1
    expected = tmp_path / "cli.html"
    args = ["verify", f"{DEMO}/receipts", "--format", "html", "--output", str(expected)]
    CliRunner().invoke(cli, [*args, "--trust", f"{DEMO}/trust.json"])
    assert target.read_bytes() == expected.read_bytes()
    named = github_action.Inputs.from_env({"INPUT_PATHS": "x", "INPUT_FORMAT": "html"})
    assert named.report == "sealverify-report.html"

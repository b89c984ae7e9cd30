"""The html reports in a real browser: headless Chromium renders them, runs the filter script,
and a screenshot of each is a page, not a blank."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.html_support import (
    Page,
    browser,
    chain_demo_html,
    chromium,
    diff_demo_html,
    verify_demo_html,
)

PIL = pytest.importorskip("PIL.Image", reason="Pillow (the test extra) decodes the screenshots")

# The banner colours of the stylesheet: FAIL and BROKEN red, "same action" amber.
RED = (0xCF, 0x22, 0x2E)
AMBER = (0x9A, 0x67, 0x00)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    chromium()  # skips the module with a clear message where it is not installed
    root = tmp_path_factory.mktemp("html")
    texts = {
        "verify": verify_demo_html(),
        "chain": chain_demo_html(root),
        "diff": diff_demo_html(),
    }
    paths = {}
    for name, text in texts.items():
        paths[name] = root / f"{name}.html"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def dom(path: Path, tmp_path: Path, fragment: str = "") -> Page:
    done = browser(["--dump-dom", path.as_uri() + fragment], tmp_path / "profile")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    text = done.stdout.decode("utf-8")
    assert text.lstrip().startswith(("<!DOCTYPE html>", "<html")), text[:200]
    return Page(text)


def screenshot(path: Path, tmp_path: Path) -> PIL.Image:
    shot = tmp_path / "shot.png"
    done = browser(
        ["--window-size=1280,1600", f"--screenshot={shot}", path.as_uri()], tmp_path / "profile"
    )
    assert done.returncode == 0 and shot.is_file(), done.stderr.decode(errors="replace")[-2000:]
    image = PIL.open(shot).convert("RGB")
    assert image.size == (1280, 1600)
    return image


def assert_not_blank(image: PIL.Image, banner: tuple[int, int, int]) -> None:
    counts = {colour: n for n, colour in image.getcolors(maxcolors=1 << 24) or []}
    assert len(counts) > 50, "a nearly uniform screenshot: the page did not render"
    total = image.size[0] * image.size[1]
    ink = 1 - counts.get((255, 255, 255), 0) / total
    assert ink > 0.05, f"only {ink:.1%} of the page is not white"
    # The stylesheet applied: the banner's solid colour covers a block of pixels.
    assert counts.get(banner, 0) > 5000, "the banner colour is missing: no style applied?"


def test_verify_report_in_chromium(reports: dict[str, Path], tmp_path: Path) -> None:
    page = dom(reports["verify"], tmp_path)
    for section in ("summary", "timeline", "receipts", "details"):
        page.by_id(section)
    rows = [r for r in page.find("tr") if "data-outcome" in r.attrs]
    assert len(rows) == 13 and not any("hidden" in r.attrs for r in rows)
    assert page.by_id("filter-shown").joined == "13"
    assert len(page.with_class("receipt", "section")) == 7
    assert len(page.with_class("dot", "circle")) == 10  # receipts with a signed time
    assert_not_blank(screenshot(reports["verify"], tmp_path), RED)


def test_verify_report_filter_runs_in_the_browser(reports: dict[str, Path], tmp_path: Path) -> None:
    page = dom(reports["verify"], tmp_path, "#filter:q=fail-bypass")
    rows = [r for r in page.find("tr") if "data-outcome" in r.attrs]
    shown = [r for r in rows if "hidden" not in r.attrs]
    assert len(rows) == 13 and len(shown) == 1 and "fail-bypass" in shown[0].joined
    assert page.by_id("filter-shown").joined == "1"


def test_chain_report_in_chromium(reports: dict[str, Path], tmp_path: Path) -> None:
    page = dom(reports["chain"], tmp_path)
    for section in ("summary", "timeline", "breaks", "records"):
        page.by_id(section)
    cells = page.with_class("cell", "rect")
    assert len(cells) == 16
    assert [c.attrs["data-state"] for c in cells].count("broken") == 1
    assert page.by_id("break-count").joined == "1"
    assert_not_blank(screenshot(reports["chain"], tmp_path), RED)


def test_diff_report_in_chromium(reports: dict[str, Path], tmp_path: Path) -> None:
    page = dom(reports["diff"], tmp_path)
    for section in ("verdict", "sides", "bytes", "identities", "meta-keys"):
        page.by_id(section)
    assert "same action, different invocation" in page.by_id("verdict-text").joined
    assert len(page.find("mark")) == 2  # one differing span on each side
    assert_not_blank(screenshot(reports["diff"], tmp_path), AMBER)

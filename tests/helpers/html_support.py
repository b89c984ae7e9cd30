"""Helpers for the html report tests: the three demo reports, a strict parse, headless Chromium."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit.auditlog import demo_log
from sealverify_testkit.browser import chromium_path, run_chromium

from sealverify._internal.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
FRAMES = ROOT / "fixtures" / "frames"


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: list[str] = field(default_factory=list)

    @property
    def joined(self) -> str:
        return "".join(self.text)

    def has_class(self, name: str) -> bool:
        return name in self.attrs.get("class", "").split()


class Page(HTMLParser):
    """Every element with its attributes and its own text; unclosed void tags are fine."""

    VOID = frozenset({"meta", "br", "input", "link", "img", "hr", "circle", "rect", "line", "path"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.data: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                break

    def handle_data(self, data: str) -> None:
        self.data.append(data)
        for element in self._open:
            element.text.append(data)

    def find(self, tag: str | None = None, **attrs: str) -> list[Element]:
        return [
            e
            for e in self.elements
            if (tag is None or e.tag == tag)
            and all(e.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def by_id(self, name: str) -> Element:
        (found,) = [e for e in self.elements if e.attrs.get("id") == name]
        return found

    def with_class(self, name: str, tag: str | None = None) -> list[Element]:
        return [e for e in self.elements if e.has_class(name) and (tag is None or e.tag == tag)]


def run_cli(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    return result.exit_code, result.stdout


def verify_demo_html() -> str:
    code, out = run_cli(
        [
            "verify",
            str(DEMO / "receipts"),
            "--trust",
            str(DEMO / "trust.json"),
            "--allow-published-keys",
            "--format",
            "html",
        ]
    )
    assert code == 1
    return out


def chain_demo_html(tmp: Path) -> str:
    log, head = demo_log()
    path = tmp / "host-stderr.log"
    path.write_bytes(log)
    code, out = run_cli(["chain", str(path), "--expect-head", head, "--format", "html"])
    assert code == 1
    return out


def diff_demo_html() -> str:
    code, out = run_cli(
        ["diff", str(FRAMES / "call.bin"), str(FRAMES / "call-other-trace.bin"), "--format", "html"]
    )
    assert code == 1
    return out


def chromium() -> str:
    path = chromium_path()
    if path is None:
        pytest.skip(
            "chromium is not installed (Debian: apt-get install -y chromium; .ci/run installs "
            "it): the real-browser tests of the html reports are skipped"
        )
    return path


def browser(
    args: list[str], profile: Path, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """Run headless Chromium once with a fresh profile directory; never touches the network."""
    return run_chromium(chromium(), args, profile, timeout)

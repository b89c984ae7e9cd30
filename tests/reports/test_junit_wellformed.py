"""Every JUnit report is well-formed XML 1.0, read by a strict parser, whatever the evidence."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import click
import pytest

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats import junit
from sealverify._internal.results.model import Report, Subject, fail, not_evaluated
from tests.helpers.examples import EXAMPLE_LIST

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
# The characters XML 1.0 forbids (section 2.2, production Char), one of each kind.
FORBIDDEN = "\x01\x0b\x1b\ufffe\uffff"


def parse_strictly(data: bytes) -> None:
    """Raise unless ``data`` is a well-formed XML document (expat, through two front ends)."""
    ET.fromstring(data)
    xml.dom.minidom.parseString(data)


@pytest.mark.parametrize(
    "document",
    [
        b"<a>\x01</a>",
        b"<a>\x0b</a>",
        b"<a>&#1;</a>",  # a character reference does not make a forbidden character legal
        "<a>\ufffe</a>".encode(),
        b'<a b="\x01"/>',
    ],
)
def test_the_parser_is_strict_about_forbidden_characters(document: bytes) -> None:
    with pytest.raises(Exception):  # noqa: B017 (ParseError and ExpatError alike)
        parse_strictly(document)


@pytest.mark.parametrize("inner", [FORBIDDEN, "\ud800\udcff", "\u202e<&>\"'"])
def test_hostile_names_reasons_and_summaries_render_well_formed(inner: str) -> None:
    hostile = "a" + inner + "b"
    subject = Subject(
        hostile,
        "FAIL",
        (fail("kernel.identity", f"kernel wasm {hostile} is not pinned", hostile),),
        label=hostile,
    )
    unevaluated = Subject("x" + hostile, hostile, (not_evaluated("replay.decision", hostile),))
    report = Report(
        "verify",
        (subject, unevaluated),
        {"receipts": 2, hostile: hostile},
        1,
        (fail("log.broken-line", hostile, hostile),),
    )
    text = junit.render(report)
    parse_strictly(text.encode("utf-8"))  # encodes: no lone surrogate is left either
    root = ET.fromstring(text.encode("utf-8"))
    cases = root.findall(".//testcase")
    assert len(cases) == 3
    shown = {
        FORBIDDEN: "\\x01\\x0b\\x1b\\ufffe\\uffff",
        "\ud800\udcff": "\\ud800\\udcff",
        "\u202e<&>\"'": "\\u202e<&>\"'",
    }[inner]
    assert cases[0].get("name") == f"a{shown}b"
    failure = cases[0].find("failure")
    assert failure is not None and f"kernel wasm a{shown}b" in (failure.text or "")


def _hostile_folder(tmp_path: Path) -> Path:
    document = json.loads((DEMO / "receipts/verified-allow.receipt.json").read_bytes())
    document["kernel_identity"]["wasm_sha256"] = "a" + FORBIDDEN + "b"  # quoted in a reason
    folder = tmp_path / "receipts"
    folder.mkdir()
    (folder / "forbidden.receipt.json").write_text(json.dumps(document), encoding="utf-8")
    # A file name that is not UTF-8 reaches Python as a lone surrogate (surrogateescape).
    (folder / "x.receipt.json").write_bytes(
        (DEMO / "receipts/fail-bypass.receipt.json").read_bytes()
    )
    (folder / "x.receipt.json").rename(
        folder.joinpath(b"bad\xff.receipt.json".decode(errors="surrogateescape"))
    )
    log = folder / "log.jsonl"
    log.write_text('{"a": "\\u0001' + "\x0b\n", encoding="utf-8")  # a broken line, quoted
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_verify_junit_of_hostile_evidence_parses_strictly(tmp_path: Path, jobs: str) -> None:
    folder = _hostile_folder(tmp_path)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "sealverify", "verify", str(folder), "--format", "junit"),
            *("--trust", str(DEMO / "trust.json"), "--jobs", jobs),
        ],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    parse_strictly(done.stdout)
    root = ET.fromstring(done.stdout)
    names = [case.get("name") for case in root.iter("testcase")]
    # report_name writes the stray byte as \xff, and visible() doubles a backslash before "x"
    assert any(name and "bad\\\\xff.receipt.json" in name for name in names)
    text = "".join(f.text or "" for f in root.iter("failure"))
    assert "a\\x01\\x0b\\x1b\\ufffe\\uffffb" in text


def _has_junit(argv: list[str]) -> bool:
    """Whether the command ``argv`` names offers ``--format junit``."""
    command: click.Command = cli
    for word in argv[1:]:
        sub = (
            command.get_command(click.Context(command), word)
            if isinstance(command, click.Group)
            else None
        )
        if sub is None:  # an argument: the command is found (a group may take arguments too)
            break
        command = sub
    formats = [p for p in command.params if p.name == "fmt"]
    return bool(formats) and "junit" in getattr(formats[0].type, "choices", ())


# Every command docs/examples.md runs, again with --format junit where the command has it.
_JUNIT = [(text, argv) for text, argv, _, _ in EXAMPLE_LIST if _has_junit(argv)]


def test_most_examples_have_junit() -> None:
    assert {argv[1] for _, argv in _JUNIT} >= {"verify", "chain", "approval", "partition", "skill"}


@pytest.mark.parametrize("text,argv", _JUNIT, ids=[t[:60] for t, _ in _JUNIT])
def test_every_example_in_junit_parses_strictly(text: str, argv: list[str]) -> None:
    args = list(argv[1:])
    if "--format" in args:
        args[args.index("--format") + 1] = "junit"
    else:
        args += ["--format", "junit"]
    if "--output" in args:
        at = args.index("--output")
        del args[at : at + 2]
    done = subprocess.run(
        [sys.executable, "-m", "sealverify", *args], cwd=ROOT, capture_output=True, check=False
    )
    assert done.returncode != 2, (text, done.stderr)
    parse_strictly(done.stdout)


_XML_TEXTS = [
    "",
    "plain",
    "a & b < c > d",
    "&amp; already",
    'say "hi"',
    "it's",
    "both \" and '",
    "line\nbreak\rreturn\ttab",
    "&#10; written out",
    "\x1b[31m red \u202e",
    "\"'&<>\n\r\t" * 3,
]


@pytest.mark.parametrize("text", _XML_TEXTS)
def test_escapes_equal_the_standard_library(text: str) -> None:
    from xml.sax import saxutils  # the oracle: the escapes are written in junit.py

    assert junit.escape(text) == saxutils.escape(text)
    visible_text = junit.visible(text)
    assert junit.quoteattr(text) == saxutils.quoteattr(visible_text)
    # and the attribute reads back as the visible text
    assert ET.fromstring(f"<a b={junit.quoteattr(text)}/>".encode()).get("b") == visible_text

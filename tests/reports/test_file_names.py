"""Any file name: bytes that are not UTF-8 are shown escaped in every format, never a crash.

On Linux such a name reaches Python with lone surrogates (PEP 383), which no report can encode:
each format used to end in "internal error: UnicodeEncodeError". The files here are made from
bytes names (``os.fsdecode``), as an attacker who names the evidence would.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.filenames import report_name, uri_path
from tests.helpers.skill_listing import listing, write_tree

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo" / "receipts"

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or os.fsencode("\udcff") != b"\xff",
    reason="file names are bytes (surrogateescape) on POSIX only",
)


def _named(folder: Path, name: bytes) -> Path:
    return folder / os.fsdecode(name)


def _run(*args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert "internal error" not in result.stderr
    return result.exit_code, result.stdout_bytes, result.stderr


def test_report_name_escapes_only_what_is_not_utf8() -> None:
    assert report_name("plain/r.json") == "plain/r.json"
    assert report_name("été/r.json") == "été/r.json"
    assert report_name(os.fsdecode(b"r\xff\xfe.json")) == "r\\xff\\xfe.json"
    # A valid sequence beside a stray byte stays itself.
    assert report_name(os.fsdecode(b"\xc3\xa9\xc3.json")) == "é\\xc3.json"
    assert uri_path(report_name(os.fsdecode(b"dir x/r\xff.json"))) == "dir%20x/r%FF.json"
    assert uri_path("dir/é.json") == "dir/%C3%A9.json"


@pytest.fixture
def odd(tmp_path: Path) -> Path:
    """A folder holding a receipt and a receipt log whose names are not UTF-8."""
    folder = tmp_path / "in"
    folder.mkdir()
    _named(folder, b"r\xff.json").write_bytes((DEMO / "fail-bypass.receipt.json").read_bytes())
    _named(folder, b"log\xfe.jsonl").write_bytes((DEMO / "receipts.jsonl").read_bytes())
    return folder


@pytest.mark.parametrize("fmt", ["json", "jsonl", "table", "junit", "html", "sarif"])
def test_verify_shows_the_names_escaped_in_every_format(odd: Path, fmt: str) -> None:
    code, out, _ = _run("verify", str(odd), "--format", fmt)
    assert code in (1, 3, 4)
    text = out.decode("utf-8")  # strict: a stray surrogate could not have been written
    if fmt == "sarif":
        uris = {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(text)["runs"][0]["results"]
        }
        assert any(u.endswith("/in/log%FE.jsonl") for u in uris), uris
        assert any(u.endswith("/in/r%FF.json") for u in uris), uris
        return  # SARIF names files by URI only
    shown = text.replace("\\\\", "\\")  # JSON writes the backslash as \\
    assert "r\\xff.json" in shown and "log\\xfe.jsonl" in shown


def test_verify_of_a_named_log_file(odd: Path) -> None:
    code, out, _ = _run("verify", str(_named(odd, b"log\xfe.jsonl")), "--format", "jsonl")
    assert code in (1, 3, 4)
    names = {json.loads(line).get("name") for line in out.decode().splitlines()}
    assert any(n and n.endswith("log\\xfe.jsonl:1") for n in names), names


def test_lint_sarif(tmp_path: Path) -> None:
    note = _named(tmp_path, b"note\xff.md")
    note.write_text("The traceparent value is inert.\n")
    code, out, _ = _run("lint", str(tmp_path), "--format", "sarif")
    assert code == 1
    results = json.loads(out.decode("utf-8"))["runs"][0]["results"]
    uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/note%FF.md")


def test_skill_sarif(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_tree(root)
    _named(root / "git-workflow", b"extra\xff.sh").write_bytes(b"x\n")
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(listing()))
    code, out, _ = _run(
        "skill", "verify", "--listing", str(path), "--dir", str(root), "--format", "sarif"
    )
    assert code == 1
    text = out.decode("utf-8")
    assert "git-workflow/extra\\\\xff.sh" in text  # named, escaped, and never read as a file


def test_chain_sarif(tmp_path: Path) -> None:
    from tests.helpers.chain import PAYLOADS, flat, session_pairs

    pairs, _ = session_pairs(PAYLOADS)
    data = bytearray(flat(pairs))
    data[10] ^= 1  # a mutated payload: the report has a failure to carry
    log = _named(tmp_path, b"stderr\xff.log")
    log.write_bytes(bytes(data))
    receipts = _named(tmp_path, b"receipts\xfe")
    receipts.mkdir()
    _named(receipts, b"receipt-\xff.json").write_bytes(b"{}")
    for fmt in ("sarif", "json", "table", "junit", "html"):
        code, out, _ = _run("chain", str(log), "--receipts", str(receipts), "--format", fmt)
        assert code == 1
        text = out.decode("utf-8")  # strict: a stray surrogate could not have been written
        if fmt == "sarif":
            assert "stderr%FF.log" in text  # the file, by URI
            continue
        text = text.replace("\\\\", "\\")  # JSON writes a backslash doubled
        assert "stderr\\xff.log" in text and "receipts\\xfe" in text


@pytest.mark.parametrize("command", ["frame", "partition emit", "diff", "approval"])
def test_every_other_command_names_its_input_escaped(command: str, tmp_path: Path) -> None:
    frame = _named(tmp_path, b"call\xff.bin")
    frame.write_bytes((ROOT / "fixtures" / "frames" / "call.bin").read_bytes())
    args = {
        "frame": ["frame", str(frame)],
        "partition emit": ["partition", "emit", str(frame)],
        "diff": ["diff", str(frame), str(frame)],
        "approval": [
            "approval",
            str(frame),
            "--frame",
            str(frame),
            "--approval-pubkey",
            "ab" * 32,
        ],
    }[command]
    code, out, _ = _run(*args, "--format", "json")
    assert code in (0, 1, 3)
    text = out.decode("utf-8")
    if command != "partition emit":  # its output is the record, which names no file
        assert "call\\\\xff.bin" in text  # JSON writes the backslash doubled

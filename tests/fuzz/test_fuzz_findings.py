"""Crashes and slow inputs found by fuzzing, each kept as its minimised input through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.skills.identity import FrontmatterError, parse_frontmatter
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.strictjson import JsonError, parse_text


def _run(*args: str):
    # catch_exceptions=False: a crash fails the test instead of becoming exit 2.
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- a tools/call notification (no id) ------------------------------------------------------

NOTIFICATIONS = [
    b'{"jsonrpc":"2.0","method":"tools/call"}\n',
    b'{"jsonrpc":"2.0","method":"tools/call","params":{}}\n',
    b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x","_meta":5}}\n',
    b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x","arguments":{}}}\n',
]


@pytest.mark.parametrize("frame", NOTIFICATIONS)
def test_frame_refuses_a_tools_call_notification(tmp_path: Path, frame: bytes) -> None:
    path = tmp_path / "n.bin"
    path.write_bytes(frame)
    result = _run("frame", str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    subject = json.loads(result.stdout)["subjects"][0]
    ids = {c["id"] for c in subject["checks"] if c["status"] == "fail"}
    assert "tools-call.notification" in ids
    assert subject["facts"]["identities"] == "not computed: the frame must be refused first"


@pytest.mark.parametrize("frame", NOTIFICATIONS)
def test_partition_emit_refuses_a_tools_call_notification(tmp_path: Path, frame: bytes) -> None:
    path = tmp_path / "n.bin"
    path.write_bytes(frame)
    result = _run("partition", "emit", str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    assert "tools-call.notification" in result.stdout


@pytest.mark.parametrize("frame", NOTIFICATIONS)
def test_diff_of_a_tools_call_notification_is_not_comparable(tmp_path: Path, frame: bytes) -> None:
    a = tmp_path / "a.bin"
    a.write_bytes(frame)
    b = tmp_path / "b.bin"
    b.write_bytes(frame.replace(b'"method"', b'"id":1,"method"'))
    result = _run("diff", str(a), str(b), "--format", "json")
    assert result.exit_code == 1, result.output
    assert "tools-call.notification" in result.stdout


# --- tools: a declared capture file holding a number beyond binary64 --------------------------

LISTING = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}}'


def test_tools_digest_capture_file_beyond_binary64_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_bytes(LISTING)
    (tmp_path / "cap.json").write_bytes(b'{"observedAt":1e400}')
    result = _run(
        "tools", "digest", "--profile", "heldfast", "--capture", str(tmp_path / "cap.json"),
        str(tmp_path / "tools.json"), "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    failing = [f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"]
    assert [f["id"] for f in failing] == ["tools.input.bad-capture"]
    assert "1e400" in failing[0]["reason"]


@pytest.mark.parametrize("side", ["--capture-a", "--capture-b"])
def test_tools_compare_capture_file_beyond_binary64_is_a_finding(tmp_path: Path, side: str) -> None:
    (tmp_path / "tools.json").write_bytes(LISTING)
    (tmp_path / "cap.json").write_bytes(b'{"launch":{"args":[-1E+999]}}')
    tools = str(tmp_path / "tools.json")
    result = _run(
        "tools", "compare", side, str(tmp_path / "cap.json"), tools, tools, "--format", "json"
    )
    assert result.exit_code == 1, result.output
    ids = {f["id"] for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"}
    assert ids == {"tools.input.bad-capture"}


# --- skills: YAML tags on the wrong node kind, and non-finite tagged numbers -----------------


@pytest.mark.parametrize(
    "value", ["!!int []", "!!bool []", "!!float {}", "!!bool {a: 1}", "!!int sNaN", "!!int NaN",
              "!!float -Infinity", "!!int x"],
)  # fmt: skip
def test_skill_frontmatter_wrong_tag_is_refused(tmp_path: Path, value: str) -> None:
    skill = tmp_path / "demo" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text(f"---\nname: demo\ndescription: d\nx: {value}\n---\nbody\n")
    with pytest.raises(FrontmatterError):
        parse_frontmatter(skill.read_bytes())
    listing = tmp_path / "listing.json"
    entry = {"uri": "skill://demo/SKILL.md", "frontmatter": {"name": "demo", "x": 1}}
    listing.write_text(json.dumps({**entry, "resources": []}))
    result = _run("skill", "verify", "--listing", str(listing), str(skill), "--format", "json")
    assert result.exit_code == 1, result.output
    reasons = [
        c["reason"]
        for s in json.loads(result.stdout)["subjects"]
        for c in s["checks"]
        if c["status"] == "fail"
    ]
    assert any(r.startswith("frontmatter is not YAML") for r in reasons), reasons


def test_skill_frontmatter_tagged_finite_numbers_still_load() -> None:
    fm = parse_frontmatter(b"---\nname: demo\na: !!int 5\nb: !!float 1e3\nc: !!bool true\n---\n")
    assert (str(fm.value["a"]), str(fm.value["b"]), fm.value["c"]) == ("5", "1E+3", True)


# --- the too-deep location scan is linear in an unterminated string of escaped quotes --------


def _quadratic_input(n: int) -> str:
    return "[" * 65 + '"' + '\\"' * n


def test_too_deep_is_located_before_an_unterminated_string() -> None:
    # The bracket at byte 64 is the 65th: the finding and its offset are unchanged.
    with pytest.raises(JsonError) as err:
        parse_text(_quadratic_input(31_000))
    assert (err.value.code, err.value.offset) == ("json.too-deep", 64)


def test_string_token_scan_starts_once_per_opening_quote() -> None:
    # Counted, not timed: the string token of an unterminated string runs to the end of the
    # text, so the scan yields one token after the brackets instead of retrying every quote.
    text = _quadratic_input(1000)
    tokens = [m.group() for m in strictjson._TOKEN.finditer(text)]
    assert tokens[:65] == ["["] * 65
    assert tokens[65:] == [text[65:]]
    assert strictjson._STRING_TOKEN.sub("", text) == "[" * 65


def test_unterminated_string_hides_later_brackets_from_the_depth_scan() -> None:
    # Brackets after an unterminated quote sit inside that string: a syntax error, not depth.
    with pytest.raises(JsonError) as err:
        parse_text('["x' + "[" * 100)
    assert err.value.code == "json.syntax"


def test_quadratic_input_through_frame_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_quadratic_input(31_000) + "\n")
    frame = _run("frame", str(path), "--format", "json")
    assert frame.exit_code == 1 and "json.too-deep" in frame.stdout
    verify = _run("verify", str(tmp_path), "--format", "json")
    assert verify.exit_code == 1 and "nesting deeper than the limit of 64" in verify.stdout


# --- diff: a receipt's stored hash or length of the wrong type (found by the diff harness) ----

RECEIPT = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "receipts"


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("framed_subject_length", "1e-400"),
        ("framed_subject_length", "2.5"),
        ("framed_subject_sha256", '{"a":1.0}'),
        ("request_sha256", "[1e400]"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "table"])
def test_diff_receipt_with_a_mistyped_stored_hash(
    tmp_path: Path, member: str, value: str, fmt: str
) -> None:
    doc = json.loads((RECEIPT / "verified-allow.receipt.json").read_bytes())
    text = json.dumps(doc).replace(f'"{member}": {json.dumps(doc[member])}', f'"{member}": {value}')
    assert value in text
    receipt = tmp_path / "r.json"
    receipt.write_text(text)
    frame = str(Path(__file__).resolve().parents[2] / "fixtures" / "frames" / "call.bin")
    result = _run("diff", str(receipt), frame, "--format", fmt)
    assert result.exit_code == 1, result.output
    if fmt == "json":
        check = next(
            c
            for s in json.loads(result.stdout)["subjects"]
            for c in s["checks"]
            if c["id"].startswith("diff.receipt.") and c.get("data", {}).get("stored") == value
        )
        assert check["status"] == "fail"

"""Evidence cannot drive a person's terminal: every renderer, run on a real pseudo-terminal.

click strips CSI sequences only when stdout is not a terminal, so a test through a pipe sees
clean text while a terminal receives the sequences. Each test here runs the CLI as a
subprocess with its stdout on a pty (``os.openpty``) and holds that nothing from the hostile
evidence reaches it raw: no control character (category Cc but the line end) and no
formatting character (Cf: bidi overrides, zero-width characters), and that the hostile text
is shown escaped instead (docs/report-format.md, "Text from evidence").
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from sealverify_testkit import mint
from sealverify_testkit.auditlog import audit_payload, mint_log
from sealverify_testkit.keys import RECEIPT_KEY

from tests.helpers.terminal_injection import ROOT, run_on_pty

FIXTURES = ROOT / "fixtures"

# The attacks: erase the line and return to column 0, print a forged row, conceal the rest
# (the "1 FAIL" summary included); write the clipboard (OSC 52) and ring the bell; reorder the
# shown text (Trojan Source, CVE-2021-42574).
ERASE = "\x1b[2K\x1b[1G"
FORGED = ERASE + "forged.receipt.json  VERIFIED  v3  ALLOW" + "\x1b[8m"
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
RLO = "\u202e"


def assert_inert(text: str) -> None:
    """No control (but the line end) and no formatting character in ``text``."""
    bad = [
        (i, f"U+{ord(c):04X}")
        for i, c in enumerate(text)
        if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")
    ]
    assert not bad, (bad[:5], text[:2000])


@pytest.fixture()
def tmp(tmp_path: Path) -> Path:
    return tmp_path


def _receipt_with_kernel(tmp: Path, wasm: str, name: str = "evil.receipt.json") -> Path:
    document = json.loads((FIXTURES / "demo/receipts/verified-allow.receipt.json").read_bytes())
    document["kernel_identity"]["wasm_sha256"] = wasm  # unsigned change: the receipt FAILs
    path = tmp / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _resigned_with_member(tmp: Path, name: str) -> Path:
    """A receipt with one more member, named ``name``, re-signed: only receipt.members fails."""
    document = json.loads((FIXTURES / "demo/receipts/verified-allow.receipt.json").read_bytes())
    del document["signature"]
    document[name] = 1
    path = tmp / "resigned.receipt.json"
    path.write_text(json.dumps(mint.resign_v3(document, RECEIPT_KEY)), encoding="utf-8")
    return path


def test_verify_table_cannot_erase_its_fail_row_or_forge_a_verified_one(tmp: Path) -> None:
    # The hostile text leads the row's reason (receipt.members quotes the member's name) and
    # sits in kernel_identity, quoted further down (kernel.identity).
    resigned = _resigned_with_member(tmp, FORGED)
    receipt = _receipt_with_kernel(tmp, FORGED)
    for columns in (80, 120, 400):
        out, err, code = run_on_pty(
            ["verify", str(resigned), str(receipt), "--trust", "fixtures/demo/trust.json"],
            columns=columns,
        )
        assert code == 1
        assert_inert(out)
        assert_inert(err)
        rows = [line for line in out.splitlines() if ".receipt.json" in line]
        assert [row.split()[1] for row in rows] == ["FAIL", "FAIL"], out
        assert "receipt.members: \\x1b[2K\\x1b[1G" in out
        assert "2 FAIL" in err
    out, err, code = run_on_pty(
        ["verify", str(resigned), "--trust", "fixtures/demo/trust.json"], columns=400
    )
    assert (
        "receipt.members: \\x1b[2K\\x1b[1Gforged.receipt.json  VERIFIED  v3  ALLOW\\x1b[8m" in out
    )


def test_verify_shows_a_walked_file_name_escaped(tmp: Path) -> None:
    folder = tmp / "walked"
    folder.mkdir()
    _receipt_with_kernel(folder, "00" * 32, name=f"a{ERASE}b{RLO}nosj.receipt.json")
    out, err, code = run_on_pty(
        ["verify", str(folder), "--trust", "fixtures/demo/trust.json"], columns=400
    )
    assert code == 1
    assert_inert(out)
    assert_inert(err)
    assert "a\\x1b[2K\\x1b[1Gb\\u202enosj.receipt.json" in out


def test_verify_run_findings_escape_a_log_name(tmp: Path) -> None:
    log = tmp / f"log{OSC52}.jsonl"
    log.write_text('{"record_type": "v3"\n', encoding="utf-8")  # a broken line: a finding
    receipt = _receipt_with_kernel(tmp, OSC52)
    for columns in (80, 120):
        out, err, code = run_on_pty(
            ["verify", str(log), str(receipt), "--trust", "fixtures/demo/trust.json"],
            columns=columns,
        )
        assert code == 1
        assert_inert(out)
        assert_inert(err)
        assert "log\\x1b]52;c;cm0gLXJmIH4=\\x07.jsonl:1" in out


def _evil_frame(tmp: Path) -> Path:
    call = (FIXTURES / "frames/call.bin").read_bytes()
    assert b'"id":1,' in call
    path = tmp / "evil.bin"
    path.write_bytes(call.replace(b'"id":1,', b'"id":' + json.dumps(OSC52).encode() + b",", 1))
    return path


def test_diff_cannot_write_the_clipboard(tmp: Path) -> None:
    out, err, _ = run_on_pty(["diff", "fixtures/frames/call.bin", str(_evil_frame(tmp))])
    assert_inert(out)
    assert_inert(err)
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in out


def test_diff_error_line_escapes_the_request_id(tmp: Path) -> None:
    # A's id is hostile and the reply answers another id: the usage error names A's id.
    reply = tmp / "reply.bin"
    reply.write_bytes(b'{"jsonrpc":"2.0","id":99,"result":{}}\n')
    out, err, code = run_on_pty(
        ["diff", str(_evil_frame(tmp)), "fixtures/frames/call.bin", "--reply-a", str(reply)]
    )
    assert code == 2
    assert_inert(out)
    assert_inert(err)
    assert "\\x1b]52" in err


def test_frame_table_escapes_the_request_id(tmp: Path) -> None:
    out, err, _ = run_on_pty(["frame", str(_evil_frame(tmp))])
    assert_inert(out)
    assert_inert(err)
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in out


def test_tools_digest_cannot_reorder_a_tool_name(tmp: Path) -> None:
    tools = json.loads((FIXTURES / "tools/tools.json").read_bytes())
    tools["tools"][0]["name"] = f"search{RLO}seton"
    path = tmp / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    out, err, _ = run_on_pty(["tools", "digest", str(path)])
    assert_inert(out)
    assert_inert(err)
    assert "search\\u202eseton" in out


def test_skill_verify_cannot_reorder_a_skill_uri(tmp: Path) -> None:
    listing = json.loads((FIXTURES / "skills/listing.json").read_bytes())
    resources = listing["result"]["skills"][0]["resources"]
    resources[1]["uri"] = f"skill://release-notes/templates/{RLO}dm.yrtne"
    path = tmp / "listing.json"
    path.write_text(json.dumps(listing), encoding="utf-8")
    out, err, code = run_on_pty(
        ["skill", "verify", "--listing", str(path), "--dir", "fixtures/skills/dir"]
    )
    assert code == 1
    assert_inert(out)
    assert_inert(err)
    assert "\\u202edm.yrtne" in out


def test_chain_escapes_a_hostile_session(tmp: Path) -> None:
    log = tmp / "host.stderr"
    log.write_bytes(mint_log([audit_payload(0), audit_payload(1)], session=FORGED + OSC52).data)
    out, err, _ = run_on_pty(["chain", str(log)])
    assert_inert(out)
    assert_inert(err)
    assert "\\x1b[2K\\x1b[1Gforged.receipt.json" in out


def test_decide_escapes_the_frame_it_decides(tmp: Path) -> None:
    calls = (FIXTURES / "decide/calls.bin").read_bytes().split(b"\n")[0]
    document = json.loads(calls)
    document["params"]["name"] = f"search{RLO}{OSC52}"
    frame = tmp / "call.bin"
    frame.write_bytes(json.dumps(document).encode() + b"\n")
    out, err, _ = run_on_pty(
        ["decide", "--config", "fixtures/decide/signed-config.json", str(frame)]
    )
    assert_inert(out)
    assert_inert(err)
    assert "search\\u202e\\x1b]52" in out


def test_explain_error_line_escapes_what_it_quotes() -> None:
    _, err, code = run_on_pty(["explain", f"binding.{RLO}x"])
    assert code == 2
    assert_inert(err)
    assert "binding.\\u202ex" in err


def test_the_github_action_annotations_and_summary_escape_evidence(tmp: Path) -> None:
    receipt = _receipt_with_kernel(tmp, FORGED + RLO + OSC52)
    summary, outputs = tmp / "summary.md", tmp / "outputs"
    env = {
        "INPUT_PATHS": str(receipt),
        "INPUT_TRUST": str(FIXTURES / "demo/trust.json"),
        "INPUT_SARIF": str(tmp / "out.sarif"),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKSPACE": str(tmp),
    }
    out, err, code = run_on_pty(["-m", "sealverify._internal.cli.github_action"], env=env)
    assert code == 1
    assert_inert(out)
    assert_inert(err)
    assert "\\x1b[2K" in out and "\\u202e" in out
    shown = summary.read_text(encoding="utf-8")
    assert_inert(shown)
    assert "::error" in out


def test_html_text_nodes_hold_no_bidi_or_control_character(tmp: Path) -> None:
    receipt = _receipt_with_kernel(tmp, FORGED + RLO + OSC52, name=f"x{RLO}.receipt.json")
    page = tmp / "report.html"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "sealverify", "verify", str(receipt), "--format", "html"),
            *("--trust", "fixtures/demo/trust.json", "--output", str(page)),
        ],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    html = page.read_text(encoding="utf-8")
    assert_inert(html.replace("\t", " "))
    assert "x\\u202e.receipt.json" in html and "\\x1b]52" in html


def test_the_pty_helper_sees_what_a_terminal_receives() -> None:
    # The check itself can fail: printed raw, the same sequence is caught on the pty.
    code = f"import sys; sys.stdout.write({FORGED + OSC52 + RLO!r})"
    out, _, _ = run_on_pty(["-c", code])
    assert out == FORGED + OSC52 + RLO
    with pytest.raises(AssertionError):
        assert_inert(out)


@pytest.mark.parametrize("command", ["chain", "diff"])
def test_html_pages_of_chain_and_diff_show_evidence_escaped(tmp: Path, command: str) -> None:
    if command == "chain":
        log = tmp / "host.stderr"
        session = FORGED + RLO + OSC52
        log.write_bytes(mint_log([audit_payload(0), audit_payload(1)], session=session).data)
        args = ["chain", str(log)]
    else:
        args = ["diff", "fixtures/frames/call.bin", str(_evil_frame(tmp))]
    page = tmp / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "sealverify", *args, "--format", "html", "--output", str(page)],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    assert done.returncode != 2, done.stderr  # chain: UNANCHORED (3); diff: same invocation
    html = page.read_text(encoding="utf-8")
    assert_inert(html.replace("\t", " "))
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in html

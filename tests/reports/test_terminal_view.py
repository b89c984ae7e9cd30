"""``verify``'s table on a terminal (a real pty): it fits, it is coloured, the worst comes last."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats.terminal import fit
from tests.helpers.terminal_injection import ROOT, run_on_pty

DEMO = ["verify", "fixtures/demo/receipts", "--trust", "fixtures/demo/trust.json"]
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_COLOUR = {"NO_COLOR": ""}  # set but empty: colour stays on (no-color.org)


def _width(line: str) -> int:
    from sealverify._internal.reports.formats.table import display_width

    return display_width(_SGR.sub("", line))


def _rows(out: str) -> list[str]:
    """The receipt rows: the lines between the header's rule and the first blank line."""
    lines = [_SGR.sub("", line) for line in out.split("\n")]
    start = next(i for i, line in enumerate(lines) if line.startswith("---")) + 1
    end = lines.index("", start)
    return lines[start:end]


@pytest.mark.parametrize("columns", [80, 120])
def test_no_line_is_wider_than_the_terminal(columns: int) -> None:
    out, _, code = run_on_pty(DEMO, columns=columns, env=_COLOUR, stderr_on_pty=True)
    assert code == 1
    for line in re.split(r"[\r\n]", out):
        assert _width(line) <= columns, line
    assert "sealverify verify: 13 receipt(s)" in out  # the summary, wrapped, on the pty too


@pytest.mark.parametrize("columns", [80, 120])
def test_fail_rows_then_run_findings_then_notes_come_last(columns: int) -> None:
    out, _, _ = run_on_pty(DEMO, columns=columns)
    outcomes = [row.split()[1] for row in _rows(out)]
    assert outcomes == ["UNPINNED"] * 9 + ["FAIL"] * 4, out
    lines = out.rstrip("\n").split("\n")
    findings = lines.index("run findings (1):")
    assert lines[findings - 1] == "" and lines[findings - 2] == _rows(out)[-1]
    assert "log.broken-line at fixtures/demo/receipts/receipts.jsonl:3" in lines[findings + 1]
    assert lines[-1].endswith("--allow-published-keys.")


def test_one_short_reason_and_how_many_more() -> None:
    out, _, _ = run_on_pty(DEMO, columns=120)
    edited = next(row for row in _rows(out) if "fail-edited-arguments" in row)
    assert "signature.object-b: " in edited and edited.endswith("(+5 more)")
    assert "binding.args-hash" not in edited  # the others are counted, not listed


def test_a_reason_on_many_rows_is_said_once_with_its_option() -> None:
    out, _, _ = run_on_pty(DEMO, columns=120)
    unpinned = [row for row in _rows(out) if " UNPINNED " in row]
    assert len(unpinned) == 9
    assert all("note 1: authority.published-key" in row for row in unpinned)
    assert out.count("anyone can sign with it") == 0  # the reason is not repeated per row
    note = out[out.index("note 1: 9 receipt(s) authority.published-key") :]
    assert "--allow-published-keys" in note and "--trust FILE" in note


def test_outcomes_are_coloured_on_a_terminal_unless_no_color() -> None:
    coloured, _, _ = run_on_pty(DEMO, env=_COLOUR)
    assert "\x1b[1;31mFAIL" in coloured and "\x1b[35mUNPINNED" in coloured
    plain, _, _ = run_on_pty(DEMO, env={"NO_COLOR": "1"})
    assert "\x1b" not in plain
    never, _, _ = run_on_pty([*DEMO, "--color", "never"], env=_COLOUR)
    assert "\x1b" not in never
    assert _SGR.sub("", coloured) == plain == never


def test_a_pipe_gets_the_fitted_table_and_colours_only_when_asked(tmp_path) -> None:
    def piped(*extra: str, columns: str = "") -> bytes:
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": ""}
        return subprocess.run(
            [sys.executable, "-m", "sealverify", *DEMO, *extra],
            cwd=ROOT,
            capture_output=True,
            env={**env, "COLUMNS": columns} if columns else env,
            check=False,
        ).stdout

    text = piped()
    written = tmp_path / "table.txt"
    piped("--output", str(written))
    assert written.read_bytes() == text
    assert b"\x1b" not in text
    assert max(map(len, text.decode().split("\n"))) <= 100  # no $COLUMNS: 100 wide
    assert text.count(b"anyone can sign with it") == 0  # the repeated reason is a note
    assert b"note 1: authority.published-key" in text
    wide = piped(columns="160").decode()
    assert max(map(len, wide.split("\n"))) <= 160 and "family  verdict  why" in wide
    always = piped("--color", "always")
    assert b"\x1b[1;31mFAIL" in always
    assert _SGR.sub("", always.decode()).encode() == text


def test_the_summary_line_counts_failed_run_findings() -> None:
    # receipts.jsonl holds UNPINNED receipts and one broken line: exit 1 with no FAIL receipt.
    done = CliRunner().invoke(
        cli,
        ["verify", "fixtures/demo/receipts/receipts.jsonl", "--trust", "fixtures/demo/trust.json"],
    )
    assert done.exit_code == 1
    summary = done.stderr.strip().splitlines()[-1]
    assert "4 UNPINNED, 1 failed run finding(s);" in summary and " FAIL" not in summary


def test_fit_cuts_by_display_width_and_marks_the_cut() -> None:
    assert fit("abcdef", 6) == "abcdef"
    assert fit("abcdef", 4) == "abc…"
    assert fit("abcdef", 4, keep_end=True) == "…def"
    assert fit("日本語です", 5) == "日本…"  # two columns each
    assert fit("anything", 0) == ""


def test_passing_history_checks_are_counted_under_the_failing_findings() -> None:
    from sealverify._internal.reports.formats.terminal import lines
    from sealverify._internal.results.model import Check

    row = ("a.json", "VERIFIED", "v3", "ALLOW", "", "", "")
    findings = [
        Check("history.operation", "pass", "operation_id x is new", "a.json"),
        Check("history.nonce", "pass", "nonce not spent", "a.json"),
        Check("history.operation", "pass", "operation_id y is new", "b.json"),
        Check("log.broken-line", "fail", "not JSON", "r.jsonl:3"),
    ]
    shown = list(lines(lambda: iter([row]), findings, 80, False))
    assert "run findings (1):" in shown and not any("operation_id x" in s for s in shown)
    last = len(shown) - shown[::-1].index("")  # the block after the last blank line
    assert " ".join(shown[last:]) == (
        "3 passing run check(s) not listed (history.nonce 1, history.operation 2); "
        "--format json lists each"
    )
    assert all(len(s) <= 80 for s in shown)


_OTHERS = {
    "chain": ["chain", "fixtures/chain/truncated.stderr", "--expect-count", "3"],
    "frame": ["frame", "fixtures/frames/refused-meta-null.bin"],
    "diff": ["diff", "fixtures/frames/call.bin", "fixtures/frames/call-other-trace.bin"],
    "inventory": ["inventory", "fixtures/demo/receipts"],
}


@pytest.mark.parametrize("name", sorted(_OTHERS))
@pytest.mark.parametrize("columns", [80, 120])
def test_every_command_fits_and_colours_a_terminal(name: str, columns: int) -> None:
    out, _, _ = run_on_pty(_OTHERS[name], columns=columns, env=_COLOUR)
    for line in out.split("\n"):
        assert _width(line) <= columns, line
    if name != "inventory":  # inventory names no status
        assert "\x1b[" in out
    plain, _, _ = run_on_pty(_OTHERS[name], columns=columns, env={"NO_COLOR": "1"})
    assert "\x1b" not in plain
    assert _SGR.sub("", out) == plain


def test_the_chain_fail_row_wraps_its_reason_only_at_80_columns() -> None:
    out, _, _ = run_on_pty(_OTHERS["chain"], columns=80, env={"NO_COLOR": "1"})
    lines = out.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("FAIL"))
    assert lines[row].split()[:2] == ["FAIL", "chain.truncated"]
    assert lines[row + 1].startswith(" " * 10) and "missing" in lines[row + 1]
    assert lines[row + 2].startswith("PASS")


def test_a_pipe_to_a_pager_ends_with_the_summary_line() -> None:
    # `sealverify verify ... | less`: stdout a pipe, stderr the terminal. The summary is said
    # on stderr before the table (never drawn over the pager's screen) and ends the table.
    import os

    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "sealverify", *DEMO],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=slave,
        env={**env, "PYTHONPATH": str(ROOT), "COLUMNS": "90"},
        check=False,
    )
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the pty's other end is closed: all read
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    out = done.stdout.decode()
    assert "sealverify verify: 13 receipt(s)" in err.decode()
    tail = out[out.rindex("sealverify verify: 13 receipt(s)") :]
    assert tail.rstrip().endswith("decisions re-derived") and "\n\n" not in tail  # the last lines
    assert all(len(line) <= 90 for line in out.splitlines())


def test_the_summary_line_is_one_short_line() -> None:
    # It was three lines at 120 columns (every count and the re-derivation rule spelled out).
    done = CliRunner().invoke(
        cli, ["verify", "fixtures/demo/receipts", "--trust", "fixtures/demo/trust.json"]
    )
    (summary,) = [line for line in done.stderr.splitlines() if line.startswith("sealverify")]
    assert summary == (
        "sealverify verify: 13 receipt(s): 0 VERIFIED, 9 UNPINNED, 4 FAIL (1 NOT MEDIATED), "
        "1 failed run finding(s); 9/13 decisions re-derived"
    )

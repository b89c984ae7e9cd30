"""An unreadable or refused input is one line and exit 2, never click's usage banner.

A missing path, a dangling link, a file past ``--max-input-bytes`` (read in this process or in
a worker) is not a misused flag: the run stops with the one sentence that names it. The error
is a ``SourceError`` or an ``InputError`` (library code catches it by kind), and a worker
hands it back as a value, which the parent raises.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify import InputError, SourceError
from sealverify._internal.cli import main as cli_main
from sealverify._internal.run import engine
from tests.conftest import ROOT, run_main

RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"


def _tree(tmp_path: Path) -> dict[str, list[str]]:
    dangling = tmp_path / "dangling"
    dangling.mkdir()
    shutil.copyfile(RECEIPT, dangling / "a.json")
    (dangling / "b.json").symlink_to(tmp_path / "nowhere.json")
    large = tmp_path / "large"
    large.mkdir()
    for n in range(80):  # more than one task, so --jobs 2 reads some in a worker
        shutil.copyfile(RECEIPT, large / f"r{n:02d}.json")
    (large / "r99.json").write_bytes(RECEIPT.read_bytes() + b" " * 20_000)
    return {
        "missing path": [str(tmp_path / "absent.json")],
        "dangling link": [str(dangling)],
        "too large, here": [str(large), "--jobs", "1", "--max-input-bytes", "16K"],
        "too large, in a worker": [str(large), "--jobs", "2", "--max-input-bytes", "16K"],
        "no match": [str(tmp_path / "*.nothing.json")],
    }


CASES = ["missing path", "dangling link", "too large, here", "too large, in a worker", "no match"]


@pytest.mark.parametrize("case", CASES)
def test_a_refused_input_is_one_line_and_exit_2(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["verify", *_tree(tmp_path)[case]]
    code, err = run_main(args, monkeypatch, capsys)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("sealverify: "), err
    assert "Usage:" not in err and "--help" not in err
    result = CliRunner().invoke(cli_main.cli, args)
    assert result.exit_code == 2 and "Usage:" not in result.output, result.output


def test_a_worker_hands_back_the_error_as_a_value(tmp_path: Path) -> None:
    settings = engine.Settings(engine.VerifyOptions(), False, "json", max_input=16)
    unreadable = engine._verify_file(tmp_path / "gone.json", False, settings)[0]
    assert isinstance(unreadable, SourceError) and isinstance(unreadable, OSError)
    refused = engine._verify_file(RECEIPT, False, settings)[0]
    assert isinstance(refused, InputError) and "--max-input-bytes" in str(refused)


@pytest.mark.parametrize("case", CASES)
def test_the_library_raises_the_error_the_command_line_prints(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # verify_sources raises a SealverifyError of its kind, never a click exception; the one
    # line the command prints is that error, word for word.
    import click

    import sealverify

    args = _tree(tmp_path)[case]
    _, err = run_main(["verify", *args], monkeypatch, capsys)
    sources = [a for a in args if not a.startswith("--") and not a.isdigit() and a != "16K"]
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 1
    cap = 16 << 10 if "--max-input-bytes" in args else 256 << 20
    with pytest.raises(sealverify.SealverifyError) as raised:
        list(
            sealverify.verify_sources(
                sources, engine.VerifyOptions(), jobs=jobs, max_input_bytes=cap
            )
        )
    assert not isinstance(raised.value, click.ClickException)
    assert isinstance(raised.value, SourceError | InputError)
    assert err == f"sealverify: {raised.value}\n"


@pytest.mark.parametrize("option", ["--trust", "--approvals", "--raw-line"])
def test_an_unreadable_file_an_option_names_is_one_line_too(
    option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent.json"
    code, err = run_main(["verify", str(RECEIPT), option, str(missing)], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [f"sealverify: {option} {missing}: No such file or directory"]


def test_a_malformed_trust_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trust = tmp_path / "trust.json"
    trust.write_bytes(b'{"sealverify_trust": 1, "keys": {}}')
    code, err = run_main(["verify", str(RECEIPT), "--trust", str(trust)], monkeypatch, capsys)
    assert code == 2
    assert err.splitlines() == [f"sealverify: --trust {trust}: trust file/keys: expected an array"]


def test_a_state_store_that_cannot_be_used_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    state.write_bytes(b"not a database")
    code, err = run_main(["verify", str(RECEIPT), "--state", str(state)], monkeypatch, capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith(f"sealverify: --state: {state}: "), err

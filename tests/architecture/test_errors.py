"""One error root: what cannot be run is a SealverifyError, and the CLI says so in one line.

Bad evidence never raises (it is a failed check); an exception means the run could not be
done. Every error class of the library sits under ``SealverifyError`` and keeps the base it had
(``ValueError``), the CLI maps them to exit 2 in one place (``cli/main.py``), and an internal
error shows its traceback only under ``--debug`` or ``SEALVERIFY_DEBUG=1``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from sealverify_testkit import mint

import sealverify
from sealverify import (
    InputError,
    InputFileError,
    InternalError,
    OptionError,
    SealverifyError,
    SourceError,
    StoreError,
)
from sealverify._internal.cli import main as cli_main
from sealverify._internal.forensics import compare
from sealverify._internal.partition import records as partition
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.wire.framing import frame_of
from sealverify._internal.wording import rules as wording
from tests.helpers import adversarial_corpus as corpus

PACKAGE = Path(sealverify.__file__).parent
# Raised and caught inside one module as control flow; never seen outside it (a leak would be
# a defect, shown as an internal error rather than as one line that hides it).
PRIVATE_SIGNALS = {"_Duplicate", "_NotProven", "_Reject", "_NotRepresentable"}


def _exception_classes() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id.endswith(("Error", "Exception", "Limit"))
                for b in node.bases
            ):
                yield str(path.relative_to(PACKAGE.parent)), node.name


def test_every_public_error_class_is_under_the_root() -> None:
    found = [(p, n) for p, n in _exception_classes() if n not in PRIVATE_SIGNALS]
    assert len(found) >= 13  # the walk above sees the classes it is meant to
    loose = []
    for path, name in found:
        module = ".".join(Path(path).with_suffix("").parts)
        cls = getattr(__import__(module, fromlist=[name]), name)
        if not issubclass(cls, SealverifyError):
            loose.append(f"{path}: {name}")
    assert not loose


def test_the_old_bases_still_catch() -> None:
    from sealverify._internal.forensics import DiffInputError
    from sealverify._internal.history.databases import HistoryError
    from sealverify._internal.wire.strictjson import JsonError, parse_bytes

    with pytest.raises(ValueError):
        parse_bytes(b"{")
    with pytest.raises(InputError):
        parse_bytes(b"{")
    assert issubclass(JsonError, ValueError) and issubclass(DiffInputError, ValueError)
    assert issubclass(HistoryError, StoreError) and issubclass(SourceError, OSError)


def test_a_bad_option_is_an_input_error_and_still_a_value_error() -> None:
    with pytest.raises(InputError, match="only these checks can be waived"):
        VerifyOptions(waive=frozenset({"binding.args-hash"}))
    with pytest.raises(ValueError):
        VerifyOptions(waive=frozenset({"binding.args-hash"}))


def _frame() -> bytes:
    return corpus.frame()


CANNOT_RUN: list[tuple[str, type[InputError], Callable[[], object]]] = [
    ("trust file", InputFileError, lambda: sealverify.load_trust_file(b"[]")),
    ("pin", OptionError, lambda: sealverify.TrustStore.from_pins(config=["zz" * 32])),
    ("rule file", InputFileError, lambda: wording.parse_rules("nonsense = [")),
    ("chain state", InputFileError, lambda: sealverify.parse_state_file(b"{}")),
    ("signing key", InputFileError, lambda: partition.seed_from_key_text("xyz\n")),
    (
        "partition policy",
        OptionError,
        lambda: partition.partition_frame(frame_of(_frame()), "C-guess"),
    ),
    ("unknown-key policy", OptionError, lambda: compare.meta_key_rows([], "exclude")),
    (
        "what-if key",
        OptionError,
        lambda: sealverify.what_if(
            mint.KERNEL_VALID_CONFIG,
            [_frame()],
            sealverify.KERNEL_PROFILES[sealverify.DEFAULT_KERNEL_SHA256],
            config_pubkey="zz",
        ),
    ),
    (
        "what-if frame",
        InputFileError,
        lambda: sealverify.what_if(
            mint.KERNEL_VALID_CONFIG,
            [b"\xff\n"],
            sealverify.KERNEL_PROFILES[sealverify.DEFAULT_KERNEL_SHA256],
        ),
    ),
]


@pytest.mark.parametrize("what, kind, call", CANNOT_RUN, ids=[c[0] for c in CANNOT_RUN])
def test_what_cannot_run_raises_its_kind_and_stays_a_value_error(
    what: str, kind: type[InputError], call: Callable[[], object]
) -> None:
    with pytest.raises(kind) as raised:
        call()
    assert isinstance(raised.value, ValueError)  # callers written against ValueError still work


def test_a_broken_spine_import_is_an_error_not_a_fail_on_the_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    receipt = mint.render_pretty(corpus.spine_record())
    assert verify_receipt(receipt, "s", VerifyOptions()).outcome == "UNPINNED"
    monkeypatch.setitem(
        sys.modules, "sealverify._internal.receipts.spine", None
    )  # the import fails
    with pytest.raises(ImportError):
        verify_receipt(receipt, "s", VerifyOptions())


# --- the CLI: one place maps exceptions to exit 2 ----------------------------------------------


def _run_main(
    raising: Callable[[], None],
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    command = click.Command("boom", callback=raising)
    monkeypatch.setitem(cli_main.cli.commands, "boom", command)
    monkeypatch.setattr(sys, "argv", ["sealverify", *args, "boom"])
    monkeypatch.setattr(cli_main, "_debug_flag", False)
    with pytest.raises(SystemExit) as exited:
        cli_main.main()
    code = exited.value.code
    assert isinstance(code, int)
    return code, capsys.readouterr().err


def _raise(exc: BaseException) -> Callable[[], None]:
    def callback() -> None:
        raise exc

    return callback


@pytest.mark.parametrize(
    "exc",
    [
        InputError("--trust t.json: trust file is not strict JSON"),
        StoreError("state.db: not an SQLite database"),
        SourceError(5, "EndpointConnectionError: could not connect", "s3://b/x.json"),
    ],
)
def test_a_sealverify_error_is_one_line_and_exit_2(
    exc: SealverifyError, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SEALVERIFY_DEBUG", raising=False)
    for args in ([], ["--debug"]):  # what cannot be run is not a defect: no traceback either way
        code, err = _run_main(_raise(exc), args, monkeypatch, capsys)
        assert code == 2
        assert err.splitlines() == [f"sealverify: {exc}"]
        assert "internal error" not in err
    assert str(exc).startswith(("--trust", "state.db", "cannot read s3://b/x.json: Endpoint"))


@pytest.mark.parametrize("exc", [RuntimeError("a defect"), InternalError("a defect")])
def test_an_internal_error_shows_its_traceback_only_when_asked(
    exc: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SEALVERIFY_DEBUG", raising=False)
    line = f"sealverify: internal error: {type(exc).__name__}: a defect"
    code, err = _run_main(_raise(exc), [], monkeypatch, capsys)
    assert (code, err.splitlines()) == (2, [line])
    code, err = _run_main(_raise(exc), ["--debug"], monkeypatch, capsys)
    assert code == 2 and err.startswith("Traceback (most recent call last):")
    assert "in callback" in err and err.splitlines()[-1] == line
    monkeypatch.setenv("SEALVERIFY_DEBUG", "1")
    code, err = _run_main(_raise(exc), [], monkeypatch, capsys)
    assert code == 2 and "Traceback" in err and err.splitlines()[-1] == line
    monkeypatch.setenv("SEALVERIFY_DEBUG", "0")
    code, err = _run_main(_raise(exc), [], monkeypatch, capsys)
    assert err.splitlines() == [line]


def test_debug_is_in_the_group_help() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli_main.cli, ["--help"])
    assert "--debug" in result.output and "SEALVERIFY_DEBUG=1" in result.output

"""The pins and options of a ``verify`` run, as the html report's summary lists them."""

from __future__ import annotations

from pathlib import Path

from sealverify import VerifyOptions
from sealverify._internal.reports.filenames import report_name

__all__ = ["report_command", "run_settings"]

# Options that change how a run is done or where its report goes, never what it says: left
# out of the command line a report names, so the page is the same with and without them
# (``--jobs`` is byte for byte the one-process page), and a storage secret never reaches it.
_UNSHOWN = frozenset(
    {"--jobs", "-j", "--cluster", "--partition-size", "--storage-option", "--output"}
)


def _pins(options: VerifyOptions, role: str) -> str:
    pins = options.trust.pinned(role)
    if not pins:
        return "none (UNPINNED at best for this role)"
    return "; ".join(f"{pin.public_key} {pin.describe()}" for pin in pins)


def run_settings(
    options: VerifyOptions,
    trust_file: Path | None,
    approvals: Path | None,
    state: str | None,
    raw_line_files: tuple[Path, ...],
) -> list[tuple[str, str]]:
    """(name, value) rows: every pin by role, accepted kernels and each option that was set.

    File options are named by their file name only (no absolute paths in a report).
    """
    kernels = (*options.kernel_pins, *options.trust.kernels)
    return [
        ("trust file", trust_file.name if trust_file else "none"),
        ("config keys pinned", _pins(options, "config")),
        ("receipt keys pinned", _pins(options, "receipt")),
        ("approval keys pinned", _pins(options, "approval")),
        ("kernel builds accepted", ", ".join(dict.fromkeys(kernels))),
        ("decision re-derivation", "on" if options.rederive else "off (--no-rederive)"),
        (
            "published keys",
            "allowed (--allow-published-keys): not for real evidence"
            if options.allow_published_keys
            else "refused (UNPINNED at best)",
        ),
        ("waived checks", ", ".join(sorted(options.waive)) or "none"),
        ("approval tokens", approvals.name if approvals else "none"),
        ("raw lines", ", ".join(p.name for p in raw_line_files) or "none"),
        ("history state", _state_name(state)),
    ]


def _state_name(state: str | None) -> str:
    """The ``--state`` store as a report may name it: a file by its name, a URL without secrets."""
    if state is None:
        return "none"
    if "://" in state:
        from sealverify._internal.history.databases import (
            redacted,  # loads sqlite3: only for --state
        )

        return redacted(state)
    return report_name(Path(state).name)


def report_command(argv: tuple[str, ...] | None) -> str:
    """The command line a report names: ``sealverify`` and the words given, shell-quoted.

    The options in ``_UNSHOWN`` (and their values) are left out; ``""`` when unknown.
    """
    if argv is None:
        return ""
    import shlex

    shown: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        name = word.partition("=")[0]
        if name in _UNSHOWN:
            skip = "=" not in word
            continue
        if word.startswith("-j") and word[2:].isdigit():  # -j2
            continue
        shown.append(word)
    return shlex.join(["sealverify", *shown])

"""The GitHub Action's entry (``action.yml``): verify, then summary, annotations, SARIF, outputs.

Run as ``python -m sealverify._internal.cli.github_action`` by the composite action, which passes
its inputs as ``INPUT_*`` variables. One ``sealverify verify --format jsonl`` run does the work;
its lines are read one at a time, so memory stays flat however many receipts match. From
them come the Markdown run summary (``$GITHUB_STEP_SUMMARY``), an ``::error`` or
``::warning`` annotation per receipt that is not VERIFIED (file, and line for a JSONL log),
the SARIF file for code scanning (byte for byte ``verify --format sarif``), the step's
outputs (``$GITHUB_OUTPUT``) and the exit code: the README's table, gated by ``fail-on``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sealverify import InputError, SealverifyError
from sealverify._internal import catalogue
from sealverify._internal.cli import markdown
from sealverify._internal.reports.formats import jsonl, sarif, table
from sealverify._internal.reports.visible import visible
from sealverify._internal.results.model import Check, Report, Status, Subject
from sealverify._internal.results.outcomes import EXIT_CODES, RECEIPT_OUTCOMES, Outcome
from sealverify._internal.run.walk import glob_matches
from sealverify._internal.wire.spelling import HEX64  # without click: the Action runs the CLI apart
from sealverify.formats import STREAMS, render

_FAIL, _NOT_EVALUATED = Status.FAIL, Status.NOT_EVALUATED

__all__ = ["GATES", "Inputs", "main", "run"]

# fail-on: the verify exit codes that fail the step (README: 1 FAIL or a finding, 4 REDUCED
# and no FAIL, 3 UNPINNED and nothing worse). 2, "could not run", fails the step always.
GATES: dict[str, frozenset[int]] = {
    "unpinned": frozenset({1, 3, 4}),
    "reduced": frozenset({1, 4}),
    "fail": frozenset({1}),
    "none": frozenset(),
}
_OUTCOMES = RECEIPT_OUTCOMES
_GLOB = re.compile(r"[*?\[]")
# The attest-key input (a secret) as action.yml passes it; verify reads it as --attest-key env:.
ATTEST_KEY_ENV = "INPUT_ATTEST_KEY"
_MAX_ANNOTATIONS = 50  # GitHub shows few per step; the summary and SARIF hold every receipt
_MAX_ROWS = 100  # receipts listed in the run summary
_REPORT_FORMATS = ("jsonl", "json", "sarif", "junit", "html")
_HTML_REPORT = "sealverify-report.html"  # the report of format: html when none is named
_MAX_FINDINGS = 50  # run-level findings listed in the run summary
# Worst first: what is shown of a run cut to a few rows or annotations is its FAILs (a failed
# run finding counts as one: it alone makes the exit 1), then REDUCED, then UNPINNED.
_TRIAGE = (Outcome.FAIL, Outcome.REDUCED, Outcome.UNPINNED)


class CouldNotRun(InputError):
    """A broken invocation: reported as an error annotation and exit 2, never a finding."""


@dataclass(frozen=True)
class Inputs:
    """The action's inputs, as the composite action passes them (``INPUT_*``)."""

    paths: tuple[str, ...]
    trust: str = ""
    config_pubkeys: tuple[str, ...] = ()
    receipt_pubkeys: tuple[str, ...] = ()
    kernel_sha256: tuple[str, ...] = ()
    allow_published_keys: bool = False
    fail_on: str = "unpinned"
    sarif: str = "sealverify.sarif"
    report: str = ""
    report_format: str = "jsonl"
    working_directory: str = "."
    # A signed verification summary (docs/attestation.md): the key arrives as a secret in the
    # environment (ATTEST_KEY_ENV), never on a command line; the file goes to ``attestation``.
    attest_key: bool = False
    attestation: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Inputs:
        def get(name: str, default: str = "") -> str:
            return env.get("INPUT_" + name.upper().replace("-", "_"), "").strip() or default

        def words(name: str) -> tuple[str, ...]:
            return tuple(get(name).split())

        def pins(name: str) -> tuple[str, ...]:
            # Either case, kept as lowercase: the one pin rule (primitives/trust.py pin_hex).
            return tuple(word.lower() for word in words(name))

        flag = get("allow-published-keys", "false").lower()
        if flag not in ("true", "false"):
            raise CouldNotRun(f"allow-published-keys: expected true or false, not {flag!r}")
        inputs = cls(
            paths=tuple(line.strip() for line in get("paths").splitlines() if line.strip()),
            trust=get("trust"),
            config_pubkeys=pins("config-pubkey"),
            receipt_pubkeys=pins("receipt-pubkey"),
            kernel_sha256=pins("kernel-sha256"),
            allow_published_keys=flag == "true",
            fail_on=get("fail-on", "unpinned"),
            sarif=env.get("INPUT_SARIF", "sealverify.sarif").strip(),  # "": no SARIF
            report=get("report") or (_HTML_REPORT if _page(get("format")) else ""),
            report_format=get("format", "jsonl"),
            working_directory=get("working-directory", "."),
            attest_key=bool(get("attest-key")),
            attestation=get("attestation", "sealverify.intoto.jsonl"),
        )
        inputs.check()
        return inputs

    def check(self) -> None:
        """Refuse what verify would refuse later, with the input's name in the message."""
        if not self.paths:
            raise CouldNotRun("paths: give at least one file, directory or glob, one per line")
        if self.fail_on not in GATES:
            raise CouldNotRun(f"fail-on: expected one of {', '.join(GATES)}, not {self.fail_on!r}")
        if self.report_format not in _REPORT_FORMATS:
            raise CouldNotRun(
                f"format: expected {', '.join(_REPORT_FORMATS)}, not {self.report_format!r}"
            )
        pins = (*self.config_pubkeys, *self.receipt_pubkeys, *self.kernel_sha256)
        for pin in pins:  # lowercased by from_env
            if not HEX64.fullmatch(pin):
                raise CouldNotRun(f"pin {pin!r}: expected 64 hex digits (either case)")

    def resolve(self, name: str) -> str:
        """A path input relative to ``working-directory``."""
        return (
            name
            if os.path.isabs(name)
            else os.path.normpath(os.path.join(self.working_directory, name))
        )

    def sources(self) -> list[str]:
        """The paths and globs, resolved; an empty glob or a missing path is refused."""
        resolved = []
        for pattern in self.paths:
            path = self.resolve(pattern)
            if _GLOB.search(pattern):
                try:
                    found = next(glob_matches(path), None)
                except SealverifyError as exc:
                    raise CouldNotRun(f"paths: {pattern!r}: {exc}") from None
                if found is None:
                    raise CouldNotRun(f"paths: {pattern!r} matches no file")
            elif not os.path.exists(path):
                raise CouldNotRun(f"paths: {pattern!r}: no such file or directory")
            resolved.append(path)
        return resolved

    def verify_args(self, output: str, fmt: str = "jsonl") -> list[str]:
        args = ["verify", *self.sources(), "--format", fmt, "--output", output]
        if self.trust:
            args += ["--trust", self.resolve(self.trust)]
        args += [a for pin in self.config_pubkeys for a in ("--config-pubkey", pin)]
        args += [a for pin in self.receipt_pubkeys for a in ("--receipt-pubkey", pin)]
        args += [a for pin in self.kernel_sha256 for a in ("--kernel-sha256", pin)]
        if self.allow_published_keys:
            args.append("--allow-published-keys")
        if self.attest_key:
            attestation = self.resolve(self.attestation)
            args += ["--attest-key", f"env:{ATTEST_KEY_ENV}", "--attestation", attestation]
        return args


# --- workflow commands, outputs and the summary file ---------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, **properties: str | int) -> str:
    """A workflow command line (``::error file=a,line=3,title=t::message``), escaped.

    ``message`` and ``properties`` are already visible (:func:`_note` makes evidence so; the
    could-not-run text is verify's own stderr line, escaped there).
    """
    props = ",".join(f"{k}={_escape_property(str(v))}" for k, v in properties.items())
    return f"::{level}{' ' + props if props else ''}::{_escape_data(message)}"


def _neutral(line: str) -> str:
    """A log line that cannot be read as a workflow command (a file may be named ``::x``)."""
    return " " + line if line.lstrip().startswith("::") else line


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(text)


def _outputs(values: Mapping[str, str | int]) -> str:
    lines = []
    for name, value in values.items():
        text = str(value)
        if "\n" in text or "\r" in text:  # never for these values; kept safe all the same
            delimiter = "sealverify_" + os.urandom(8).hex()
            lines.append(f"{name}<<{delimiter}\n{text}\n{delimiter}")
        else:
            lines.append(f"{name}={text}")
    return "\n".join(lines) + "\n"


# --- reading the run -------------------------------------------------------------------------


@dataclass
class _Worst:
    """The first ``cap`` items of each outcome in arrival order, the rest only counted.

    Memory stays bounded however many receipts a run has, and :meth:`shown` still gives the
    worst first: a run of 4,990 UNPINNED receipts and 2 FAIL named last shows both FAILs.
    """

    cap: int
    kept: dict[str, list[str]] = field(default_factory=lambda: {o: [] for o in _TRIAGE})
    seen: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_TRIAGE, 0))

    def add(self, outcome: str, item: str) -> None:
        outcome = outcome if outcome in self.kept else Outcome.FAIL  # none other is known
        self.seen[outcome] += 1
        if len(self.kept[outcome]) < self.cap:
            self.kept[outcome].append(item)

    def shown(self) -> list[str]:
        """At most ``cap`` items, FAIL first, then REDUCED, then UNPINNED."""
        return [item for o in _TRIAGE for item in self.kept[o]][: self.cap]

    def cut(self) -> dict[str, int]:
        """How many items of each outcome :meth:`shown` leaves out (only those it cuts)."""
        left, out = self.cap, dict[str, int]()
        for outcome in _TRIAGE:
            shown = min(left, len(self.kept[outcome]))
            left -= shown
            if self.seen[outcome] > shown:
                out[outcome] = self.seen[outcome] - shown
        return out


def _cut_text(cut: Mapping[str, int]) -> str:
    """``4,890 UNPINNED`` or ``3 FAIL, 4,890 UNPINNED``: what was left out, by outcome."""
    return ", ".join(f"{n:,} {outcome}" for outcome, n in cut.items())


@dataclass
class _Run:
    """What the run's lines leave behind: counts, rows, annotations, the SARIF pieces."""

    rows: _Worst = field(default_factory=lambda: _Worst(_MAX_ROWS))
    annotations: _Worst = field(default_factory=lambda: _Worst(_MAX_ANNOTATIONS))
    rules: set[str] = field(default_factory=set)
    sarif_results: int = 0
    findings: list[Check] = field(default_factory=list)
    summary: dict[str, Any] | None = None


def _where(name: str, workspace: str) -> tuple[str, int | None]:
    """A subject or finding location as a workspace-relative file and a line (JSONL logs)."""
    path, _, line = name.rpartition(":")
    if not (path and line.isdigit()):
        path, line = name, ""
    if workspace and os.path.isabs(path):
        relative = os.path.relpath(path, workspace)
        path = path if relative.startswith("..") else relative
    return path.replace(os.sep, "/"), int(line) if line else None


def _decisive(subject: Subject) -> list[Check]:
    """The three most decisive failing checks (none failing: not evaluated), one per id.

    The order is the table's "why" column's (:func:`table.decisive_order`), so the summary,
    the annotation and ``--format table`` name the same checks first.
    """
    failing = [c for c in subject.checks if c.status == _FAIL]
    chosen = failing or [c for c in subject.checks if c.status == _NOT_EVALUATED]
    first: dict[str, Check] = {}
    for check in table.decisive_order(chosen):
        first.setdefault(check.id, check)
    return list(first.values())[:3]


def _note(
    run: _Run, outcome: str, level: str, message: str, where: str, title: str, workspace: str
) -> None:
    path, line = _where(where, workspace)
    props: dict[str, str | int] = {"file": visible(path)}
    if line is not None:
        props["line"] = line
    props["title"] = visible(title)
    run.annotations.add(outcome, annotation(level, visible(message), **props))


def _row(subject: Subject, label: str, checks: Sequence[Check]) -> str:
    """A summary table row: every piece of evidence written as the text it is."""
    ids = ", ".join(markdown.link(c.id, catalogue.checks_uri(c.id), cell=True) for c in checks)
    return f"| {markdown.code(subject.name, cell=True)} | {markdown.text(label)} | {ids} |"


def _read(lines: IO[str], gate: frozenset[int], spool: IO[str], workspace: str, run: _Run) -> None:
    for text in lines:
        value = json.loads(text)
        kind = value.pop("type")
        if kind == "summary":
            run.summary = value
        elif kind == "finding":
            check = jsonl.parse_check(value)
            run.findings.append(check)
            if check.status == _FAIL:
                message = f"{check.id}: {check.reason}"
                level = "error" if 1 in gate else "warning"
                where = check.location
                _note(run, Outcome.FAIL, level, message, where, "sealverify finding", workspace)
        elif kind == "subject":
            _subject(run, jsonl.parse_subject(value), gate, spool, workspace)


def _subject(
    run: _Run, subject: Subject, gate: frozenset[int], spool: IO[str], workspace: str
) -> None:
    results = sarif.subject_text(subject)
    if results:
        spool.write(sarif.RESULT_SEPARATOR if run.sarif_results else "")
        spool.write(results)
        run.sarif_results += 1
        run.rules.update(c.id for c in sarif.rule_subject(subject).checks)
    if subject.outcome == Outcome.VERIFIED:
        return
    label = f"{subject.outcome} ({subject.label})" if subject.label else subject.outcome
    checks = _decisive(subject)
    reasons = "; ".join(f"{c.id}: {c.reason}" for c in checks) or "no failing check"
    level = "error" if EXIT_CODES.get(subject.outcome) in gate else "warning"
    title = f"sealverify: {label}"
    _note(run, subject.outcome, level, f"{label}: {reasons}", subject.name, title, workspace)
    run.rows.add(subject.outcome, _row(subject, label, checks))


def _sarif_text(run: _Run, spool: IO[str]) -> Iterator[str]:
    """``verify --format sarif`` of the run, from its spooled results: byte for byte."""
    assert run.summary is not None
    report = Report(
        str(run.summary["command"]),
        (),
        dict(run.summary["summary"]),
        int(run.summary["exit_code"]),
        tuple(run.findings),
    )
    if not run.sarif_results:
        yield sarif.render(report)
        return
    head, tail = sarif.render_around_results(report, run.rules)
    yield head
    spool.seek(0)
    yield from iter(lambda: spool.read(1 << 20), "")
    yield tail


# --- the summary -----------------------------------------------------------------------------


def _summary_markdown(run: _Run, inputs: Inputs, code: int, step_code: int) -> str:
    assert run.summary is not None
    counts = run.summary["summary"]
    verdict = "passed" if step_code == 0 else f"failed (exit {step_code})"
    lines = [
        "## sealverify verify",
        "",
        f"**{counts.get('receipts', 0)} receipt(s)**: "
        + ", ".join(f"{counts.get(o, 0)} {o}" for o in _OUTCOMES)
        + f" ({counts.get('not_mediated', 0)} NOT MEDIATED); {len(run.findings)} finding(s). "
        + f"Exit code {code}; with `fail-on: {inputs.fail_on}` the step {verdict}.",
        "",
        "| outcome | receipts |",
        "|---|---|",
        *(f"| {o} | {counts.get(o, 0)} |" for o in (*_TRIAGE, Outcome.VERIFIED)),
        "",
    ]
    rederived = counts.get("decision_rederivation")
    if rederived:
        lines += [
            "Decisions re-derived by sealverify's model of the kernel: "
            f"{rederived.get('pass', 0)} identical, {rederived.get('fail', 0)} different, "
            f"{rederived.get('not-evaluated', 0)} not evaluated.",
            "",
        ]
    if counts.get("allow_published_keys"):
        lines += [
            "Published keys were allowed (`allow-published-keys`): not for real evidence.",
            "",
        ]
    lines += _rows_markdown(run)
    lines += _findings_markdown(run)
    lines.append(
        "Each id links to its entry in the docs when the action knows its own repository; "
        "`sealverify explain ID` prints the same help anywhere (`sealverify explain --list`)."
    )
    return "\n".join(lines) + "\n"


def _rows_markdown(run: _Run) -> list[str]:
    rows = run.rows.shown()
    if not rows:
        return []
    lines = [
        "### Receipts not VERIFIED, worst first",
        "",
        "| receipt | outcome | decisive checks |",
    ]
    lines += ["|---|---|---|", *rows]
    cut = run.rows.cut()
    if cut:
        lines.append(
            f"| … | {sum(cut.values()):,} more not listed ({_cut_text(cut)}): at most "
            f"{_MAX_ROWS} rows, worst first | every receipt is in the SARIF file |"
        )
    return [*lines, ""]


def _findings_markdown(run: _Run) -> list[str]:
    if not run.findings:
        return []
    listed = sorted(run.findings, key=lambda c: c.status != _FAIL)[:_MAX_FINDINGS]
    lines = ["### Run findings, failures first", ""]
    lines += [
        f"- {markdown.code(c.location)}: {markdown.link(c.id, catalogue.checks_uri(c.id))} "
        f"{markdown.text(c.reason)}"
        for c in listed
    ]
    if len(run.findings) > len(listed):
        lines.append(
            f"- … {len(run.findings) - len(listed):,} more finding(s) not listed (at most "
            f"{_MAX_FINDINGS}): every one is in the SARIF file"
        )
    return [*lines, ""]


def _could_not_run_markdown(message: str) -> str:
    return f"## sealverify verify\n\n**Could not run** (exit 2): {markdown.text(message)}\n"


# --- the run ---------------------------------------------------------------------------------


def _source_url(env: Mapping[str, str]) -> str | None:
    """Where the docs this action runs with are published: its own repository at its ref."""
    if env.get(catalogue.SOURCE_URL_ENV):
        return None  # the caller's own choice stands
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    repository, ref = env.get("SEALVERIFY_ACTION_REPOSITORY"), env.get("SEALVERIFY_ACTION_REF")
    if not (repository and ref):  # a local action (uses: ./) is the workflow's own repository
        action_path, workspace = env.get("GITHUB_ACTION_PATH", ""), env.get("GITHUB_WORKSPACE")
        if not (workspace and action_path and Path(action_path).is_relative_to(workspace)):
            return None
        repository, ref = env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA")
        if not (repository and ref):
            return None
    return f"{server}/{repository}/blob/{ref}/"


@contextmanager
def _links(source: str | None) -> Iterator[None]:
    """``SEALVERIFY_SOURCE_URL`` set for the SARIF rules' links while the run is written."""
    if source is None:
        yield
        return
    before = os.environ.get(catalogue.SOURCE_URL_ENV)
    os.environ[catalogue.SOURCE_URL_ENV] = source
    try:
        yield
    finally:
        if before is None:
            del os.environ[catalogue.SOURCE_URL_ENV]
        else:
            os.environ[catalogue.SOURCE_URL_ENV] = before


def _verify(inputs: Inputs, tmp: str, out: IO[str], env: Mapping[str, str]) -> str:
    """Run ``verify --format jsonl`` into ``tmp``; its stderr to the log, without ``tmp``.

    The JSONL file is the action's own scratch space: its path means nothing to a reader, so
    no line of the log or the summary names it.
    """
    lines_path = os.path.join(tmp, "report.jsonl")
    command = [sys.executable, "-m", "sealverify", *inputs.verify_args(lines_path)]
    # The signing key reaches verify only through its environment (--attest-key env:NAME).
    child = {**os.environ, ATTEST_KEY_ENV: env[ATTEST_KEY_ENV]} if inputs.attest_key else None
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=child)
    said = [line for line in done.stderr.splitlines() if tmp not in line]
    for line in said:
        out.write(_neutral(line) + "\n")
    if done.returncode == 2 or not os.path.exists(lines_path):
        problem = said[-1:] or ["verify could not run"]
        raise CouldNotRun(problem[0])
    return lines_path


def run(inputs: Inputs, env: Mapping[str, str], out: IO[str]) -> int:
    """Verify, write the summary, SARIF, report and outputs; return the step's exit code."""
    workspace = env.get("GITHUB_WORKSPACE", "")
    gate = GATES[inputs.fail_on]
    found = _Run()
    with _links(_source_url(env)), tempfile.TemporaryDirectory(prefix="sealverify-action-") as tmp:
        lines_path = _verify(inputs, tmp, out, env)
        with (
            open(lines_path, encoding="utf-8") as lines,
            tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n") as spool,
        ):
            _read(lines, gate, spool, workspace, found)
            if found.summary is None:
                raise CouldNotRun("verify stopped before its summary line")
            code = int(found.summary["exit_code"])
            if inputs.sarif:
                _write_pieces(inputs.resolve(inputs.sarif), _sarif_text(found, spool))
        if inputs.report:
            _write_report(inputs, lines_path)
        summary = _summary_markdown(found, inputs, code, code if code in gate else 0)
    step_code = code if code in gate else 0
    for line in found.annotations.shown():
        out.write(line + "\n")
    cut = found.annotations.cut()
    if cut:
        more = (
            f"{sum(cut.values()):,} more not annotated ({_cut_text(cut)}): at most "
            f"{_MAX_ANNOTATIONS} annotations, worst first; the run summary lists more, the "
            "SARIF file every one"
        )
        out.write(annotation("notice", more) + "\n")
    _append(env.get("GITHUB_STEP_SUMMARY"), summary)
    counts = found.summary["summary"]
    rederived = counts.get("decision_rederivation", {})
    _append(
        env.get("GITHUB_OUTPUT"),
        _outputs(
            {
                "exit-code": code,
                "receipts": counts.get("receipts", 0),
                **{o.lower(): counts.get(o, 0) for o in _OUTCOMES},
                "findings": len(found.findings),
                "rederived-identical": rederived.get("pass", 0),
                "rederived-different": rederived.get("fail", 0),
                "rederived-not-evaluated": rederived.get("not-evaluated", 0),
                "sarif": inputs.resolve(inputs.sarif) if inputs.sarif else "",
                "report": inputs.resolve(inputs.report) if inputs.report else "",
                "attestation": inputs.resolve(inputs.attestation) if inputs.attest_key else "",
                "passed": "true" if step_code == 0 else "false",
            }
        ),
    )
    return step_code


def _write_pieces(path: str, pieces: Iterator[str]) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as target:
        target.writelines(pieces)


def _page(name: str) -> bool:
    """Whether ``name`` is a whole page (html): written by a ``verify`` run of its own."""
    shown = STREAMS.get(name)
    return shown is not None and shown.page


def _write_report(inputs: Inputs, lines_path: str) -> None:
    """The ``report`` file in ``format``: the jsonl itself, or rendered from its lines.

    The html page draws what the JSONL lines do not carry (signed times, the texts a check
    compared), so it is written by a second ``verify --format html`` run: byte for byte the
    page ``verify`` writes.
    """
    target = inputs.resolve(inputs.report)
    if _page(inputs.report_format):
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "sealverify", *inputs.verify_args(target, "html")]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode == 2:
            raise CouldNotRun((done.stderr.strip().splitlines() or ["html report"])[-1])
        return
    if STREAMS.get(inputs.report_format) is jsonl.FORMAT:  # the lines as they are
        _write_pieces(target, iter([Path(lines_path).read_text(encoding="utf-8")]))
        return
    subjects, findings, summary = [], [], {}
    with open(lines_path, encoding="utf-8") as lines:
        for text in lines:
            value = json.loads(text)
            kind = value.pop("type")
            if kind == "subject":
                subjects.append(jsonl.parse_subject(value))
            elif kind == "finding":
                findings.append(jsonl.parse_check(value))
            else:
                summary = value
    report = Report(
        summary["command"],
        tuple(subjects),
        summary["summary"],
        summary["exit_code"],
        tuple(findings),
        schema=summary["schema"],
    )
    _write_pieces(target, iter([render(report, inputs.report_format)]))


def main(
    argv: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    out: IO[str] | None = None,
) -> int:
    """The action's step: exit 0 (gate passed), 1/3/4 (the README's codes), 2 (could not run)."""
    del argv  # the inputs come from the environment, as a runner passes them
    env = os.environ if env is None else env
    out = sys.stdout if out is None else out
    try:
        return run(Inputs.from_env(env), env, out)
    except CouldNotRun as exc:
        out.write(annotation("error", f"sealverify could not run: {exc}") + "\n")
        _append(env.get("GITHUB_STEP_SUMMARY"), _could_not_run_markdown(str(exc)))
        _append(env.get("GITHUB_OUTPUT"), _outputs({"exit-code": 2, "passed": "false"}))
        return 2


if __name__ == "__main__":
    sys.exit(main())

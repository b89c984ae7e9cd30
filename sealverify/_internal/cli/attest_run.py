"""``--attest-key KEY --attestation FILE``: a run's signed verification summary, written last.

``verify``, ``chain`` and ``approval`` take the two options; the inputs are hashed here from
the paths the run expands, before any work and again once the run and its report are done (a
change in between refuses the run), the report too, and ``sealverify._internal.attest`` signs the
two Statements (docs/attestation.md). The attest package and securesystemslib are imported only when
the options are given, so a run without them loads neither.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sealverify import __version__
from sealverify._internal.cli.common import read_file, say
from sealverify._internal.run import storage
from sealverify._internal.run.refused import SourceUnreadable

if TYPE_CHECKING:
    from securesystemslib.signer import CryptoSigner

    from sealverify import Report
    from sealverify._internal.attest.statement import Digested, JsonOption
    from sealverify._internal.cli.verify_options import VerifyArgs

__all__ = [
    "ENV_PREFIX",
    "Attesting",
    "attest_options",
    "attest_verify",
    "chain_inputs",
    "counts",
    "digest_file",
    "policy_of",
    "start",
    "verify_inputs",
]

F = TypeVar("F", bound=Callable[..., Any])
ENV_PREFIX = "env:"  # --attest-key env:NAME: the PEM is in that environment variable
_BLOCK = 1 << 20
_EXTRA_HINT = "attestations need the attest extra: pip install 'sealverify[attest]'"


def attest_options(func: F) -> F:
    """The two options of a signed verification summary (docs/attestation.md)."""
    func = click.option(
        "--attestation",
        "attestation_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        help="Write a signed verification summary here (DSSE envelopes of in-toto Statements, "
        "one JSON line each; FILE.intoto.jsonl by convention) once the run and its report are "
        "done; needs --attest-key.",
    )(func)
    return click.option(
        "--attest-key",
        "attest_key",
        default=None,
        metavar="FILE|env:NAME",
        help="The Ed25519 or ECDSA P-256 private key (unencrypted PEM) that signs the "
        "--attestation summary: a file, or env:NAME for an environment variable holding the PEM "
        "(a CI secret). Needs the attest extra.",
    )(func)


@dataclass(slots=True)
class Attesting:
    """An attestation asked for: its signer, checked before any work, and where it goes.

    ``before`` holds the inputs' digests read before the run (:meth:`read_inputs`): the
    inputs are hashed again when the summary is written, and a run whose inputs changed in
    between is refused (exit 2): a summary does not name inputs that changed under the run.
    """

    signer: CryptoSigner
    path: Path
    before: dict[str, str] | None = None

    def read_inputs(self, inputs: Iterable[str | Path | storage.Remote]) -> None:
        """Hash the run's inputs before any work (each read once more when the run is over)."""
        self.before = {d.name: d.sha256 for d in _subjects(inputs, None)}

    def write(
        self,
        command: str,
        exit_code: int,
        rule: str,
        inputs: Iterable[str | Path | storage.Remote],
        policy: Digested,
        counts: Mapping[str, int],
        options: Mapping[str, JsonOption],
        report: Path | None,
    ) -> None:
        """Hash the inputs and the report, sign both Statements, write the file, say so."""
        from sealverify._internal.attest.envelope import sign_statements
        from sealverify._internal.attest.statement import Run, run_statement, vsa_statement
        from sealverify._internal.kernel.profiles import KERNEL_PROFILES

        subjects = _subjects(inputs, report)
        if self.before is not None:
            _unchanged(self.before, subjects, report)
        run = Run(
            command=command,
            exit_code=exit_code,
            rule=rule,
            subjects=subjects,
            policy=policy,
            resource_uri=subjects[0].name if subjects else "",
            time_verified=_now(),
            version=__version__,
            profiles=tuple(p[:8] for p in sorted(KERNEL_PROFILES)),
            counts=counts,
            options=options,
        )
        data = sign_statements([vsa_statement(run), run_statement(run)], self.signer)
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            partial.write_bytes(data)
            partial.replace(self.path)
        except OSError as exc:
            raise click.UsageError(f"--attestation {self.path}: {exc.strerror or exc}") from None
        verdict = "PASSED" if exit_code == 0 else "FAILED"
        say(f"attestation written to {self.path} ({verdict}, {len(subjects)} subject(s))")


def start(
    attest_key: str | None, path: Path | None, inputs: Sequence[str] = ()
) -> Attesting | None:
    """The attestation a run was asked for, its key read now (exit 2 before any work).

    ``inputs`` are the run's named inputs: standard input (``-``) cannot be read again to be
    hashed, so an attested run refuses it.
    """
    if attest_key is None and path is None:
        return None
    if attest_key is None or path is None:
        raise click.UsageError("--attest-key and --attestation go together")
    if "-" in inputs:
        raise click.UsageError("--attestation: standard input (-) cannot be named as a subject")
    _writable(path)
    try:
        from sealverify._internal.attest import keys
    except ImportError as exc:
        raise click.UsageError(f"{_EXTRA_HINT} ({exc})") from None
    if attest_key.startswith(ENV_PREFIX):
        name = attest_key.removeprefix(ENV_PREFIX)
        pem = os.environ.get(name)
        if not pem:
            raise click.UsageError(f"--attest-key: environment variable {name} is not set")
        return Attesting(keys.signer(pem.encode("utf-8"), f"--attest-key env:{name}"), path)
    try:
        data = read_file(attest_key)
    except OSError as exc:
        raise click.UsageError(f"--attest-key {attest_key}: {exc.strerror or exc}") from None
    return Attesting(keys.signer(data, f"--attest-key {attest_key}"), path)


def _unchanged(before: Mapping[str, str], after: Sequence[Digested], report: Path | None) -> None:
    """Refuse (exit 2) when an input's bytes, or the set of inputs, changed during the run."""
    now = {d.name: d.sha256 for d in after}
    if report is not None:  # written by the run itself, even inside a directory it walked
        before = {n: d for n, d in before.items() if n != report.as_posix()}
        now.pop(report.as_posix(), None)
    changed = sorted(n for n in before.keys() | now.keys() if before.get(n) != now.get(n))
    if changed:
        raise click.UsageError(
            f"--attestation: {len(changed)} input(s) changed while the run read them, "
            f"first {changed[0]}; no summary written"
        )


def _writable(path: Path) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise click.UsageError(f"--attestation {path}: directory {parent} is not writable")


def _now() -> str:
    """RFC 3339 UTC; ``SOURCE_DATE_EPOCH`` (reproducible-builds.org) fixes it for tests."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH", "")
    moment = (
        datetime.datetime.fromtimestamp(int(fixed), datetime.UTC)
        if fixed.isdigit()
        else datetime.datetime.now(datetime.UTC)
    )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def digest_file(source: str | Path | storage.Remote) -> Digested:
    """A file's (or object's) name as given and the SHA-256 of its bytes, read in blocks."""
    from sealverify._internal.attest.statement import Digested

    location = storage.locate(source) if isinstance(source, str) else source
    name = location.url if isinstance(location, storage.Remote) else location.as_posix()
    digest = hashlib.sha256()
    try:
        with location.open("rb") as stream:
            while block := stream.read(_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise SourceUnreadable.of(f"{name} (to attest it)", exc) from None
    return Digested(name, digest.hexdigest())


def _subjects(
    inputs: Iterable[str | Path | storage.Remote], report: Path | None
) -> tuple[Digested, ...]:
    found: dict[str, Digested] = {}
    for source in inputs:
        digested = digest_file(source)
        found.setdefault(digested.name, digested)
    if report is not None and _regular(report):  # a device or pipe cannot be read back
        digested = digest_file(report)
        found.setdefault(digested.name, digested)
    return tuple(found.values())


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def policy_of(trust: Path | None, pins: Mapping[str, Sequence[str]]) -> Digested:
    """The policy a run was verified under: the trust file alone, else every pin as one document.

    A run given a trust file and no pin on the command line names that file by its sha256; any
    other run names the canonical pins document (``statement.pins_document``), the trust file's
    sha256 in it when there was one, as ``sealverify:pins``.
    """
    from sealverify._internal.attest.statement import Digested, pins_document

    if trust is not None and not any(pins.values()):
        return digest_file(trust)
    everything = dict(pins)
    if trust is not None:
        everything["trust_file_sha256"] = [digest_file(trust).sha256]
    return Digested("sealverify:pins", hashlib.sha256(pins_document(everything)).hexdigest())


def counts(summary: Mapping[str, object]) -> dict[str, int]:
    """The run's counts from its report summary: every whole-number member (not the flags)."""
    return {k: v for k, v in summary.items() if isinstance(v, int) and not isinstance(v, bool)}


def verify_inputs(
    paths: Sequence[str], approvals: Path | None, raw_lines: Sequence[Path]
) -> Iterable[Path | storage.Remote]:
    """Every file ``verify`` read, by the same walk: what PATHs expand to, and the rest.

    The rest: each partition attestation side file beside one, the --approvals file and the
    --raw-line files.
    """
    from sealverify._internal.run.engine import expand

    for location, _ in expand(paths):
        yield location
        side = location.with_name(location.name + ".partition.json")
        if side.is_file():
            yield side
    if approvals is not None:
        yield approvals
    yield from raw_lines


def chain_inputs(
    logs: Sequence[str], state_file: Path | None, receipts: Sequence[Path]
) -> Iterable[Path]:
    """Every file ``chain`` read: the logs, the --state-file, and each --receipts file.

    Of a --receipts directory, its ``receipt-*.json`` files, as the binding reads them.
    """
    yield from map(Path, logs)
    if state_file is not None:
        yield state_file
    for path in receipts:
        if path.is_dir():
            names = sorted(p.name for p in path.iterdir())
            yield from (path / n for n in names if n.startswith("receipt-") and n.endswith(".json"))
        else:
            yield path


def attest_verify(attesting: Attesting, args: VerifyArgs, report: Report) -> None:
    """The signed summary of a ``verify`` run: its inputs, pins, counts and options."""
    pins = {"config": args.config_pins, "receipt": args.receipt_pins}
    pins |= {"approval": args.approval_pins, "kernel": args.kernel_pins}
    attesting.write(
        "verify",
        report.exit_code,
        "SEALVERIFY_VERIFIED_REDERIVED",
        verify_inputs(args.paths, args.approvals_file, args.raw_line_files),
        policy_of(args.trust_file, pins),
        counts(report.summary),
        {
            "paths": list(args.paths),
            "allow_published_keys": args.allow_published_keys,
            "rederive": not args.no_rederive,
            "waive": sorted(args.waive),
            "history": args.state_path is not None,
            "format": args.fmt,
        },
        args.output,
    )

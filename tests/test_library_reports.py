"""Every command is a library call: the CLI's JSON is the library's report, byte for byte.

Each case runs one command on a sample of the project's own fixtures (``fixtures/``, minted
by ``sealverify.testkit``) through the CLI with ``--format json``, and renders the report the
documented library function returns for the same inputs: the two must be equal byte for byte,
exit code included. A check, a cap or an outcome the CLI added (or dropped) on its own would
make them differ; ``test_a_cli_that_adds_a_check_is_caught`` shows that it does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import sealverify
from sealverify.definitions.skill_listing import SkillTree
from sealverify.definitions.skills import ResourceFile
from sealverify.history.state import open_store
from sealverify.receipts.pin_use import PinUse
from sealverify.reports.formats import render
from tests.fleet_services import S3, s3_server

__all__ = ["s3_server"]  # the fixture, imported for its test

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def _bytes(relative: str) -> bytes:
    return (ROOT / relative).read_bytes()


def _facts(relative: str) -> dict[str, object]:
    loaded = json.loads(_bytes(relative))
    assert isinstance(loaded, dict)
    return loaded


@dataclass(frozen=True)
class Case:
    """One command on one sample: its CLI arguments and the library's answer (stdout, code)."""

    id: str
    args: tuple[str, ...]
    library: Callable[[Path], tuple[str, int]]


def _report(report: sealverify.Report) -> tuple[str, int]:
    return render(report, "json"), report.exit_code


# verify ---------------------------------------------------------------------------------


def _verify_cases() -> Iterator[Case]:
    trust_path = "fixtures/demo/trust.json"
    receipts = sorted((FIXTURES / "demo" / "receipts").iterdir())
    for allow in (False, True):
        flag = ("--allow-published-keys",) if allow else ()
        for path in receipts:
            relative = path.relative_to(ROOT).as_posix()

            def library(
                _tmp: Path, relative: str = relative, allow: bool = allow
            ) -> tuple[str, int]:
                trust = sealverify.load_trust_file(_bytes(trust_path))
                options = sealverify.VerifyOptions(trust=trust, allow_published_keys=allow)
                data = _bytes(relative)
                if relative.endswith(".jsonl"):
                    subjects, findings = sealverify.verify_jsonl(data, relative, options)
                else:
                    subjects, findings = [sealverify.verify_receipt(data, relative, options)], []
                pins = PinUse.of(options)  # verify's run notes on pins that matched nothing
                for subject in subjects:
                    pins.add(subject)
                findings = [*findings, *pins.notes()]
                return _report(sealverify.build_report(subjects, findings, allow))

            args: tuple[str, ...] = ("verify", relative, "--trust", trust_path, *flag)
            yield Case(f"verify-{path.name}-allow{allow}", args, library)


def _run_report(sources: tuple[str, ...], allow: bool, **how: object) -> tuple[str, int]:
    """verify_sources over ``sources``, its subjects and findings made into the report."""
    trust = sealverify.load_trust_file(_bytes("fixtures/demo/trust.json"))
    options = sealverify.VerifyOptions(trust=trust, allow_published_keys=allow)
    found = list(sealverify.verify_sources(sources, options, **how))  # type: ignore[arg-type]
    subjects = [r for r in found if isinstance(r, sealverify.Subject)]
    findings = [r for r in found if isinstance(r, sealverify.Check)]
    return _report(sealverify.build_report(subjects, findings, allow))


# A run of verify over what a person names: a directory, a log, several inputs of every kind
# at once (a log, a file, a glob), in one process and in workers: verify_sources.
RUNS = {
    "directory": ("fixtures/demo/receipts",),
    "log": ("fixtures/demo/receipts/receipts.jsonl",),
    "mixed": (
        "fixtures/demo/receipts/receipts.jsonl",
        "fixtures/demo/receipts/verified-allow.receipt.json",
        "fixtures/demo/receipts/fail-*.json",
    ),
}


def _run_cases() -> Iterator[Case]:
    for label, sources in RUNS.items():
        for allow in (False, True):
            flag = ("--allow-published-keys",) if allow else ()
            for jobs in (1, 2):

                def library(
                    _tmp: Path,
                    sources: tuple[str, ...] = sources,
                    allow: bool = allow,
                    jobs: int = jobs,
                ) -> tuple[str, int]:
                    return _run_report(sources, allow, jobs=jobs)

                args = ("verify", *sources, "--trust", "fixtures/demo/trust.json", *flag)
                args += ("--jobs", str(jobs))
                yield Case(f"verify-run-{label}-allow{allow}-jobs{jobs}", args, library)


# frame, diff, partition -----------------------------------------------------------------

FRAMES = ("call.bin", "call-other-trace.bin", "refused-meta-null.bin")


def _frame_cases() -> Iterator[Case]:
    for name in FRAMES:
        relative = f"fixtures/frames/{name}"

        def library(_tmp: Path, relative: str = relative, name: str = name) -> tuple[str, int]:
            frames = iter(sealverify.split_stdio(_bytes(relative)))
            options = sealverify.FrameOptions(era="2026-07-28", max_frame_bytes=16 << 20)
            return _report(sealverify.frame_stream_report(name, frames, options))

        yield Case(f"frame-{name}", ("frame", relative), library)

    def capped(_tmp: Path) -> tuple[str, int]:
        frames = iter(sealverify.split_stdio(_bytes("fixtures/frames/call.bin") * 2))
        options = sealverify.FrameOptions(era="2026-07-28", max_frame_bytes=16 << 20)
        report = sealverify.frame_stream_report("two.bin", frames, options, max_frames=1)
        return _report(report)

    def write_two(tmp: Path) -> None:
        (tmp / "two.bin").write_bytes(_bytes("fixtures/frames/call.bin") * 2)

    yield Case("frame-max-frames", ("frame", "{tmp}/two.bin", "--max-frames", "1"), capped)
    PREPARE["frame-max-frames"] = write_two


PREPARE: dict[str, Callable[[Path], None]] = {}

DIFF_PAIRS = (
    ("fixtures/frames/call.bin", "fixtures/frames/call-other-trace.bin"),
    ("fixtures/frames/call.bin", "fixtures/frames/refused-meta-null.bin"),
    ("fixtures/frames/call.bin", "fixtures/frames/call.bin"),
    (
        "fixtures/demo/receipts/verified-allow.receipt.json",
        "fixtures/demo/receipts/fail-edited-arguments.receipt.json",
    ),
    ("fixtures/demo/receipts/verified-block.receipt.json", "fixtures/frames/call.bin"),
    (
        "fixtures/demo/receipts/verified-block.receipt.json",
        "fixtures/demo/receipts/fail-forged-binding.receipt.json",
    ),
)


def _diff_cases() -> Iterator[Case]:
    for a, b in DIFF_PAIRS:

        def library(_tmp: Path, a: str = a, b: str = b) -> tuple[str, int]:
            report = sealverify.diff_inputs(
                sealverify.DiffInput(_bytes(a), Path(a).name),
                sealverify.DiffInput(_bytes(b), Path(b).name),
            )
            return _report(report)

        yield Case(f"diff-{Path(a).name}-{Path(b).name}", ("diff", a, b), library)


def _partition_cases() -> Iterator[Case]:
    for relative in (*(f"fixtures/frames/{n}" for n in FRAMES), "fixtures/partition/frame.bin"):

        def library(_tmp: Path, relative: str = relative) -> tuple[str, int]:
            frame = sealverify.select_frame(_bytes(relative))
            name = f"{Path(relative).name}#0"
            emitted = sealverify.partition_emit(frame, name=name)
            if emitted.report is not None:
                return _report(emitted.report)
            assert emitted.payload is not None
            return emitted.payload.decode("utf-8") + "\n", emitted.exit_code

        yield Case(f"partition-emit-{relative}", ("partition", "emit", relative), library)
    signer = str(_facts("fixtures/partition/signer.json")["pubkey"])
    for allow in (False, True):

        def verify(_tmp: Path, allow: bool = allow) -> tuple[str, int]:
            report = sealverify.attestation_report(
                _bytes("fixtures/partition/attestation.json"),
                _bytes("fixtures/partition/frame.bin"),
                [bytes.fromhex(signer)],
                name="attestation.json",
                allow_published_keys=allow,
            )
            return _report(report)

        args: tuple[str, ...] = ("partition", "verify", "fixtures/partition/attestation.json")
        args += ("--frame", "fixtures/partition/frame.bin", "--pubkey", signer)
        args += ("--allow-published-keys",) if allow else ()
        yield Case(f"partition-verify-allow{allow}", args, verify)


# chain ----------------------------------------------------------------------------------


def _chain_cases() -> Iterator[Case]:
    anchors = _facts("fixtures/chain/anchors.json")
    head, count = str(anchors["expect_head"]), anchors["expect_count"]
    assert isinstance(count, int)
    variants: list[tuple[str, tuple[str, ...], sealverify.ChainOptions]] = [
        ("bare", (), sealverify.ChainOptions()),
        ("head", ("--expect-head", head), sealverify.ChainOptions(expect_head=head)),
        ("count", ("--expect-count", str(count)), sealverify.ChainOptions(expect_count=count)),
    ]
    for log in ("host.stderr", "truncated.stderr"):
        relative = f"fixtures/chain/{log}"
        for label, flags, options in variants:

            def library(
                _tmp: Path, relative: str = relative, options: sealverify.ChainOptions = options
            ) -> tuple[str, int]:
                sources = [(Path(relative).name, _bytes(relative))]
                return _report(sealverify.chain_report(sources, options))

            yield Case(f"chain-{log}-{label}", ("chain", relative, *flags), library)

    def with_receipts(tmp: Path) -> tuple[str, int]:
        folder = FIXTURES / "demo" / "receipts"
        names = sorted(p.name for p in folder.iterdir())
        files = tuple((n, (folder / n).read_bytes()) for n in names if n.startswith("receipt-"))
        group = sealverify.ReceiptGroup("receipts", tuple(names), files)
        single = "verified-block.receipt.json"
        one = sealverify.ReceiptGroup(single, (), ((single, (folder / single).read_bytes()),))
        sources = [("host.stderr", _bytes("fixtures/chain/host.stderr"))]
        store = open_store(str(tmp / "library.sqlite"), tool_version=sealverify.__version__)
        report = sealverify.chain_report(
            sources,
            sealverify.ChainOptions(expect_count=count),
            [group, one],
            store=store,
            store_name="history: library.sqlite",
        )
        return _report(report)

    args: tuple[str, ...] = ("chain", "fixtures/chain/host.stderr", "--expect-count", str(count))
    args += ("--receipts", "fixtures/demo/receipts", "--receipts")
    args += ("fixtures/demo/receipts/verified-block.receipt.json", "--state")
    args += ("{tmp}/library.sqlite",)
    yield Case("chain-receipts-and-state", args, with_receipts)


# approval -------------------------------------------------------------------------------


def _approval_cases() -> Iterator[Case]:
    facts = _facts("fixtures/approval/approver.json")
    key, at, server = str(facts["approver_pubkey"]), facts["judged_at_ms"], str(facts["server"])
    assert isinstance(at, int)
    for allow in (False, True):

        def library(_tmp: Path, allow: bool = allow) -> tuple[str, int]:
            options = sealverify.ApprovalOptions(
                bytes.fromhex(key),
                _bytes("fixtures/approval/frame.bin"),
                at,
                server=server,
                allow_published_keys=allow,
            )
            tokens = sealverify.split_tokens(
                _bytes("fixtures/approval/tokens.ndjson"), "tokens.ndjson"
            )
            return _report(sealverify.approval_report(tokens, options))

        args: tuple[str, ...] = ("approval", "fixtures/approval/tokens.ndjson", "--frame")
        args += ("fixtures/approval/frame.bin", "--server", server, "--approval-pubkey", key)
        args += ("--at", str(at), *(("--allow-published-keys",) if allow else ()))
        yield Case(f"approval-allow{allow}", args, library)


# lint, tools, skill ---------------------------------------------------------------------


def _lint_cases() -> Iterator[Case]:
    def folder(_tmp: Path) -> tuple[str, int]:
        files = [
            (f"fixtures/lint/{n}", _bytes(f"fixtures/lint/{n}")) for n in ("bad.md", "good.md")
        ]
        return _report(sealverify.lint_report(files))

    yield Case("lint-folder", ("lint", "fixtures/lint"), folder)
    for name in ("bad.md", "good.md"):
        relative = f"fixtures/lint/{name}"

        def one(_tmp: Path, relative: str = relative) -> tuple[str, int]:
            return _report(sealverify.lint_report([(relative, _bytes(relative))]))

        yield Case(f"lint-{name}", ("lint", relative), one)
    receipt = "fixtures/demo/receipts/verified-block.receipt.json"

    def json_receipt(_tmp: Path) -> tuple[str, int]:
        return _report(sealverify.lint_report([(receipt, _bytes(receipt))]))

    yield Case("lint-receipt", ("lint", receipt), json_receipt)


def _tools_cases() -> Iterator[Case]:
    names = ("tools.json", "tools-later.json")
    for profile in ("heldfast", "rugsnare"):
        for name in names:
            relative = f"fixtures/tools/{name}"

            def digest(
                _tmp: Path, relative: str = relative, profile: str = profile
            ) -> tuple[str, int]:
                source = sealverify.ToolsSource(_bytes(relative), name=relative)
                return _report(sealverify.digest_report(source, profile))

            args: tuple[str, ...] = ("tools", "digest", relative, "--profile", profile)
            yield Case(f"tools-digest-{name}-{profile}", args, digest)
        for a, b in ((names[0], names[1]), (names[0], names[0])):
            pair = (f"fixtures/tools/{a}", f"fixtures/tools/{b}")

            def compare(
                _tmp: Path, pair: tuple[str, str] = pair, profile: str = profile
            ) -> tuple[str, int]:
                sources = [sealverify.ToolsSource(_bytes(p), name=p) for p in pair]
                return _report(sealverify.compare_report(sources[0], sources[1], profile))

            args = ("tools", "compare", *pair, "--profile", profile)
            yield Case(f"tools-compare-{a}-{b}-{profile}", args, compare)


def _skill_cases() -> Iterator[Case]:
    listing = "fixtures/skills/listing.json"
    root = FIXTURES / "skills" / "dir"
    skill_md = "fixtures/skills/dir/release-notes/SKILL.md"
    entry = "fixtures/skills/dir/release-notes/templates/entry.md"

    def tree(_tmp: Path) -> tuple[str, int]:
        files = {
            p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
        }
        return _report(sealverify.skill_report(_bytes(listing), tree=SkillTree(files)))

    def alone(_tmp: Path) -> tuple[str, int]:
        return _report(sealverify.skill_report(_bytes(listing)))

    def fetched(_tmp: Path) -> tuple[str, int]:
        resources = (ResourceFile("templates/entry.md", _bytes(entry)),)
        skill = sealverify.FetchedSkill(_bytes(skill_md), "SKILL.md", resources)
        return _report(sealverify.skill_report(_bytes(listing), skill=skill))

    base = ("skill", "verify", "--listing", listing)
    yield Case("skill-dir", (*base, "--dir", "fixtures/skills/dir"), tree)
    yield Case("skill-listing-alone", base, alone)
    yield Case("skill-fetched", (*base, skill_md, entry), fetched)


# decide and inventory write their own JSON (no Report): the library's, serialised the same way


def _other_cases() -> Iterator[Case]:
    def decide(_tmp: Path) -> tuple[str, int]:
        config = _bytes("fixtures/decide/signed-config.json").decode("utf-8", errors="replace")
        lines = [line for line in _bytes("fixtures/decide/calls.bin").split(b"\n") if line.strip()]
        build = sealverify.KERNEL_PROFILES[sealverify.DEFAULT_KERNEL_SHA256]
        what = sealverify.what_if(config, lines, build, now=0)
        text = json.dumps(sealverify.what_if_report(what), indent=2, sort_keys=True) + "\n"
        return text, what.exit_code

    args: tuple[str, ...] = ("decide", "--config", "fixtures/decide/signed-config.json")
    yield Case("decide", (*args, "--now", "0", "fixtures/decide/calls.bin"), decide)


# attestation verify ----------------------------------------------------------------------


def _attestation_cases() -> Iterator[Case]:
    from sealverify.attest import keys
    from sealverify.attest.check import attestation_verify_report
    from sealverify.attest.statement import Digested

    def digested(relative: str) -> Digested:
        return Digested(relative, hashlib.sha256(_bytes(relative)).hexdigest())

    attestation, subject = "fixtures/attest/demo.intoto.jsonl", "fixtures/demo/receipts"
    for name, allow in (
        ("verified-allow.receipt.json", True),
        ("fail-bypass.receipt.json", True),
        ("verified-allow.receipt.json", False),  # the sample key is published: UNPINNED
    ):

        def library(_tmp: Path, name: str = name, allow: bool = allow) -> tuple[str, int]:
            key = keys.public_key(_bytes("fixtures/attest/key.pub.pem"), "key")
            report = attestation_verify_report(
                _bytes(attestation),
                key,
                [digested(f"{subject}/{name}")],
                digested("fixtures/demo/trust.json"),
                name="demo.intoto.jsonl",
                allow_published_keys=allow,
            )
            return _report(report)

        args = ("attestation", "verify", attestation, "--pubkey", "fixtures/attest/key.pub.pem")
        args += ("--subject", f"{subject}/{name}", "--policy", "fixtures/demo/trust.json")
        args += ("--allow-published-keys",) if allow else ()
        yield Case(f"attestation-verify-{name}-{allow}", args, library)


CASES = [
    *_verify_cases(),
    *_run_cases(),
    *_frame_cases(),
    *_diff_cases(),
    *_partition_cases(),
    *_chain_cases(),
    *_approval_cases(),
    *_lint_cases(),
    *_tools_cases(),
    *_skill_cases(),
    *_other_cases(),
    *_attestation_cases(),
]

# The commands whose output is no library report: `explain` prints the catalogue's text, and
# `inventory` lists what receipts carry (sealverify.InventoryBuilder), verifying nothing.
NOT_REPORTS = {"explain", "inventory"}


def _run(case: Case, tmp: Path) -> tuple[bytes, int]:
    from sealverify.cli.main import cli

    if case.id in PREPARE:
        PREPARE[case.id](tmp)
    args = [a.replace("{tmp}", str(tmp)) for a in case.args]
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    return result.stdout_bytes, result.exit_code


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_cli_writes_the_library_report(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the cases name fixtures relative to the repository root
    cli_dir, lib_dir = tmp_path / "cli", tmp_path / "lib"
    cli_dir.mkdir()
    lib_dir.mkdir()
    stdout, code = _run(case, cli_dir)
    text, expected = case.library(lib_dir)
    assert (stdout, code) == (text.encode("utf-8"), expected)


def test_every_command_has_a_case() -> None:
    from sealverify.cli.main import command_modules

    covered = {c.args[0] for c in CASES}
    assert covered | NOT_REPORTS == set(command_modules())
    grouped = ("partition", "tools", "skill", "attestation")
    subcommands = {c.args[:2] for c in CASES if c.args[0] in grouped}
    assert subcommands == {
        ("attestation", "verify"),
        ("partition", "emit"),
        ("partition", "verify"),
        ("tools", "digest"),
        ("tools", "compare"),
        ("skill", "verify"),
    }
    outcomes = {case.library(Path("/nonexistent"))[1] for case in CASES if "state" not in case.id}
    assert outcomes >= {0, 1, 3}  # the samples reach every outcome a report can give


def test_a_cli_that_adds_a_check_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A CLI that judged one more thing than the library would write another report: the
    # comparison above sees it. Here `lint` is made to add a passing check of its own.
    import sealverify.cli.lint_cmd as lint_cmd

    real = sealverify.lint_subject

    def extra(*args: object, **kwargs: object) -> sealverify.Subject:
        subject = real(*args, **kwargs)  # type: ignore[arg-type]
        check = sealverify.Check("lint.cli-only", "pass", "judged by the CLI alone")
        return replace(subject, checks=(*subject.checks, check))

    monkeypatch.chdir(ROOT)
    case = next(c for c in CASES if c.id == "lint-good.md")
    before = _run(case, tmp_path)
    monkeypatch.setattr(lint_cmd, "lint_subject", extra)
    after = _run(case, tmp_path)
    library = case.library(tmp_path)
    assert before == (library[0].encode("utf-8"), library[1])
    assert after != before


def test_no_command_module_builds_a_report_or_a_subject() -> None:
    # The outcome of each subject and the run's exit code are the library's: a command module
    # (sealverify/cli/*_cmd.py) that made a Report or a Subject itself would be deciding them.
    import ast

    made = []
    for path in sorted((ROOT / "sealverify" / "cli").glob("*_cmd.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in ("Report", "Subject", "Check"):
                    made.append(f"{path.name} {name}")
            elif isinstance(node, ast.ImportFrom) and node.module == "sealverify.reports.model":
                made += [f"{path.name} imports {a.name}" for a in node.names]
    # verify's run over many paths (workers, a cluster) is the library's (verify_sources);
    # cli/verify_report.py spools its results and relocates the --state checks it adds.
    assert made == []


def test_a_bucket_is_the_library_run_too(s3_server: S3, tmp_path: Path) -> None:
    # The same run over object storage (s3://, a real S3 server when the s3 extra is there).
    from sealverify.cli.main import cli

    s3_server.client().create_bucket(Bucket="library")
    shutil.copytree(FIXTURES / "demo" / "receipts", tmp_path / "receipts")
    s3_server.upload("library", tmp_path, "run")
    url = "s3://library/run/receipts"
    flags = s3_server.options()  # --storage-option KEY=VALUE, three times
    stored = dict(pair.split("=", 1) for pair in flags[1::2])
    args = ["verify", url, "--trust", "fixtures/demo/trust.json", "--format", "json", *flags]
    done = CliRunner().invoke(cli, args, catch_exceptions=False)
    library = _run_report((url,), False, storage_options=stored)
    assert (done.stdout_bytes, done.exit_code) == (library[0].encode("utf-8"), library[1])
    assert done.exit_code == 1 and f"{url}/verified-allow.receipt.json" in done.stdout

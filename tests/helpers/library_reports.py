"""Shared with other test modules by tests/api/test_library_reports.py."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import sealverify
from sealverify._internal.history.state import open_store
from sealverify._internal.receipts.pin_use import PinUse
from sealverify._internal.skills.identity import ResourceFile
from sealverify._internal.skills.listing import SkillTree
from sealverify.formats import render

ROOT = Path(__file__).resolve().parents[2]
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


def verify_cases() -> Iterator[Case]:
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


def run_report(sources: tuple[str, ...], allow: bool, **how: object) -> tuple[str, int]:
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


def run_cases() -> Iterator[Case]:
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
                    return run_report(sources, allow, jobs=jobs)

                args = ("verify", *sources, "--trust", "fixtures/demo/trust.json", *flag)
                args += ("--jobs", str(jobs))
                yield Case(f"verify-run-{label}-allow{allow}-jobs{jobs}", args, library)


FRAMES = ("call.bin", "call-other-trace.bin", "refused-meta-null.bin")


def frame_cases() -> Iterator[Case]:
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


def diff_cases() -> Iterator[Case]:
    for a, b in DIFF_PAIRS:

        def library(_tmp: Path, a: str = a, b: str = b) -> tuple[str, int]:
            report = sealverify.diff_inputs(
                sealverify.DiffInput(_bytes(a), Path(a).name),
                sealverify.DiffInput(_bytes(b), Path(b).name),
            )
            return _report(report)

        yield Case(f"diff-{Path(a).name}-{Path(b).name}", ("diff", a, b), library)


def partition_cases() -> Iterator[Case]:
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


def chain_cases() -> Iterator[Case]:
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


def approval_cases() -> Iterator[Case]:
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


def lint_cases() -> Iterator[Case]:
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


def tools_cases() -> Iterator[Case]:
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


def skill_cases() -> Iterator[Case]:
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


def other_cases() -> Iterator[Case]:
    def decide(_tmp: Path) -> tuple[str, int]:
        config = _bytes("fixtures/decide/signed-config.json").decode("utf-8", errors="replace")
        lines = [line for line in _bytes("fixtures/decide/calls.bin").split(b"\n") if line.strip()]
        build = sealverify.KERNEL_PROFILES[sealverify.DEFAULT_KERNEL_SHA256]
        what = sealverify.what_if(config, lines, build, now=0)
        text = json.dumps(sealverify.what_if_report(what), indent=2, sort_keys=True) + "\n"
        return text, what.exit_code

    args: tuple[str, ...] = ("decide", "--config", "fixtures/decide/signed-config.json")
    yield Case("decide", (*args, "--now", "0", "fixtures/decide/calls.bin"), decide)


def attestation_cases() -> Iterator[Case]:
    from sealverify._internal.attest import keys
    from sealverify._internal.attest.check import attestation_verify_report
    from sealverify._internal.attest.statement import Digested

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
    *verify_cases(),
    *run_cases(),
    *frame_cases(),
    *diff_cases(),
    *partition_cases(),
    *chain_cases(),
    *approval_cases(),
    *lint_cases(),
    *tools_cases(),
    *skill_cases(),
    *other_cases(),
    *attestation_cases(),
]

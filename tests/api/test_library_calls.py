"""The per-command library calls hold their rules without the CLI: hostile inputs and options
give a finding or a named ``SealverifyError``, never a pass, and state is kept only when the
evidence holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import sealverify
from sealverify._internal.history.state import open_store

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
LOG = [("host.stderr", (FIXTURES / "chain" / "host.stderr").read_bytes())]
ANCHORS = json.loads((FIXTURES / "chain" / "anchors.json").read_bytes())


@pytest.mark.parametrize("field", ["expect_head", "start_head"])
@pytest.mark.parametrize("head", ["ab" * 31, "AB" * 32, "zz" * 32, ""])
def test_a_chain_head_that_is_not_64_lowercase_hex_is_refused(field: str, head: str) -> None:
    with pytest.raises(sealverify.OptionError, match="64 hex digits"):
        sealverify.ChainOptions(**{field: head})


@pytest.mark.parametrize("state", [b"", b"{}", b'{"seal_audit_state":"v1"}', b"\xff"])
def test_an_unreadable_state_file_fails_the_chain(state: bytes) -> None:
    # Without the state file the log is anchored by its count; a bad one is never ignored.
    options = sealverify.ChainOptions(
        expect_count=ANCHORS["expect_count"], state_file=(".seal-audit-head.state", state)
    )
    report = sealverify.chain_report(LOG, options)
    chain = report.subjects[0]
    assert (chain.outcome, report.exit_code) == ("BROKEN", 1)
    assert [c.location for c in chain.checks if c.id == "chain.state-file"] == [
        ".seal-audit-head.state"
    ]


def test_a_state_file_for_another_head_fails_the_chain() -> None:
    other = json.dumps({"seal_audit_state": "v1", "session": "s", "head": "0" * 64})
    options = sealverify.ChainOptions(state_file=("head.state", other.encode()))
    report = sealverify.chain_report(LOG, options)
    assert (report.subjects[0].outcome, report.exit_code) == ("BROKEN", 1)


def test_a_broken_chain_is_not_recorded_in_the_history(tmp_path: Path) -> None:
    edited = LOG[0][1].replace(b'"allow"', b'"block"', 1)
    assert edited != LOG[0][1]
    store = open_store(str(tmp_path / "state.sqlite"))
    report = sealverify.chain_report([("host.stderr", edited)], store=store)
    history = report.subjects[-1]
    assert report.exit_code == 1
    assert [c.id for c in history.checks] == ["history.chain-not-recorded"]
    assert open_store(str(tmp_path / "state.sqlite")).recorded_head() is None
    # The same log intact is recorded, and its final head is the one the anchors name.
    sealverify.chain_report(LOG, store=open_store(str(tmp_path / "state.sqlite")))
    recorded = open_store(str(tmp_path / "state.sqlite")).recorded_head()
    assert recorded == ANCHORS["expect_head"]


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("r.json", b"{", "not strict JSON"),
        ("r.json", b"[1]", "a receipt must be a JSON object"),
        ("r.json", b'{"a":1,"a":2}', "not strict JSON"),
        ("note.md", b"\xff\xfe", "not UTF-8"),
    ],
)
def test_lint_refuses_a_file_it_cannot_read_as_what_its_name_says(
    name: str, data: bytes, why: str
) -> None:
    with pytest.raises(sealverify.InputError, match=f"cannot lint {name}: {why}"):
        sealverify.lint_report([(name, data)])


def test_lint_counts_every_violation_and_fails_the_run() -> None:
    bad = (FIXTURES / "lint" / "bad.md").read_bytes()
    report = sealverify.lint_report([("a.md", bad), ("b.md", bad + b"\n" + bad)])
    assert [s.facts["violations"] for s in report.subjects] == [1, 2]
    assert (report.summary["violations"], report.exit_code) == (3, 1)
    # Under a rule set with the rule disabled, the same text is clean.
    rules = sealverify.parse_rules('disable = ["wording.inert"]\n')
    assert sealverify.lint_report([("a.md", bad)], rules).exit_code == 0


def test_tools_refuses_an_unknown_profile_and_a_capture_that_is_not_json() -> None:
    source = sealverify.ToolsSource((FIXTURES / "tools" / "tools.json").read_bytes())
    with pytest.raises(sealverify.OptionError, match=re.escape("unknown profile 'sha1'")):
        sealverify.digest_report(source, "sha1")
    bad = sealverify.ToolsSource(source.data, capture=b"{", capture_name="cap.json")
    with pytest.raises(
        sealverify.InputError, match=re.escape("--capture cap.json: not strict JSON")
    ):
        sealverify.digest_report(bad)
    # Bytes that hold no listing are a failed finding of their side, never a clean compare.
    junk = sealverify.compare_report(sealverify.ToolsSource(b"not json", name="a.json"), source)
    failed = {c.id for c in junk.findings if c.status == "fail"}
    assert {"tools.input.no-listing"} <= failed and junk.exit_code == 1


def test_tools_flags_a_definition_quoting_a_placeholder_the_reader_gave() -> None:
    data = (FIXTURES / "tools" / "tools.json").read_bytes()
    quoted = json.loads(data)["tools"][0]["description"].split()[0]
    report = sealverify.digest_report(sealverify.ToolsSource(data), placeholders=(quoted,))
    flagged = [c for s in report.subjects for c in s.checks if c.status == "fail"]
    assert {c.id for c in flagged} == {"tools.capture.reader-environment"}
    assert report.exit_code == 1
    assert quoted not in json.dumps([c.reason for c in flagged])


def test_skill_report_refuses_two_sources_and_an_entry_it_does_not_hold() -> None:
    listing = (FIXTURES / "skills" / "listing.json").read_bytes()
    skill = sealverify.FetchedSkill(b"---\nname: x\n---\n")
    with pytest.raises(sealverify.OptionError, match=re.escape("either --dir or SKILL.md")):
        sealverify.skill_report(listing, tree=sealverify.SkillTree({}), skill=skill)
    with pytest.raises(sealverify.OptionError, match=re.escape("--entry skill://other/SKILL.md")):
        sealverify.skill_report(listing, skill=skill, entry="skill://other/SKILL.md")
    with pytest.raises(sealverify.InputError, match=re.escape("--listing l.json: not strict JSON")):
        sealverify.skill_report(b"{", listing_name="l.json")


def test_a_skill_fetched_with_other_bytes_fails() -> None:
    root = FIXTURES / "skills" / "dir" / "release-notes"
    listing = (FIXTURES / "skills" / "listing.json").read_bytes()
    entry = (root / "templates" / "entry.md").read_bytes()
    good = sealverify.FetchedSkill(
        (root / "SKILL.md").read_bytes(),
        resources=(sealverify.ResourceFile("templates/entry.md", entry),),
    )
    assert sealverify.skill_report(listing, skill=good).exit_code == 0
    changed = sealverify.FetchedSkill(
        good.skill_md, resources=(sealverify.ResourceFile("templates/entry.md", entry + b" "),)
    )
    report = sealverify.skill_report(listing, skill=changed)
    assert report.exit_code == 1


def test_partition_emit_signs_only_what_it_would_record() -> None:
    frame = sealverify.select_frame((FIXTURES / "partition" / "frame.bin").read_bytes())
    unsigned = sealverify.partition_emit(frame)
    signed = sealverify.partition_emit(frame, seed=bytes(32))
    assert unsigned.payload is not None and signed.payload is not None
    assert json.loads(signed.payload)["record"] == json.loads(unsigned.payload)
    null_meta = (FIXTURES / "frames" / "refused-meta-null.bin").read_bytes()
    refused = sealverify.partition_emit(sealverify.select_frame(null_meta), seed=bytes(32))
    assert (refused.payload, refused.exit_code) == (None, 1)
    with pytest.raises(sealverify.OptionError, match="policy"):
        sealverify.partition_emit(frame, "commit-nothing")


@pytest.mark.parametrize(
    ("transport", "index", "why"),
    [("stdio", 1, "--index 1: f.bin holds 1 frame"), ("http", 1, "stdio streams only")],
)
def test_select_frame_refuses_an_index_the_input_does_not_hold(
    transport: str, index: int, why: str
) -> None:
    data = (FIXTURES / "partition" / "frame.bin").read_bytes()
    with pytest.raises(sealverify.OptionError, match=why):
        sealverify.select_frame(data, transport, index, "f.bin")


def test_frame_stream_report_refuses_an_index_past_the_input() -> None:
    frames = sealverify.split_stdio((FIXTURES / "frames" / "call.bin").read_bytes() * 2)
    with pytest.raises(sealverify.OptionError, match=re.escape("--index 5: the input has 2 frame")):
        sealverify.frame_stream_report("two", iter(frames), indexes=(0, 5))


def test_frame_stream_report_fails_a_refused_frame_among_admissible_ones() -> None:
    data = (FIXTURES / "frames" / "call.bin").read_bytes()
    data += (FIXTURES / "frames" / "refused-meta-null.bin").read_bytes()
    report = sealverify.frame_stream_report("two", iter(sealverify.split_stdio(data)))
    assert [s.outcome for s in report.subjects] == ["ADMISSIBLE", "REFUSE"]
    assert report.exit_code == 1


def test_diff_inputs_refuses_a_reply_that_answers_another_request() -> None:
    a = sealverify.DiffInput((FIXTURES / "frames" / "call.bin").read_bytes(), "a.bin")
    reply = b'{"jsonrpc":"2.0","id":"someone-else","result":{"content":[]}}\n'
    options = sealverify.DiffOptions(reply=reply, reply_name="reply.bin")
    with pytest.raises(
        sealverify.DiffInputError, match=re.escape("reply.bin: no response to A's id")
    ):
        sealverify.diff_inputs(a, a, options)


def test_diff_inputs_judges_a_frame_under_the_server_it_is_given() -> None:
    receipt = (FIXTURES / "demo" / "receipts" / "verified-block.receipt.json").read_bytes()
    call = (FIXTURES / "frames" / "call.bin").read_bytes()
    a = sealverify.DiffInput(receipt, "r.json")
    own = sealverify.diff_inputs(a, sealverify.DiffInput(call, "c.bin", server="mine"))
    both = sealverify.diff_inputs(
        a, sealverify.DiffInput(call, "c.bin"), sealverify.DiffOptions(server="both")
    )
    assert own.subjects[0].facts["b"]["server_from"] == "--server-b"
    assert both.subjects[0].facts["b"]["server_from"] == "--server"
    # A receipt side keeps its own kernel_config under --server (--server-a overrides it).
    assert both.subjects[0].facts["a"]["server_from"] == "kernel_config.server"

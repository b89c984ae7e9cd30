"""`sealverify diff`: real SDK frames and seal receipts, hand-made variants, and properties."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sealverify._internal.cli.main import cli
from sealverify._internal.forensics import diff_report, json_diff, load_side, meta_key_rows
from sealverify._internal.mcp.keytable import KEY_TABLE
from tests.conftest import shared_path

SDK = ("frames", "mcp-python-sdk-2.3.0")
OBJECT_B = ("fixtures", "seal", "seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json")
LIVE = ("fixtures", "seal", "seal-live-demo", "evidence", "receipts.jsonl")


def run(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["diff", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert report["exit_code"] == result.exit_code
    return result.exit_code, report["subjects"][0]["facts"]


def first_line(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: data.index(b"\n") + 1]


# --------------------------------------------------------------------------- real SDK frames


@pytest.mark.parametrize("variant", ["modern-diff-traceparent", "modern-diff-progresstoken"])
def test_same_action_pairs_name_the_differing_key(variant: str) -> None:
    base = shared_path(*SDK, "modern-diff-base.c2s.bin")
    other = shared_path(*SDK, f"{variant}.c2s.bin")
    # Expected keys from an independent parse of frame 0 of each capture.
    meta_a = json.loads(first_line(base))["params"]["_meta"]
    meta_b = json.loads(first_line(other))["params"]["_meta"]
    expected = sorted(k for k in meta_a.keys() | meta_b.keys() if meta_a.get(k) != meta_b.get(k))
    assert len(expected) == 1
    code, facts = run(str(base), str(other))
    assert code == 1
    assert facts["verdict"] == "same-action"
    assert facts["verdict_text"] == (
        f"same action, different invocation (metadata only: {expected[0]})"
    )
    assert [row["key"] for row in facts["meta_keys"]] == expected
    assert [c["pointer"] for c in facts["meaning"]["changes"]] == [f"/params/_meta/{expected[0]}"]
    ids = facts["identities"]
    for same in (
        "args_hash",
        "legacy_canonical_request_sha256",
        "effect_v3",
        "guard_target_legacy",
    ):
        assert ids[same]["equal"] is True, same
    for differs in (
        "exact_frame_sha256",
        "canonical_request_sha256",
        "guard_target_meta_all",
        "effect_v4",
    ):
        assert ids[differs]["equal"] is False, differs
    # Frame 0 was chosen automatically, and the report says so.
    assert any("first tools/call" in note for note in facts["a"]["notes"])


def test_same_action_table_has_the_verdict_line() -> None:
    base = shared_path(*SDK, "modern-diff-base.c2s.bin")
    other = shared_path(*SDK, "modern-diff-traceparent.c2s.bin")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["diff", str(base), str(other)])
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "== modern-diff-base.c2s.bin vs modern-diff-traceparent.c2s.bin: "
        "same action, different invocation (metadata only: traceparent)"
    )
    assert "excluded from authority identity" in result.stdout
    assert "inert" not in result.stdout


def test_crlf_copy_names_the_terminator() -> None:
    original = shared_path(*SDK, "modern-rich-meta-string-token.c2s.bin")
    crlf = shared_path(*SDK, "malformed", "crlf-terminated.bin")
    lf = first_line(original)
    assert crlf.read_bytes() == lf[:-1] + b"\r\n"  # the corpus's own claim, checked here
    code, facts = run(str(original), str(crlf))
    assert code == 0
    assert facts["verdict"] == "same-invocation"
    bytes_facts = facts["bytes"]
    assert (bytes_facts["terminator_a"], bytes_facts["terminator_b"]) == ("LF", "CRLF")
    assert bytes_facts["first_difference_offset"] == len(lf) - 1
    assert (bytes_facts["length_a"], bytes_facts["length_b"]) == (len(lf), len(lf) + 1)
    assert bytes_facts["window_b_hex"].endswith("0d 0a")
    assert facts["meaning"]["summary"] == "terminator only (LF vs CRLF)"
    assert facts["identities"]["exact_frame_sha256"]["equal"] is False
    assert facts["identities"]["raw_line_sha256"]["equal"] is True


def test_whitespace_only_reserialization_is_same_invocation(tmp_path: Path) -> None:
    line = first_line(shared_path(*SDK, "modern-diff-base.c2s.bin"))
    spaced = json.dumps(json.loads(line), separators=(" , ", " :\t"), ensure_ascii=False)
    copy_path = tmp_path / "spaced.bin"
    copy_path.write_bytes(b"  " + spaced.encode() + b" \n")
    code, facts = run(str(shared_path(*SDK, "modern-diff-base.c2s.bin")), str(copy_path))
    assert code == 0
    assert facts["verdict"] == "same-invocation"
    assert facts["meaning"]["summary"] == "whitespace only"
    assert facts["meaning"]["changes"] == []


def test_mrtr_retry_is_legitimate() -> None:
    capture = shared_path(*SDK, "modern-mrtr-retry.c2s.bin")
    code, facts = run(str(capture), str(capture), "--index-a", "0", "--index-b", "1")
    assert code == 1
    assert facts["retry"]["state"] == "legitimate"
    assert facts["retry"]["unchecked"]  # requestState echo needs the server's reply
    assert facts["verdict_text"] == (
        "same action, different invocation (MRTR context: inputResponses, requestState)"
    )


def test_mrtr_retry_with_reply_checks_the_echo(tmp_path: Path) -> None:
    capture = shared_path(*SDK, "modern-mrtr-retry.c2s.bin")
    reply = shared_path(*SDK, "modern-mrtr-retry.s2c.bin")
    code, facts = run(
        str(capture), str(capture), "--index-a", "0", "--index-b", "1", "--reply-a", str(reply)
    )
    assert code == 1
    assert facts["retry"] == {
        "state": "legitimate",
        "reasons": [],
        "unchecked": [],
        "volatile_keys_changed": [],
    }
    lines = capture.read_bytes().split(b"\n")
    retry = json.loads(lines[1])
    retry["params"]["requestState"] += "x"
    tampered = tmp_path / "tampered.bin"
    tampered.write_bytes(
        lines[0]
        + b"\n"
        + json.dumps(retry, separators=(",", ":"), ensure_ascii=False).encode()
        + b"\n"
    )
    _, facts = run(
        str(tampered), str(tampered), "--index-a", "0", "--index-b", "1", "--reply-a", str(reply)
    )
    assert facts["retry"]["state"] == "not-legitimate"
    assert any("requestState" in r for r in facts["retry"]["reasons"])


def test_retry_that_changes_bound_metadata_is_not_legitimate(tmp_path: Path) -> None:
    capture = shared_path(*SDK, "modern-mrtr-retry.c2s.bin")
    lines = capture.read_bytes().split(b"\n")
    retry = json.loads(lines[1])
    retry["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug"
    retry["params"]["_meta"]["traceparent"] = (
        "00-3c2d1e0f4b5a69788796a5b4c3d2e1f0-0000000000000001-01"
    )
    path = tmp_path / "retry.bin"
    path.write_bytes(lines[0] + b"\n" + json.dumps(retry, ensure_ascii=False).encode() + b"\n")
    _, facts = run(str(path), str(path), "--index-a", "0", "--index-b", "1")
    assert facts["retry"]["state"] == "not-legitimate"
    assert facts["retry"]["reasons"] == [
        "non-volatile _meta differs: io.modelcontextprotocol/logLevel"
    ]
    assert facts["retry"]["volatile_keys_changed"] == ["traceparent"]


def test_different_tool_is_a_different_action() -> None:
    base = shared_path(*SDK, "modern-diff-base.c2s.bin")
    other = shared_path(*SDK, "modern-mrtr-retry.c2s.bin")
    code, facts = run(str(base), str(other))
    assert (code, facts["verdict"]) == (1, "different-action")
    pointers = {c["pointer"] for c in facts["meaning"]["changes"]}
    assert {"/params/name", "/params/arguments/query", "/params/arguments/dataset"} <= pointers


# --------------------------------------------------------------------------- receipts


def test_receipt_against_its_own_object_a(tmp_path: Path) -> None:
    receipt = shared_path(*OBJECT_B)
    doc = json.loads(receipt.read_bytes())
    frame = tmp_path / "object_a.bin"
    frame.write_bytes(base64.b64decode(doc["signed_artifacts"]["object_a"]))
    code, facts = run(str(receipt), str(frame))
    assert (code, facts["verdict"]) == (0, "identical-bytes")
    assert facts["a"]["kind"] == "receipt"
    assert facts["a"]["frame_from"] == "signed_artifacts.object_a"


def receipt_checks(*args: str) -> dict[str, str]:
    result = CliRunner().invoke(cli, ["diff", *args, "--format", "json"])
    checks = json.loads(result.stdout)["subjects"][0]["checks"]
    return {
        c["id"]: c["status"]
        for c in checks
        if c["id"].startswith("diff.receipt.") and c.get("location", "").startswith("A:")
    }


def test_receipt_integrity_passes_on_the_real_receipt() -> None:
    receipt = str(shared_path(*OBJECT_B))
    assert receipt_checks(receipt, receipt) == {
        "diff.receipt.args-hash": "pass",
        "diff.receipt.canonical-request-frame": "pass",
        "diff.receipt.canonical-request-sha256": "pass",
        "diff.receipt.framed-subject-length": "pass",
        "diff.receipt.framed-subject-sha256": "pass",
        "diff.receipt.request-sha256": "pass",
    }


@pytest.mark.parametrize(
    ("field", "value", "check"),
    [
        ("args_hash", "0" * 64, "diff.receipt.args-hash"),
        ("canonical_request_sha256", "1" * 64, "diff.receipt.canonical-request-sha256"),
        ("framed_subject_sha256", "2" * 64, "diff.receipt.framed-subject-sha256"),
        ("framed_subject_length", 112, "diff.receipt.framed-subject-length"),
        ("request_sha256", "3" * 64, "diff.receipt.request-sha256"),
        ("arguments", {"command": "rm -rf /tmp"}, "diff.receipt.args-hash"),
    ],
)
def test_receipt_with_broken_hash_is_reported_not_diffed(
    tmp_path: Path, field: str, value: object, check: str
) -> None:
    doc = json.loads(shared_path(*OBJECT_B).read_bytes())
    doc[field] = value
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    good = str(shared_path(*OBJECT_B))
    code, facts = run(str(bad), good)
    assert code == 1
    assert facts["verdict"] == "receipt-integrity-failed"
    assert "meaning" not in facts and "bytes" not in facts
    assert receipt_checks(str(bad), good)[check] == "fail"


def test_release_frame_is_unspliced(tmp_path: Path) -> None:
    doc = json.loads(shared_path(*OBJECT_B).read_bytes())
    object_a = base64.b64decode(doc["signed_artifacts"]["object_a"])
    operation_id = doc["operation_id"]
    # seal-host release.rs splice, written out independently: member before the last brace.
    assert object_a.endswith(b"}\n")
    released = object_a[:-2] + f',"operation_id":"{operation_id}"'.encode() + b"}\n"
    del doc["signed_artifacts"]
    doc["release_frame"] = {
        "encoding": "base64",
        "length": len(released),
        "sha256": hashlib.sha256(released).hexdigest(),
        "base64": base64.b64encode(released).decode(),
    }
    receipt = tmp_path / "released.json"
    receipt.write_text(json.dumps(doc), encoding="utf-8")
    frame = tmp_path / "object_a.bin"
    frame.write_bytes(object_a)
    code, facts = run(str(receipt), str(frame))
    assert (code, facts["verdict"]) == (0, "identical-bytes")
    assert "operation_id member removed" in facts["a"]["frame_from"]
    # The real receipt's framed_subject_sha256 confirms the un-spliced bytes.
    assert receipt_checks(str(receipt), str(frame))["diff.receipt.framed-subject-sha256"] == "pass"


def test_live_receipts_drift() -> None:
    live = str(shared_path(*LIVE))
    rows = [json.loads(line) for line in Path(live).read_text().splitlines()]
    assert rows[1]["arguments"] == rows[2]["arguments"] and rows[1]["verdict"] != rows[2]["verdict"]
    code, facts = run(live, live, "--index-a", "1", "--index-b", "2")
    assert code == 1
    assert facts["verdict"] == "same-invocation"
    fields = {f["pointer"]: f["class"] for f in facts["receipt_fields"]}
    assert fields["/verdict"] == "authorization-surface"
    assert fields["/bypass"] == "authorization-surface"
    assert fields["/gateway/ts_mono_ms"] == "minor"
    assert "authorization-surface drift in" in facts["verdict_text"]
    code, facts = run(live, live, "--index-a", "0", "--index-b", "1")
    assert (code, facts["verdict"]) == (1, "different-action")


def test_receipt_against_itself_without_frame_bytes() -> None:
    live = str(shared_path(*LIVE))
    code, facts = run(live, live)
    assert code == 0
    assert facts["verdict"] == "same-invocation"
    assert facts["receipt_fields"] == []


# --------------------------------------------------------------------------- exit 2


def test_unreadable_inputs_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    frame = tmp_path / "f.bin"
    frame.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    runner = CliRunner()
    for args in (
        [str(tmp_path / "missing.bin"), str(frame)],
        [str(empty), str(frame)],
        [str(frame), str(frame), "--index-b", "3"],
    ):
        result = runner.invoke(cli, ["diff", *args], standalone_mode=False)
        # a usage error, or what could not run (cli/main.py): one line and exit 2 either way
        assert isinstance(result.exception, click.ClickException), result.exception
        assert result.exception.exit_code == 2
    script = shutil.which("sealverify")
    if script is not None:  # the installed entry point maps usage errors to exit 2
        done = subprocess.run(
            [script, "diff", str(empty), str(frame)], capture_output=True, check=False, timeout=60
        )
        assert done.returncode == 2, done.stderr


def test_malformed_frames_are_a_finding_not_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":\n')
    code, facts = run(str(bad), str(bad))
    assert (code, facts["verdict"]) == (0, "identical-bytes")
    good = tmp_path / "good.bin"
    good.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n')
    code, facts = run(str(bad), str(good))
    assert (code, facts["verdict"]) == (1, "not-comparable")


# --------------------------------------------------------------------------- wording, purity


def test_meta_key_rows_never_say_inert() -> None:
    from sealverify._internal.forensics import Change

    changes = [
        Change(f"/params/_meta/{k.replace('/', '~1')}", "changed", "x", "y")
        for k in [*KEY_TABLE, "com.example/unknown"]
    ]
    rows = meta_key_rows(changes)
    assert len(rows) == len(KEY_TABLE) + 1
    assert all("inert" not in json.dumps(row) for row in rows)
    by_key = {row["key"]: row for row in rows}
    for key, info in KEY_TABLE.items():
        expected = (
            "excluded from authority identity" if info.option_c == "excluded" else "committed"
        )
        assert by_key[key]["option_c"].startswith(expected)
        assert by_key[key]["option_a"] == "changes authority identity"
    unknown = by_key["com.example/unknown"]["option_c"]
    assert "excluded" not in unknown and "C-refuse-unknown" in unknown and "refused" in unknown
    committed = {r["key"]: r for r in meta_key_rows(changes, "commit")}["com.example/unknown"]
    assert committed["option_c"].startswith("unknown key: committed")
    assert "C-commit-unknown" in committed["option_c"]
    # The policy only changes the unknown key's row.
    assert [r for r in rows if r["in_key_table"]] == [
        r for r in meta_key_rows(changes, "commit") if r["in_key_table"]
    ]
    with pytest.raises(ValueError):
        meta_key_rows(changes, "exclude")


def test_core_imports_no_cli_libraries() -> None:
    code = (
        "import sys, sealverify._internal.forensics; assert 'click' not in sys.modules; "
        "assert 'tabulate' not in sys.modules"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --------------------------------------------------------------------------- properties

KEYS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    min_size=1,
    max_size=8,
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31),
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
ARGUMENTS = st.dictionaries(KEYS, VALUES, max_size=5)
META_BASE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
PROGRESS = st.one_of(st.none(), st.text(alphabet="abc123", min_size=1, max_size=6))


def frame(
    arguments: dict[str, Any],
    token: str | None = None,
    tool: str = "t",
    separators: tuple[str, str] = (",", ":"),
) -> bytes:
    meta = dict(META_BASE)
    if token is not None:
        meta["progressToken"] = token
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"_meta": meta, "name": tool, "arguments": arguments},
    }
    return json.dumps(message, separators=separators, ensure_ascii=False).encode() + b"\n"


def compare(a: bytes, b: bytes) -> dict[str, Any]:
    report = diff_report(load_side(a, "A", "a"), load_side(b, "B", "b"))
    facts = report.subjects[0].facts
    facts["exit_code"] = report.exit_code
    return facts


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)


@SETTINGS
@given(ARGUMENTS, PROGRESS)
def test_property_diff_with_itself_is_identical(
    arguments: dict[str, Any], token: str | None
) -> None:
    data = frame(arguments, token)
    facts = compare(data, data)
    assert facts["verdict"] == "identical-bytes"
    assert facts["exit_code"] == 0
    assert facts["meaning"]["changes"] == []


@SETTINGS
@given(ARGUMENTS, ARGUMENTS, PROGRESS, PROGRESS, st.sampled_from(["t", "u"]))
def test_property_diff_names_the_same_paths_both_ways(
    args_a: dict[str, Any], args_b: dict[str, Any], tok_a: str | None, tok_b: str | None, tool: str
) -> None:
    a, b = frame(args_a, tok_a), frame(args_b, tok_b, tool)
    forward, backward = compare(a, b), compare(b, a)
    paths = sorted(c["pointer"] for c in forward["meaning"]["changes"])
    assert paths == sorted(c["pointer"] for c in backward["meaning"]["changes"])
    assert forward["verdict"] == backward["verdict"]
    assert [r["key"] for r in forward["meta_keys"]] == [r["key"] for r in backward["meta_keys"]]
    assert ("/params/_meta/progressToken" in paths) == (tok_a != tok_b)


@SETTINGS
@given(ARGUMENTS, PROGRESS, st.sampled_from([(", ", ": "), (" ,", " : "), (",\t", ":\t")]))
def test_property_whitespace_only_is_same_invocation(
    arguments: dict[str, Any], token: str | None, separators: tuple[str, str]
) -> None:
    a, b = frame(arguments, token), frame(arguments, token, separators=separators)
    facts = compare(a, b)
    assert facts["exit_code"] == 0
    if a != b:
        assert facts["verdict"] == "same-invocation"
        assert facts["meaning"]["summary"] == "whitespace only"


@SETTINGS
@given(st.dictionaries(KEYS, VALUES, min_size=2, max_size=5), st.randoms(use_true_random=False))
def test_property_member_reorder_keeps_action_identities(
    arguments: dict[str, Any], rng: Any
) -> None:
    keys = list(arguments)
    shuffled = keys[:]
    while shuffled == keys:
        rng.shuffle(shuffled)
    reordered = {k: arguments[k] for k in shuffled}
    facts = compare(frame(arguments), frame(reordered))
    ids = facts["identities"]
    assert ids["canonical_request_sha256"]["equal"] is False
    assert ids["args_hash"]["equal"] is False
    for same in (
        "guard_target_meta_all",
        "guard_target_seal_host",
        "guard_target_legacy",
        "effect_v3",
        "effect_v4",
    ):
        assert ids[same]["equal"] is True, same
    assert facts["verdict"] == "same-action"
    assert {"pointer": "/params/arguments", "change": "member-order"} in facts["meaning"]["changes"]


def test_json_diff_names_member_order_and_number_spelling() -> None:
    from sealverify._internal.wire.strictjson import parse_bytes

    a = parse_bytes(b'{"x":1.0,"y":[1,2],"z":{"p":1,"q":2}}')
    b = parse_bytes(b'{"x":1.00,"y":[1],"z":{"q":2,"p":1},"w":true}')
    got = [(c.pointer, c.change) for c in json_diff(a, b)]
    assert got == [
        ("/w", "added"),
        ("/x", "number-spelling"),
        ("/y/1", "removed"),
        ("/z", "member-order"),
    ]
    top = [
        (c.pointer, c.change)
        for c in json_diff(parse_bytes(b'{"a":1,"b":2}'), parse_bytes(b'{"b":2,"a":1}'))
    ]
    assert top == [("", "member-order")]


def test_json_diff_is_deterministic_on_copies() -> None:
    value = {"a": [1, {"b": None}]}
    assert json_diff(value, copy.deepcopy(value)) == []


# --------------------------------------------------------------------------- edited receipts


def _edited_pair(tmp_path: Path) -> tuple[str, str]:
    """A minted receipt and a copy whose arguments were edited after signing (not re-signed)."""
    from sealverify_testkit import mint

    frame = mint.tools_call_frame("shell", '{"command":"ls /srv","cwd":"/srv"}', request_id=7)
    intact = mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG)
    edited = mint.parse_record(intact)
    edited["arguments"] = {"command": "rm -rf /srv", "cwd": "/srv"}
    a, b = tmp_path / "intact.json", tmp_path / "edited.json"
    a.write_bytes(intact)
    b.write_bytes(mint.render_pretty(edited))
    return str(a), str(b)


def test_edited_receipt_names_the_edited_member_under_the_refusal(tmp_path: Path) -> None:
    a, b = _edited_pair(tmp_path)
    code, facts = run(a, b)
    assert (code, facts["verdict"]) == (1, "receipt-integrity-failed")
    assert "meaning" not in facts and "bytes" not in facts  # the invocations are not compared
    assert facts["receipt_fields"] == [
        {
            "pointer": "/arguments/command",
            "change": "changed",
            "a": '"ls /srv"',
            "b": '"rm -rf /srv"',
            "class": "authorization-surface",
        }
    ]
    table = CliRunner().invoke(cli, ["diff", a, b])
    assert table.exit_code == 1
    assert "/arguments/command" in table.stdout and '"rm -rf /srv"' in table.stdout
    assert "None" not in table.stdout
    html = CliRunner().invoke(cli, ["diff", a, b, "--format", "html"])
    assert "None" not in html.stdout and "True" not in html.stdout
    assert "/arguments/command" in html.stdout.split('id="bytes"')[0]  # under the verdict
    assert "byte offset" not in html.stdout

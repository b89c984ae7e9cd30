"""`sealverify diff`: the option-C unknown-key policy, the server per side, JSON in the table."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sealverify_testkit.mint import (
    DEMO_KERNEL_CONFIG,
    mint_fleet_v2,
    mint_host_v3,
    tools_call_frame,
)

from sealverify._internal.cli.main import cli
from sealverify._internal.mcp.keytable import KEY_TABLE
from sealverify._internal.primitives import identities
from sealverify._internal.wire.strictjson import parse_bytes
from tests.conftest import shared_path

SDK = ("frames", "mcp-python-sdk-2.3.0")
RICH = "modern-rich-meta-string-token.c2s.bin"
OBJECT_B = ("fixtures", "seal", "seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json")


def invoke(*args: str) -> tuple[int, str]:
    # wide enough that a reason's quoted values stay on one line of the table
    result = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["diff", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.stdout


def facts_of(*args: str) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    code, out = invoke(*args, "--format", "json")
    subject = json.loads(out)["subjects"][0]
    return code, subject["facts"], subject["checks"]


def first_frame(path: Path) -> bytes:
    data = path.read_bytes()
    return data[: data.index(b"\n") + 1]


@pytest.fixture
def rich_pair(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A real SDK frame with unknown _meta keys, and a copy with one unknown value changed."""
    frame = first_frame(shared_path(*SDK, RICH))
    assert b'"com.example/request-purpose":"compliance-review"' in frame
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(frame)
    b.write_bytes(frame.replace(b'"compliance-review"', b'"marketing-export"'))
    meta = json.loads(frame)["params"]["_meta"]
    unknown = sorted(k for k in meta if k not in KEY_TABLE)
    return a, b, unknown


def test_unknown_keys_refuse_is_the_default_and_names_both_sides(
    rich_pair: tuple[Path, Path, list[str]],
) -> None:
    a, b, unknown = rich_pair
    assert "com.example/request-purpose" in unknown
    code, facts, checks = facts_of(str(a), str(b))
    (row,) = [r for r in facts["meta_keys"] if r["key"] == "com.example/request-purpose"]
    assert row["in_key_table"] is False
    assert row["option_c"] == (
        "unknown key: the request is refused before authority (C-refuse-unknown)"
    )
    view = facts["option_c"]
    assert view["policy"] == "C-refuse-unknown"
    for side in ("a", "b"):
        assert view[side] == {"unknown": unknown, "reading": "refused before authority"}
    notes = [c for c in checks if c["id"] == "diff.option-c"]
    assert [c["location"] for c in notes] == ["A", "B"]
    assert all("C-refuse-unknown" in c["reason"] for c in notes)
    # The policy reads option C; the verdict follows the identities seal binds.
    assert (code, facts["verdict"]) == (1, "same-action")


def test_unknown_keys_commit_changes_only_the_option_c_reading(
    rich_pair: tuple[Path, Path, list[str]],
) -> None:
    a, b, unknown = rich_pair
    refuse = facts_of(str(a), str(b), "--unknown-keys", "refuse")
    commit = facts_of(str(a), str(b), "--unknown-keys", "commit")
    (row,) = [r for r in commit[1]["meta_keys"] if r["key"] == "com.example/request-purpose"]
    assert row["option_c"] == (
        "unknown key: committed, changes authority identity (C-commit-unknown)"
    )
    assert commit[1]["option_c"]["a"] == {
        "unknown": unknown,
        "reading": "admitted: unknown keys committed to authority identity",
    }
    for key in ("verdict", "verdict_text", "identities", "meaning", "bytes"):
        assert refuse[1][key] == commit[1][key]
    assert refuse[0] == commit[0]


def test_unknown_keys_rejects_other_policies(rich_pair: tuple[Path, Path, list[str]]) -> None:
    a, b, _ = rich_pair
    result = CliRunner().invoke(cli, ["diff", str(a), str(b), "--unknown-keys", "exclude"])
    assert result.exit_code == 2


def test_no_unknown_key_means_no_option_c_note(tmp_path: Path) -> None:
    frame = tools_call_frame("search_notes", '{"query":"a"}')
    (tmp_path / "a").write_bytes(frame)
    (tmp_path / "b").write_bytes(frame.replace(b'"a"', b'"b"'))
    _, facts, checks = facts_of(str(tmp_path / "a"), str(tmp_path / "b"))
    assert facts["option_c"]["a"] == {"unknown": [], "reading": "admitted: no unknown _meta key"}
    assert not [c for c in checks if c["id"] == "diff.option-c"]


# --------------------------------------------------------------------------- table is JSON

_REPR = re.compile(r"\b(True|False|None)\b|\{'|\['|': ")


def test_table_renders_values_as_json_never_python_reprs(
    rich_pair: tuple[Path, Path, list[str]],
) -> None:
    a, b, _ = rich_pair
    _, out = invoke(str(a), str(b))
    assert not _REPR.search(out), _REPR.search(out)
    lines = out.splitlines()
    assert any(re.fullmatch(r"a\.admissible\s+true", line) for line in lines)
    assert any(re.fullmatch(r"bytes\.identical\s+false", line) for line in lines)
    # Nested rows are walked by index, strings shown as written.
    assert any(re.fullmatch(r"meta_keys\.0\.key\s+\S+", line) for line in lines)
    assert any(re.fullmatch(r"option_c\.a\.unknown\.0\s+com\.example/\S+", line) for line in lines)


def test_integrity_reasons_quote_values_as_json(tmp_path: Path) -> None:
    frame = tools_call_frame("search_notes", '{"query":"x"}')
    receipt = json.loads(mint_host_v3(frame, DEMO_KERNEL_CONFIG))
    receipt["args_hash"] = "0" * 64
    path = tmp_path / "r.json"
    path.write_text(json.dumps(receipt))
    _, out = invoke(str(path), str(path))
    assert f'stored args_hash "{"0" * 64}"' in out
    assert not _REPR.search(out)


# --------------------------------------------------------------------------- server per side


def _config(server: str) -> str:
    return DEMO_KERNEL_CONFIG.replace('"sealverify-demo@1.0.0"', json.dumps(server))


@pytest.fixture
def two_servers(tmp_path: Path) -> tuple[Path, Path, bytes]:
    frame = tools_call_frame("shell_exec", '{"command":"ls"}')
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_bytes(mint_host_v3(frame, _config("alpha@1")))
    b.write_bytes(mint_host_v3(frame, _config("beta@2")))
    return a, b, frame


def test_each_receipt_is_judged_under_its_own_server(
    two_servers: tuple[Path, Path, bytes],
) -> None:
    a, b, frame = two_servers
    code, facts, _ = facts_of(str(a), str(b), "--server", "ignored-for-receipts")
    assert (facts["a"]["server"], facts["a"]["server_from"]) == ("alpha@1", "kernel_config.server")
    assert (facts["b"]["server"], facts["b"]["server_from"]) == ("beta@2", "kernel_config.server")
    params = parse_bytes(frame.rstrip(b"\n"))["params"]  # type: ignore[index]
    for side, server in (("a", "alpha@1"), ("b", "beta@2")):
        expected = identities.legacy_guard_target(params, server)
        assert facts["identities"]["guard_target_legacy"][side] == expected
        assert facts["identities"]["effect_v3"][side] == identities.effect_v3(params, server)
    assert facts["verdict"] == "different-action"
    assert facts["verdict_text"].startswith(
        'different action (the servers differ: "alpha@1" vs "beta@2")'
    )
    assert code == 1


def test_server_per_side_overrides_the_receipt_and_says_so(
    two_servers: tuple[Path, Path, bytes],
) -> None:
    a, b, _ = two_servers
    _, facts, checks = facts_of(str(a), str(b), "--server-a", "beta@2")
    assert (facts["a"]["server"], facts["a"]["server_from"]) == ("beta@2", "--server-a")
    assert facts["identities"]["effect_v3"]["equal"] is True
    # Same frame bytes under one server: identical bytes; the receipts still differ.
    assert facts["verdict"] == "identical-bytes"
    (note,) = [c for c in checks if c["id"] == "diff.note" and c["location"] == "A"]
    assert '"beta@2"' in note["reason"] and '"alpha@1"' in note["reason"]


def test_frame_against_a_receipt_takes_the_receipt_server(tmp_path: Path) -> None:
    receipt = shared_path(*OBJECT_B)
    doc = json.loads(receipt.read_bytes())
    import base64

    frame = tmp_path / "object_a.bin"
    frame.write_bytes(base64.b64decode(doc["signed_artifacts"]["object_a"]))
    server = doc["kernel_config"].get("server", "")
    _, facts, _ = facts_of(str(frame), str(receipt))
    assert facts["a"]["server"] == facts["b"]["server"] == server
    assert facts["a"]["server_from"] == "B's kernel_config.server"
    # An explicit server for the frame wins.
    _, facts, _ = facts_of(str(frame), str(receipt), "--server-a", "elsewhere")
    assert (facts["a"]["server"], facts["a"]["server_from"]) == ("elsewhere", "--server-a")
    assert facts["verdict"] == "different-action"


def test_two_frames_share_server_unless_told_apart(tmp_path: Path) -> None:
    frame = tools_call_frame("search_notes", '{"query":"a"}')
    (tmp_path / "f").write_bytes(frame)
    _, facts, _ = facts_of(str(tmp_path / "f"), str(tmp_path / "f"), "--server", "s@1")
    assert facts["a"]["server_from"] == facts["b"]["server_from"] == "--server"
    assert facts["verdict"] == "identical-bytes"
    code, facts, _ = facts_of(str(tmp_path / "f"), str(tmp_path / "f"), "--server-b", "s@2")
    assert (facts["a"]["server"], facts["b"]["server"]) == ("", "s@2")
    assert (code, facts["verdict"]) == (1, "different-action")


def test_fleet_receipt_without_frame_uses_its_kernel_config_server(tmp_path: Path) -> None:
    frame = tools_call_frame("search_notes", '{"query":"q"}')
    path = tmp_path / "fleet.json"
    path.write_bytes(mint_fleet_v2(frame, _config("fleet@3")))
    _, facts, _ = facts_of(str(path), str(path))
    params = parse_bytes(frame.rstrip(b"\n"))["params"]  # type: ignore[index]
    assert facts["a"]["server"] == "fleet@3"
    assert facts["identities"]["effect_v3"]["a"] == identities.effect_v3(params, "fleet@3")

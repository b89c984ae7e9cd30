"""The trusted config as the kernel loads it: canonical gate, strict keys, Lean's error order."""

from __future__ import annotations

import json

import pytest

from sealverify._internal.kernel.canonical import escape_string, is_canonical
from sealverify._internal.kernel.profiles import CURRENT, PROFILES
from sealverify._internal.kernel.session import KernelSession

SAFETY = {"approval": {"control_file": "/tmp/a", "ttl_seconds": 120}, "tools": []}


def init(payload: object, profile=CURRENT) -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    return KernelSession.init_trusted(text, profile).output


def error(payload: object, profile=CURRENT) -> str:
    out = json.loads(init(payload, profile))
    assert out["ok"] is False, out
    prefix = "trusted config rejected: "
    assert out["error"].startswith(prefix)
    return out["error"][len(prefix) :]


def test_summary_of_a_loaded_config() -> None:
    payload = {
        "epoch": 3,
        "safety": SAFETY,
        "consensus": {"roster": [1], "votes_file": "/v", "high_stakes": []},
        "calibration": {
            "enabled": False,
            "delta_num": 1,
            "delta_den": 20,
            "min_samples": 1,
            "records_file": "/f",
            "gated_tools": [],
        },
        "linear": {"enabled": False, "grants_file": "/g", "tools": []},
    }
    out = json.loads(init(payload))
    # Disabled sections collapse to absent, except calibration (present-but-disabled).
    assert out == {
        "ok": True,
        "epoch": 3,
        "approval_ttl_ms": 120000,
        "approval_file": "/tmp/a",
        "votes_file": "/v",
        "grants_file": "",
        "forecasts_file": "/f",
    }
    assert list(out) == sorted(out)  # Json.compress sorts keys


@pytest.mark.parametrize(
    ("ttl", "ms"), [(None, 120000), (0, 0), (300, 300000), (301, 300000), (10**6, 300000)]
)
def test_approval_ttl_defaults_and_clamp(ttl: int | None, ms: int) -> None:
    approval: dict[str, object] = {"control_file": "/a"}
    if ttl is not None:
        approval["ttl_seconds"] = ttl
    out = json.loads(init({"epoch": 1, "safety": {"approval": approval, "tools": []}}))
    assert out["approval_ttl_ms"] == ms


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (
            {"epoch": 1, "safety": SAFETY, "zeta": 1, "alpha": 1},
            "unknown key 'alpha' in policy bundle",
        ),
        ({"epoch": 0, "safety": SAFETY}, "config epoch must be ≥ 1"),
        ({"safety": SAFETY}, "property not found: epoch"),
        ({"epoch": 1.5, "safety": SAFETY}, "Natural number expected"),
        (
            {"epoch": 1.0, "safety": SAFETY},
            "config payload is not canonical (SealV2 parse rejected it)",
        ),
        ({"epoch": 1}, "property not found: safety"),
        ({"epoch": 1, "safety": {**SAFETY, "x": 1}}, "unknown key 'x' in safety section"),
        (
            {"epoch": 1, "safety": {"approval": {"control_file": "/a", "y": 1}, "tools": []}},
            "unknown key 'y' in safety approval",
        ),
        (
            {"epoch": 1, "server": "a", "safety": {**SAFETY, "server": "b"}},
            "server identity conflicts between trusted config and safety policy",
        ),
        ({"epoch": 1, "safety": {"approval": {}, "tools": []}}, "property not found: control_file"),
        (
            {"epoch": 1, "safety": {**SAFETY, "tools": [{"name": "t", "mode": "maybe"}]}},
            "unsupported tool mode: maybe",
        ),
        (
            {"epoch": 1, "safety": {**SAFETY, "tools": [{"name": "t", "mode": "guard"}]}},
            'guard mode requires target [{"full_arguments": true}]',
        ),
        (
            {
                "epoch": 1,
                "safety": {
                    **SAFETY,
                    "tools": [{"name": "t", "mode": "allow", "match": {"type": "regex"}}],
                },
            },
            "unsupported match type: regex",
        ),
        (
            {"epoch": 1, "safety": SAFETY, "temporal": {"policies": [{"name": "n", "type": "x"}]}},
            "unsupported temporal policy type: x",
        ),
        (
            {"epoch": 1, "safety": SAFETY, "temporal": {"policies": [{"name": "n"}]}},
            "property not found: type",
        ),
        (
            {
                "epoch": 1,
                "safety": SAFETY,
                "calibration": {
                    "delta_num": 2,
                    "delta_den": 2,
                    "min_samples": 1,
                    "records_file": "",
                    "gated_tools": [],
                },
            },
            "calibration delta must satisfy 0 < delta < 1",
        ),
        (
            {
                "epoch": 1,
                "safety": SAFETY,
                "budget": {
                    "budgets": [
                        {"name": "b", "cap": 1, "tools": []},
                        {"name": "b", "cap": 2, "tools": []},
                    ]
                },
            },
            "duplicate budget name with conflicting caps",
        ),
        (
            {
                "epoch": 1,
                "safety": SAFETY,
                "principals": {"keys": [{"id": "", "pubkey": "00" * 32}], "budgets": []},
            },
            "principal id must be non-empty",
        ),
        (
            {
                "epoch": 1,
                "safety": SAFETY,
                "principals": {"keys": [], "budgets": [{"name": "b", "cap": 1, "tools": []}]},
            },
            "inconsistent principals section (duplicate id, conflicting caps, or empty key "
            "registry)",
        ),
    ],
)
def test_error_precedence(payload: object, message: str) -> None:
    assert error(payload) == message


def test_temporal_rule_type_checked_before_later_fields() -> None:
    rule = {"name": "n", "type": "eventually", "trigger": [], "forbidden": []}
    payload = {"epoch": 1, "safety": SAFETY, "temporal": {"policies": [rule]}}
    assert error(payload) == "unsupported temporal policy type: eventually"


def test_strict_keys_inside_sections_but_not_inside_rules() -> None:
    rule = {"name": "t", "mode": "allow", "_comment": "kept", "match": {"type": "always", "x": 1}}
    assert json.loads(init({"epoch": 1, "safety": {**SAFETY, "tools": [rule]}}))["ok"]
    section = {"enabled": True, "policies": [], "extra": 1}
    assert error({"epoch": 1, "safety": SAFETY, "temporal": section}) == (
        "unknown key 'extra' in temporal section"
    )


def test_legacy_builds_accept_what_stage_a_refuses() -> None:
    tools = [{"name": "t", "mode": "guarded", "target": [{"literal": "db"}, {"arg": "a.b"}]}]
    payload = {"epoch": 1, "safety": {**SAFETY, "tools": tools}}
    assert "guard mode requires" in error(payload)
    legacy = PROFILES["d7d81e277ba0b5e9df385129d86abf6f7469e6da2a65bb2ec35626caa44ea2be"]
    assert json.loads(init(payload, legacy))["ok"] is True


def test_canonical_gate() -> None:
    assert is_canonical('{"a":[1,-2,0.5,true,null,"x"]}')
    assert is_canonical(' {\n "a" : 1 }\t')  # spacing is free, key order too
    for text in (
        '{"a":1e3}',
        '{"a":1.50}',
        '{"a":-0}',
        '{"a":01}',
        '{"a":"\\/"}',
        '{"a":"\\u00E9"}',
        '{"a":"é"}',
        '{"a":"\\u0041"}',
        '{"a":"\\u000a"}',
        '{"a":1,"a":2}',
        '{"a":[1,]}',
        '{"a":1}x',
        '{"a":"\\ud800"}',
        "",
    ):
        assert not is_canonical(text), text
    assert is_canonical('{"a":"\\u00e9\\u007f\\ud83d\\ude00\\n"}')
    assert error('{"epoch":1e0,"safety":{}}') == (
        "config payload is not canonical (SealV2 parse rejected it)"
    )


def test_escape_string_round_trips_through_the_gate() -> None:
    for text in ("plain", 'q"b\\', "\n\t\r\b\f\x01\x7f", "é😀", "\u2028"):
        assert is_canonical('"' + escape_string(text) + '"')
        assert json.loads('"' + escape_string(text) + '"') == text


def test_config_signature_is_verified_at_init() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw().hex()
    payload = json.dumps({"epoch": 1, "safety": SAFETY}, separators=(",", ":"))
    envelope = {"payload": payload, "signature": key.sign(payload.encode()).hex()}
    good = KernelSession.init(json.dumps(envelope), public, CURRENT)
    assert good.session is not None
    forged = {**envelope, "payload": payload.replace('"epoch":1', '"epoch":2')}
    bad = KernelSession.init(json.dumps(forged), public, CURRENT)
    assert bad.session is None
    assert json.loads(bad.output)["error"] == (
        "trusted config rejected: config signature verification failed"
    )
    missing = KernelSession.init(json.dumps({"payload": payload}), public, CURRENT)
    assert "property not found: signature" in missing.output

"""Published keys: every listed key rebuilt from its published secret, and what a pin on one gives.

The list (sealverify.publishedkeys) must not hold a typo: each public key is derived here from
its seed recipe with an independent reading of the recipe; the RFC 8032 secrets are stated
below from the RFC; the Wycheproof secrets must re-sign every valid vector of ../shared; the
seal fixtures' keys are all accounted for; the testkit keys are all listed.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from sealverify_testkit import keys, mint
from sealverify_testkit.mintfixtures import _DEMO_META

from sealverify._internal.cli.main import cli
from sealverify._internal.partition import records as partition
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.spine import commitments, signing_message
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VOCABULARY,
    VerifyOptions,
    build_report,
    verify_found,
    verify_receipt,
)
from sealverify._internal.results.model import Check, Subject, fail, info, not_evaluated, passed
from sealverify._internal.results.outcomes import Outcome, decide
from sealverify._internal.wire.framing import frame_of
from sealverify._internal.wire.strictjson import JsonNumber, parse_bytes
from sealverify.formats import render
from tests.conftest import ROOT, shared_path

RFC1 = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
DEMO = ROOT / "fixtures" / "demo"
DEMO_WASM = mint.HostContext().wasm_sha256
KEYS = {key.public_key: key for key in publishedkeys.KEYS}


def _seed(recipe: str) -> bytes:
    """The recipe grammar of the module docstring, read independently of the module."""
    kind, _, arg = recipe.partition(":")
    if kind == "hex":
        assert re.fullmatch(r"[0-9a-f]{64}", arg), recipe
        return bytes.fromhex(arg)
    if kind == "fill":
        assert re.fullmatch(r"[0-9a-f]{2}", arg), recipe
        return bytes([int(arg, 16)]) * 32
    if kind == "range":
        assert re.fullmatch(r"[0-9a-f]{2}", arg), recipe
        return bytes(range(int(arg, 16), int(arg, 16) + 32))
    assert kind == "sha256" and arg, recipe
    return hashlib.sha256(arg.encode()).digest()


def _public(seed: bytes) -> str:
    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw().hex()


def _sources(kind: str) -> dict[str, str]:
    """Each key with a source of ``kind``, and that source's argument (tcIds, a name...)."""
    found: dict[str, str] = {}
    for key in publishedkeys.KEYS:
        for source in key.sources:
            if source.startswith(kind + ":"):
                found[key.public_key] = source.split(":", 1)[1]
    return found


# --- the list rebuilds ---------------------------------------------------------------------


def test_every_listed_key_rebuilds_from_its_seed() -> None:
    assert len(publishedkeys.KEYS) == len(KEYS) == 78  # one entry per key
    # Wycheproof keys carry no secret here (the next-but-two test holds them to the vectors).
    seeded = [key for key in publishedkeys.KEYS if key.seed != "vector:wycheproof"]
    assert all(
        key.sources[0].startswith("wycheproof:")
        for key in publishedkeys.KEYS
        if key.seed == "vector:wycheproof"
    )
    seeds = [_seed(key.seed) for key in seeded]
    assert len(set(seeds)) == len(seeds)
    for key, seed in zip(seeded, seeds, strict=True):
        assert _public(seed) == key.public_key, key.seed
    for key in publishedkeys.KEYS:
        assert key.sources and len(set(key.sources)) == len(key.sources)
        for source in key.sources:
            assert publishedkeys.describe_source(source)  # every kind and repository is known


# RFC 8032 §7.1-§7.3, stated from the RFC: secret key, public key, and for §7.1 TEST 1-3 the
# message and signature, which only the right secret reproduces.
RFC8032 = [
    (
        "7.1-TEST-1",
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        RFC1,
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "7.1-TEST-2",
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "7.1-TEST-3",
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    (
        "7.1-TEST-1024",
        "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
        "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
        None,
        None,
    ),
    (
        "7.1-TEST-SHA(abc)",
        "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        None,
        None,
    ),
    (
        "7.2-Ed25519ctx",
        "0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
        "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
        None,
        None,
    ),
]


@pytest.mark.parametrize(("test", "secret", "public", "message", "signature"), RFC8032)
def test_rfc8032_keys_are_listed_with_the_secrets_printed_in_the_rfc(
    test: str, secret: str, public: str, message: str | None, signature: str | None
) -> None:
    key = KEYS[public]
    assert f"rfc8032:{test}" in key.sources
    assert key.seed == f"hex:{secret}"
    assert _public(bytes.fromhex(secret)) == public
    if message is not None and signature is not None:
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(secret))
        assert private.sign(bytes.fromhex(message)).hex() == signature
    assert KEYS["ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf"].sources[:2] == (
        "rfc8032:7.1-TEST-SHA(abc)",
        "rfc8032:7.3-Ed25519ph",
    )
    assert len(_sources("rfc8032")) == len(RFC8032)


def _tc_ids(text: str) -> list[int]:
    ids: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        ids.extend(range(int(low), int(high or low) + 1))
    return ids


def test_wycheproof_keys_are_every_key_of_the_vectors_and_verify_their_signatures() -> None:
    vectors = json.loads(
        shared_path("vectors", "wycheproof", "ed25519_test.json").read_text(encoding="utf-8")
    )
    tc_ids: dict[str, list[int]] = {}
    valid = 0
    for group in vectors["testGroups"]:
        public = group["publicKey"]["pk"]
        tc_ids.setdefault(public, []).extend(t["tcId"] for t in group["tests"])
        listed_key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(KEYS[public].public_key))
        for test in group["tests"]:
            if test["result"] == "valid":  # the listed key is the one the vectors sign under
                listed_key.verify(bytes.fromhex(test["sig"]), bytes.fromhex(test["msg"]))
                valid += 1
    listed = _sources("wycheproof")
    assert set(listed) == set(tc_ids) and len(listed) == 52
    assert {k: _tc_ids(v) for k, v in listed.items()} == {k: sorted(v) for k, v in tc_ids.items()}
    assert valid == 88


# Keys in the seal fixtures whose secret no seal repository publishes at the snapshot commits
# (host-generated install keys and a spine signer): they are not on the list, on purpose.
SEAL_UNPUBLISHED = {
    "a1c7f2c1cfe8651990f14de4a36d25380a79b6346c9332f34f9a6be053271669": "seal-check host-v2-block",
    "bdf3db19a2007e5b6ab0d2a6578006d07ff8f7a35a7a8c0b3ed51de411d2e8ff": "seal-check host-v3-block",
    "85d7bdc4f48aebef2ef5d2e5f75f7ec5b921c1a03f50e4ed786d775b18fff87c": "seal-check host-v3-block",
    "88d2d0c0cbb47cfc637efda0d9dc2f4277dfc7d7e686049fae89ac2153b740c3": "assurance-kit Object B v2",
    "e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948": "assurance-kit Object B v2",
    "9a45c6817d70bc6f347d1631f618616c50b92cf5a34d5d20140974a0872ef53b": "seal-check spine signer",
    "0d990d754f6c2ddce8726d23f0f45e64e2c5f212e3c1fa007bb690f98ead9641": "seal-host example key",
}
_KEY_MEMBER = re.compile(r'"(?:pubkey|public_key|publicKey)"\s*:\s*"([0-9a-f]{64})"')


def test_every_key_in_the_seal_fixtures_is_listed_or_known_unpublished() -> None:
    root = shared_path("fixtures", "seal")
    keys: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found = [text.strip()] if path.suffix == ".pub" else _KEY_MEMBER.findall(text)
        for key in found:
            keys.setdefault(key, set()).add(path.relative_to(root).as_posix())
    listed = {key for key in keys if key in KEYS}
    assert listed == {RFC1}  # the fleet's demo policy signer: RFC 8032 §7.1 TEST 1
    assert "seal-check/examples/allow.receipt.json" in keys[RFC1]
    assert set(keys) - listed == set(SEAL_UNPUBLISHED)
    assert not set(SEAL_UNPUBLISHED) & set(KEYS)
    # Every place the fleet prints TEST 1's secret as its demo signer is named.
    assert {"seal-check:seal-config.js", "seal-live-demo:seal-gateway/seal-config.js"} <= set(
        KEYS[RFC1].sources
    )


def test_seal_family_test_seeds_are_listed() -> None:
    # Seeds the seal repositories' tests and fixture scripts sign with (Rust [N; 32], Python
    # bytes(range(...)), TweetNaCl fill(7)); the sources name file and commit.
    fills = {0x01, 0x02, 0x03, 0x07, 0x09, 0x0B, 0x0D, 0x11, 0x13, 0x17, 0x1D, 0x25, 0x29, 0x2A}
    expected = {f"fill:{n:02x}" for n in (*fills, 0x42, 0xAA)} | {"range:00", "range:01"}
    expected.add(KEYS[RFC1].seed)  # seal-host scripts/mint_unparseable_receipt.py signs with it
    seal = {
        key.seed
        for key in publishedkeys.KEYS
        if any(s.split(":")[0] in ("seal-host", "mcp-seal-dev") for s in key.sources)
    }
    assert seal == expected
    seven = KEYS[_public(bytes([7]) * 32)]
    assert "seal-check:test/receipt-format-v3.test.cjs" in seven.sources
    assert publishedkeys.describe_source(seven.sources[0]) == (
        "seal-host@099be66 rust/tests/host_path.rs"
    )


def test_every_testkit_key_is_listed_under_its_name() -> None:
    testkit = {name: v for name, v in vars(keys).items() if isinstance(v, keys.TestKey)}
    assert set(testkit) >= {"CONFIG_KEY", "RECEIPT_KEY", "APPROVER_KEY", "RFC8032_TEST1_KEY"}
    for name, key in testkit.items():
        listed = KEYS[key.public_hex]
        assert f"testkit:{name}" in listed.sources
        assert _seed(listed.seed) == key.seed
    assert set(_sources("testkit").values()) == set(testkit)
    demo = json.loads((DEMO / "trust.json").read_text(encoding="utf-8"))
    assert all(entry["public_key"] in KEYS for entry in demo["keys"])


def test_lookup_by_key_and_by_key_id() -> None:
    key = publishedkeys.lookup(RFC1)
    assert key is not None and key.source.startswith("RFC 8032 §7.1 TEST 1 (and ")
    assert publishedkeys.lookup(RFC1.upper()) is None  # keys are compared as exact lowercase hex
    assert publishedkeys.lookup(None) is None and publishedkeys.lookup(7) is None
    assert publishedkeys.lookup("00" * 32) is None
    key_id = hashlib.sha256(bytes.fromhex(RFC1)).hexdigest()
    assert publishedkeys.lookup_key_id(key_id) is key
    assert publishedkeys.lookup_key_id(RFC1) is None


def test_check_statuses_and_the_cap() -> None:
    key = KEYS[RFC1]
    capped = publishedkeys.check_key("config", key, "/signed_config/pubkey")
    assert (capped.id, capped.status) == ("authority.published-key", "not-evaluated")
    assert "RFC 8032 §7.1 TEST 1" in capped.reason and capped.data["allowed"] is False
    allowed = publishedkeys.check_key("config", key, "/signed_config/pubkey", allowed=True)
    assert allowed.status == "info" and "--allow-published-keys" in allowed.reason
    assert allowed.data["sources"][0] == "RFC 8032 §7.1 TEST 1"
    pinned = passed("authority.config-key", "pinned")
    receipt = VOCABULARY
    assert decide([pinned, capped], receipt) == (Outcome.UNPINNED, "")
    assert decide([pinned, allowed], receipt) == (Outcome.VERIFIED, "")
    assert decide([capped, fail("x.y", "z")], receipt).outcome == Outcome.FAIL
    other: Check = not_evaluated("legacy.canonical-request-omits-meta", "cannot be told")
    assert decide([pinned, other, info("x.y", "z")], receipt).outcome == Outcome.VERIFIED


# --- what a pin on a published key gives ----------------------------------------------------

SEAL_CHECK_RFC1 = [
    "seal-check/examples/allow.receipt.json",
    "seal-check/test/fixtures/cross-receipt.json",
    "seal-check/test/fixtures/unparseable-block.receipt.json",
]


def _published(subject: Subject) -> list[tuple[str, str, str]]:
    return [
        (c.status, c.data["role"], c.data["sources"][0])
        for c in subject.checks
        if c.id == "authority.published-key"
    ]


@pytest.mark.parametrize("relative", SEAL_CHECK_RFC1)
def test_a_pin_on_rfc8032_test_key_1_never_verifies_the_upstream_seal_check_receipts(
    relative: str,
) -> None:
    raw = shared_path("fixtures", "seal", *relative.split("/")).read_bytes()
    assert json.loads(raw)["signed_config"]["pubkey"] == RFC1
    pinned = VerifyOptions(TrustStore.from_pins(config=[RFC1]))
    subject = verify_receipt(raw, relative, pinned)
    assert subject.outcome == "UNPINNED"
    assert _published(subject) == [("not-evaluated", "config", "RFC 8032 §7.1 TEST 1")]
    assert [c.status for c in subject.checks if c.id == "authority.config-key"] == ["pass"]
    allowed = VerifyOptions(TrustStore.from_pins(config=[RFC1]), allow_published_keys=True)
    assert verify_receipt(raw, relative, allowed).outcome in ("VERIFIED", "REDUCED")


def test_cli_pin_on_rfc8032_test_key_1_is_unpinned_and_the_option_is_said() -> None:
    paths = [str(shared_path("fixtures", "seal", *p.split("/"))) for p in SEAL_CHECK_RFC1]
    runner = CliRunner()
    capped = runner.invoke(cli, ["verify", *paths, "--config-pubkey", RFC1, "--format", "json"])
    assert capped.exit_code == 3
    report = json.loads(capped.stdout)
    assert report["summary"]["UNPINNED"] == 3 and report["summary"]["VERIFIED"] == 0
    assert report["summary"]["allow_published_keys"] is False
    assert "published keys allowed" not in capped.stderr
    allowed = runner.invoke(
        cli, ["verify", *paths, "--config-pubkey", RFC1, "--allow-published-keys"]
    )
    assert allowed.exit_code == 4  # two VERIFIED, one REDUCED
    assert "published keys allowed (--allow-published-keys)" not in allowed.stdout  # said once
    assert "published keys allowed: not for real evidence" in allowed.stderr
    sarif = runner.invoke(cli, ["verify", paths[0], "--config-pubkey", RFC1, "--format", "sarif"])
    results = json.loads(sarif.stdout)["runs"][0]["results"]
    assert any(r["ruleId"] == "authority.published-key" for r in results)


ATTACK_POLICY = (
    '{"epoch":1,"server":"attacker@1.0.0","safety":{"approval":{"control_file":"/tmp/a",'
    '"ttl_seconds":120},'
    '"tools":[{"name":"shell_exec","mode":"allow","target":[{"full_arguments":true}]}]}}'
)


def test_attacker_mints_a_fleet_receipt_under_rfc8032_test_key_1_and_it_is_not_verified() -> None:
    # Anyone holds RFC 8032 test key 1: a policy allowing `rm -rf /`, signed with it, pinned.
    frame = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /"}')
    context = mint.FleetContext(
        config_key=mint.RFC8032_TEST1_KEY, wasm_sha256=DEFAULT_KERNEL_SHA256
    )
    forged = mint.mint_fleet_v2(frame, ATTACK_POLICY, ctx=context)
    pinned = VerifyOptions(TrustStore.from_pins(config=[RFC1]))
    subject = verify_receipt(forged, "forged", pinned)
    assert subject.outcome == "UNPINNED"
    assert _published(subject) == [("not-evaluated", "config", "RFC 8032 §7.1 TEST 1")]
    # The forgery is otherwise perfect (its decision even re-derives): accepting published
    # keys would call it VERIFIED.
    allowed = VerifyOptions(TrustStore.from_pins(config=[RFC1]), allow_published_keys=True)
    accepted = verify_receipt(forged, "forged", allowed)
    assert accepted.outcome == "VERIFIED"
    assert [c.status for c in accepted.checks if c.id == "replay.decision"] == ["pass"]


def _demo_options(allow: bool = False) -> VerifyOptions:
    trust = TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex],
        receipt=[mint.RECEIPT_KEY.public_hex],
        approval=[mint.APPROVER_KEY.public_hex],
    )
    return VerifyOptions(trust, (DEFAULT_KERNEL_SHA256, DEMO_WASM), allow_published_keys=allow)


def test_attacker_re_signs_a_demo_receipt_with_the_testkit_key_and_it_is_not_verified() -> None:
    record = mint.parse_record((DEMO / "receipts" / "verified-block.receipt.json").read_bytes())
    record["now"] = JsonNumber("1786009999999")  # covered by Object B only: re-signed
    forged = mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY))
    subject = verify_receipt(forged, "forged", _demo_options())
    assert subject.outcome == "UNPINNED"
    assert sorted(_published(subject)) == [
        ("not-evaluated", "config", "sealverify testkit CONFIG_KEY"),
        ("not-evaluated", "receipt", "sealverify testkit RECEIPT_KEY"),
    ]
    assert not [c for c in subject.checks if c.status == "fail"]
    assert verify_receipt(forged, "forged", _demo_options(allow=True)).outcome == "VERIFIED"


def test_an_ed25519_approver_and_a_partition_signer_are_named_too() -> None:
    frame = mint.tools_call_frame("shell_exec", '{"command":"ls"}', meta=_DEMO_META)
    target = mint.guard_target_of(frame, mint.DEMO_KERNEL_CONFIG)
    context = mint.HostContext(approval_channel="ed25519")
    raw = mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG, approvals=[target], ctx=context)
    result = partition.partition_frame(frame_of(frame))
    assert result.record is not None
    attestation = partition.sign_record(result.record, bytes(range(32)))
    subject = verify_receipt(raw, "allow", _demo_options(), attestation)
    roles = {(role, source) for _, role, source in _published(subject)}
    assert roles == {
        ("config", "sealverify testkit CONFIG_KEY"),
        ("receipt", "sealverify testkit RECEIPT_KEY"),
        ("approver", "sealverify testkit APPROVER_KEY"),
        ("attestation", "mcp-seal-dev@7d6d74b test/v2/m5_sign_fixture.py"),
    }
    locations = {c.location for c in subject.checks if c.id == "authority.published-key"}
    assert "/approval/approval_identity/key_id" in locations
    assert "side file /signature/public_key" in locations
    allowed = verify_receipt(raw, "allow", _demo_options(allow=True), attestation)
    assert {s for s, _, _ in _published(allowed)} == {"info"}


def test_a_spine_receipt_under_a_published_key_is_capped_at_unpinned() -> None:
    body = (
        '{"receipt":"seal.spine/v1","at":1786873203318,"decision":"ALLOW","tool":"fs.read",'
        '"arguments":{"path":"/etc/hostname"},"child":{"argv":["node","server.cjs"]}}'
    )
    document = parse_bytes(body.encode())
    assert isinstance(document, dict)
    document["seal"] = {"alg": "ed25519", **commitments(document)}
    sig = mint.RECEIPT_KEY.sign(signing_message(document)).hex()
    seal = json.dumps({"alg": "ed25519", **commitments(document), "sig": sig})
    raw = (body[:-1] + ',"seal":' + seal + "}").encode()
    pinned = _demo_options()
    subject = verify_receipt(raw, "spine", pinned)
    assert [c.status for c in subject.checks if c.id == "spine.signature"] == ["pass"]
    assert subject.outcome == "UNPINNED"
    assert _published(subject) == [
        ("not-evaluated", "spine receipt", "sealverify testkit RECEIPT_KEY")
    ]
    assert verify_receipt(raw, "spine", _demo_options(allow=True)).outcome == "VERIFIED"


def test_a_published_key_in_a_hostile_place_is_not_a_crash() -> None:
    document = json.loads((DEMO / "receipts" / "verified-fleet-v2.receipt.json").read_bytes())
    for value in (None, 7, [RFC1], {"k": RFC1}, RFC1.upper(), RFC1 + "00"):
        document["signed_config"]["pubkey"] = value
        subject = verify_receipt(json.dumps(document).encode(), "hostile", _demo_options())
        assert subject.outcome == "FAIL"
        assert not _published(subject)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sarif_still_names_allowed_published_keys_as_notes_streamed_or_not(jobs: str) -> None:
    files = sorted((DEMO / "receipts").glob("verified-*.json"))
    args = ["verify", *map(str, files), "--trust", str(DEMO / "trust.json")]
    args += ["--allow-published-keys", "--format", "sarif", "--jobs", jobs]
    out = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert out.exit_code == 0
    options = _demo_options(allow=True)
    subjects = [verify_found(p.read_bytes(), str(p), options) for p in files]
    report = build_report([s for s in subjects if s is not None], [], allow_published_keys=True)
    assert out.stdout == render(report, "sarif")
    run = json.loads(out.stdout)["runs"][0]
    assert run["properties"]["allowPublishedKeys"] is True
    notes = [r for r in run["results"] if r["ruleId"] == "authority.published-key"]
    assert len(notes) == 5 and {r["level"] for r in notes} == {"note"}  # 2 + 2 + 1 (fleet v2)
    assert all("--allow-published-keys" in r["message"]["text"] for r in notes)


def test_decide_says_a_config_signed_with_a_published_key_authenticates_nothing(
    tmp_path: Path,
) -> None:
    # `decide` is a what-if with no authority outcome; it still says what the signature is worth.
    payload = (
        '{"epoch":1,"safety":{"approval":{"control_file":"/tmp/a","ttl_seconds":60},'
        '"tools":[{"name":"read","mode":"allow"}]}}'
    )
    config = tmp_path / "trusted.json"
    signature = mint.RFC8032_TEST1_KEY.sign(payload.encode()).hex()
    config.write_text(json.dumps({"payload": payload, "signature": signature, "pubkey": RFC1}))
    frame = tmp_path / "frame.jsonl"
    frame.write_text('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}}\n')
    result = CliRunner().invoke(cli, ["decide", "--config", str(config), str(frame)])
    assert (
        "config signature: verified (published key: RFC 8032 §7.1 TEST 1 (and 9 more); "
        "it authenticates nothing)" in " ".join(result.output.split())  # wrapped to the width
    ), result.output

"""Signed verification summaries: verify --attestation, attestation verify, interop, tampering.

An attestation sealverify writes must verify with securesystemslib's own DSSE and parse with the
in-toto attestation framework's Statement; the DSSE and SLSA specification examples
(tests/data/attestation, PROVENANCE.md there) must be read by ``attestation verify``; and every
change an attacker can make (a subject byte, a payload byte, the payload type, the key, the
verdict re-signed under their own key, the policy) must be FAILED.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import google.protobuf.json_format as pb_json
import in_toto_attestation.v1.statement_pb2 as statement_pb
import pytest
from click.testing import CliRunner, Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from in_toto_attestation.v1.statement import Statement
from sealverify_testkit import attestsample
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import CryptoSigner, SSlibKey

from sealverify._internal.cli import github_action, verify_report
from sealverify._internal.cli.main import cli
from tests.conftest import ROOT
from tests.helpers.fleet_services import S3, s3_server

DEMO = ROOT / "fixtures" / "demo"
ATTEST = ROOT / "fixtures" / "attest"
SPEC = ROOT / "tests" / "data" / "attestation"
VERIFIED = ("verified-allow.receipt.json", "verified-block.receipt.json")
VSA = "https://slsa.dev/verification_summary/v1"
__all__ = ["s3_server"]  # the fixture, imported for its test


def sealverify(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _evidence(tmp_path: Path) -> Path:
    """Two receipts that verify, copied, so a test may change a byte of one."""
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    for name in VERIFIED:
        shutil.copy(DEMO / "receipts" / name, receipts / name)
    return receipts


def _attest(tmp_path: Path, *extra: str | Path, key: Path = ATTEST / "key.pem") -> Path:
    """Run verify over the copied receipts with a report and an attestation; the attestation."""
    out = tmp_path / "gate.intoto.jsonl"
    done = sealverify(
        "verify",
        _evidence(tmp_path),
        "--trust",
        DEMO / "trust.json",
        "--allow-published-keys",
        "--format",
        "json",
        "--output",
        tmp_path / "report.json",
        "--attest-key",
        key,
        "--attestation",
        out,
        *extra,
    )
    assert done.exit_code == 0, done.output
    return out


def _check(attestation: Path, *extra: str | Path, pubkey: Path | str = ATTEST / "key.pub.pem"):
    """attestation verify, as json; the sample key's secret is public, hence the flag."""
    allow = "--allow-published-keys"
    return sealverify(
        "attestation", "verify", attestation, "--pubkey", pubkey, "--format", "json", allow, *extra
    )


def _failed(done: Result) -> set[str]:
    report = json.loads(done.output[: done.output.rindex("}") + 1])
    return {c["id"] for s in report["subjects"] for c in s["checks"] if c["status"] == "fail"}


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _statement(envelope: dict[str, object]) -> dict[str, object]:
    return json.loads(base64.b64decode(str(envelope["payload"])))


def _write(path: Path, envelopes: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in envelopes))
    return path


def _public_pem(key: ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _private_pem(key: ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


# --- the round trip -----------------------------------------------------------------------------


def test_a_summary_names_every_input_and_the_report_and_passes(tmp_path: Path) -> None:
    out = _attest(tmp_path)
    receipts = tmp_path / "receipts"
    vsa, run = (_statement(e) for e in _lines(out))
    names = {s["name"]: s["digest"]["sha256"] for s in vsa["subject"]}  # type: ignore[index, union-attr]
    for name in VERIFIED:
        path = receipts / name
        assert names[path.as_posix()] == hashlib.sha256(path.read_bytes()).hexdigest()
    report = tmp_path / "report.json"
    assert names[report.as_posix()] == hashlib.sha256(report.read_bytes()).hexdigest()
    predicate = vsa["predicate"]
    assert vsa["predicateType"] == VSA and predicate["verificationResult"] == "PASSED"  # type: ignore[index]
    assert predicate["verifiedLevels"] == ["SEALVERIFY_VERIFIED_REDERIVED"]  # type: ignore[index]
    trust = hashlib.sha256((DEMO / "trust.json").read_bytes()).hexdigest()
    assert predicate["policy"]["digest"] == {"sha256": trust}  # type: ignore[index]
    assert predicate["verifier"]["version"]["sealverify"]  # type: ignore[index]
    assert "28bb3ae7" in predicate["verifier"]["version"]["sealverify-kernel-profiles"]  # type: ignore[index]
    assert run["predicate"]["counts"]["VERIFIED"] == 2  # type: ignore[index]
    assert run["predicate"]["exitCode"] == 0  # type: ignore[index]
    done = _check(
        out,
        "--subject",
        receipts / VERIFIED[0],
        "--subject",
        report,
        "--policy",
        DEMO / "trust.json",
    )
    assert done.exit_code == 0, done.output
    assert '"outcome": "PASSED"' in done.output


def test_the_sample_summary_is_what_verify_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fixtures/attest/demo.intoto.jsonl is minted by the testkit; verify writes it byte for byte.
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(attestsample.SAMPLE_EPOCH))
    out = tmp_path / "demo.intoto.jsonl"
    args = [str(out) if a.endswith("demo.intoto.jsonl") else a for a in attestsample.SAMPLE_ARGS]
    assert sealverify(*args).exit_code == 0
    assert out.read_bytes() == (ATTEST / "demo.intoto.jsonl").read_bytes()


def test_a_summary_signed_by_a_published_key_is_unpinned_without_the_flag(tmp_path: Path) -> None:
    out = _attest(tmp_path)
    pubkey = ("--pubkey", ATTEST / "key.pub.pem")
    done = sealverify("attestation", "verify", out, *pubkey, "--format", "json")
    assert done.exit_code == 3 and '"outcome": "UNPINNED"' in done.output
    assert "authority.published-key" in done.output and _failed(done) == set()
    assert _check(out).exit_code == 0  # --allow-published-keys: PASSED, the key still named
    assert "authority.published-key" in _check(out).output


def test_a_summary_says_when_published_keys_were_allowed(tmp_path: Path) -> None:
    def said(done: Result) -> str:
        report = json.loads(done.output[: done.output.rindex("}") + 1])
        (run,) = [c for c in report["subjects"][0]["checks"] if c["id"] == "attestation.run"]
        return str(run["reason"])

    assert "--allow-published-keys was on" in said(_check(_attest(tmp_path)))
    out = tmp_path / "unpinned.intoto.jsonl"
    receipt = DEMO / "receipts" / VERIFIED[0]
    key = ("--attest-key", ATTEST / "key.pem", "--attestation", out)
    assert sealverify("verify", receipt, "--trust", DEMO / "trust.json", *key).exit_code == 3
    assert said(_check(out)) == "verify exited 3"


def test_a_failed_run_is_attested_failed_and_never_passes(tmp_path: Path) -> None:
    out = tmp_path / "gate.intoto.jsonl"
    done = sealverify(
        "verify",
        DEMO / "receipts",
        "--trust",
        DEMO / "trust.json",
        "--attest-key",
        ATTEST / "key.pem",
        "--attestation",
        out,
    )
    assert done.exit_code == 1
    vsa = _statement(_lines(out)[0])
    assert vsa["predicate"]["verificationResult"] == "FAILED"  # type: ignore[index]
    assert vsa["predicate"]["verifiedLevels"] == ["FAILED"]  # type: ignore[index]
    checked = _check(out)
    assert checked.exit_code == 1 and _failed(checked) == {"attestation.result"}


def test_the_pins_are_the_policy_when_there_is_no_trust_file(tmp_path: Path) -> None:
    pin = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    out = tmp_path / "pins.intoto.jsonl"
    sealverify(
        "verify",
        DEMO / "receipts" / VERIFIED[0],
        "--config-pubkey",
        pin,
        "--attest-key",
        ATTEST / "key.pem",
        "--attestation",
        out,
    )
    policy = _statement(_lines(out)[0])["predicate"]["policy"]  # type: ignore[index]
    document = {"approval": [], "config": [pin], "kernel": [], "receipt": []}
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    assert policy == {
        "uri": "sealverify:pins",
        "digest": {"sha256": hashlib.sha256(canonical).hexdigest()},
    }
    (tmp_path / "pins.json").write_bytes(canonical)
    assert _check(out, "--policy", tmp_path / "pins.json").exit_code == 1  # FAILED: UNPINNED run
    assert "attestation.policy" not in _failed(_check(out, "--policy", tmp_path / "pins.json"))


@pytest.mark.parametrize("change", ["a byte", "a new file"])
def test_an_input_changed_during_the_run_is_refused_not_attested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # The change happens while the run is under way: as its report is being built.
    receipts = _evidence(tmp_path)
    real = verify_report.build_report_from_tally

    def changing(*args: object, **kwargs: object) -> object:
        if change == "a byte":
            receipt = receipts / VERIFIED[0]
            receipt.write_bytes(receipt.read_bytes().replace(b"{", b"{ ", 1))
        else:
            shutil.copy(DEMO / "receipts" / "fail-bypass.receipt.json", receipts / "late.json")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verify_report, "build_report_from_tally", changing)
    out = tmp_path / "gate.intoto.jsonl"
    done = sealverify(
        "verify", receipts, "--trust", DEMO / "trust.json", "--allow-published-keys",
        "--attest-key", ATTEST / "key.pem", "--attestation", out,
    )  # fmt: skip
    assert done.exit_code == 2 and "changed while the run read them" in done.output
    assert not out.exists()


def test_a_report_inside_the_walked_directory_is_refused_and_nothing_signed(
    tmp_path: Path,
) -> None:
    receipts = _evidence(tmp_path)
    report = receipts / "report.json"
    report.write_text("{}")  # a report of an earlier run, which this one would replace
    out = tmp_path / "gate.intoto.jsonl"
    refused = sealverify(
        "verify", receipts, "--trust", DEMO / "trust.json",
        "--allow-published-keys", "--format", "json", "--output", report,
        "--attest-key", ATTEST / "key.pem", "--attestation", out,
    )  # fmt: skip
    assert refused.exit_code == 2 and "Usage:" not in refused.output
    assert "inside the input directory" in refused.output
    assert report.read_text() == "{}"
    assert not out.exists()


def test_chain_and_approval_attest_too(tmp_path: Path) -> None:
    chain = tmp_path / "chain.intoto.jsonl"
    log = ROOT / "fixtures" / "chain" / "host.stderr"
    key = ("--attest-key", ATTEST / "key.pem")
    assert (
        sealverify("chain", log, "--expect-count", "3", *key, "--attestation", chain).exit_code == 0
    )
    assert _check(chain, "--subject", log).exit_code == 0
    approval = ROOT / "fixtures" / "approval"
    approver = json.loads((approval / "approver.json").read_text())
    out = tmp_path / "approval.intoto.jsonl"
    done = sealverify(
        "approval",
        approval / "tokens.ndjson",
        "--approval-pubkey",
        approver["approver_pubkey"],
        "--frame",
        approval / "frame.bin",
        "--server",
        approver["server"],
        "--at",
        str(approver["judged_at_ms"]),
        "--allow-published-keys",
        *key,
        "--attestation",
        out,
    )
    assert done.exit_code == 0, done.output
    assert _check(out, "--subject", approval / "frame.bin").exit_code == 0
    levels = _statement(_lines(out)[0])["predicate"]["verifiedLevels"]  # type: ignore[index]
    assert levels == ["SEALVERIFY_APPROVAL_VALID"]


def test_a_url_input_is_a_subject_by_its_url(tmp_path: Path) -> None:
    pytest.importorskip("fsspec")
    receipts = _evidence(tmp_path)
    out = tmp_path / "url.intoto.jsonl"
    url = receipts.as_uri()
    done = sealverify(
        "verify", url, "--trust", DEMO / "trust.json", "--allow-published-keys",
        "--attest-key", ATTEST / "key.pem", "--attestation", out,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    names = {s["name"] for s in _statement(_lines(out)[0])["subject"]}  # type: ignore[union-attr]
    assert names == {f"{url}/{name}" for name in VERIFIED}


def test_each_object_of_an_s3_prefix_is_a_subject(s3_server: S3, tmp_path: Path) -> None:
    receipts = _evidence(tmp_path)
    s3_server.client().create_bucket(Bucket="gate")
    s3_server.upload("gate", tmp_path, "day-1")
    out = tmp_path / "s3.intoto.jsonl"
    done = sealverify(
        "verify", "s3://gate/day-1/receipts", "--trust", DEMO / "trust.json",
        "--allow-published-keys", *s3_server.options(),
        "--attest-key", ATTEST / "key.pem", "--attestation", out,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    found = {s["name"]: s["digest"]["sha256"] for s in _statement(_lines(out)[0])["subject"]}  # type: ignore[index, union-attr]
    assert found == {
        f"s3://gate/day-1/receipts/{name}": hashlib.sha256(
            (receipts / name).read_bytes()
        ).hexdigest()
        for name in VERIFIED
    }


def test_an_ecdsa_key_from_an_environment_variable_signs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    monkeypatch.setenv("GATE_KEY", _private_pem(key).decode())
    out = tmp_path / "gate.intoto.jsonl"
    receipt = DEMO / "receipts" / VERIFIED[0]
    done = sealverify(
        "verify", receipt, "--trust", DEMO / "trust.json", "--allow-published-keys",
        "--attest-key", "env:GATE_KEY", "--attestation", out,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    (tmp_path / "ec.pub.pem").write_bytes(_public_pem(key))
    assert _check(out, "--subject", receipt, pubkey=tmp_path / "ec.pub.pem").exit_code == 0
    assert _check(out, "--subject", receipt).exit_code == 1  # the Ed25519 demo key did not sign


# --- interoperability: securesystemslib's DSSE and the in-toto attestation framework ----------


def test_what_sealverify_writes_verifies_with_securesystemslib_and_parses_as_in_toto(
    tmp_path: Path,
) -> None:
    out = _attest(tmp_path)
    public = serialization.load_pem_public_key((ATTEST / "key.pub.pem").read_bytes())
    key = SSlibKey.from_crypto(public)  # type: ignore[arg-type]
    for line in _lines(out):
        assert [s["keyid"] for s in line["signatures"]] == [key.keyid]  # type: ignore[union-attr, index]
        envelope = Envelope.from_dict(json.loads(json.dumps(line)))
        assert envelope.payload_type == "application/vnd.in-toto+json"
        assert key.keyid in envelope.verify([key], 1)
        parsed = pb_json.Parse(envelope.payload.decode(), statement_pb.Statement())
        Statement.copy_from_pb(parsed).validate()  # the framework's own schema checks
        # (Not the framework's VSA message: in-toto-attestation 0.9.3 declares verifiedLevels a
        # single string, fixed after that release in in-toto/attestation abb6190, so it refuses
        # the SLSA specification's own example as well.)


def test_securesystemslib_refuses_a_changed_payload_too(tmp_path: Path) -> None:
    line = _lines(_attest(tmp_path))[0]
    payload = bytearray(base64.b64decode(str(line["payload"])))
    payload[-3] ^= 1
    line["payload"] = base64.b64encode(bytes(payload)).decode()
    public = serialization.load_pem_public_key((ATTEST / "key.pub.pem").read_bytes())
    key = SSlibKey.from_crypto(public)  # type: ignore[arg-type]
    with pytest.raises(VerificationError):
        Envelope.from_dict(line).verify([key], 1)


def test_the_dsse_specification_vector_verifies_and_is_not_a_statement() -> None:
    done = _check(SPEC / "dsse-hello-world.json", pubkey=SPEC / "dsse-p256.pub.pem")
    assert done.exit_code == 1
    assert _failed(done) == {
        "attestation.payload-type",
        "attestation.statement",
        "attestation.predicate",
    }
    assert "attestation.signature" not in _failed(done)


@pytest.mark.parametrize("change", ["payload", "payloadType", "signature"])
def test_the_dsse_specification_vector_changed_fails_its_signature(
    tmp_path: Path, change: str
) -> None:
    envelope = json.loads((SPEC / "dsse-hello-world.json").read_text())
    if change == "payload":
        envelope["payload"] = base64.b64encode(b"hello worle").decode()
    elif change == "payloadType":
        envelope["payloadType"] = "http://example.com/HelloWorlds"
    else:
        sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
        sig[5] ^= 1
        envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    path = _write(tmp_path / "changed.json", [envelope])
    assert "attestation.signature" in _failed(_check(path, pubkey=SPEC / "dsse-p256.pub.pem"))


def _signed_spec_vsa(tmp_path: Path) -> tuple[Path, Path]:
    """The SLSA specification's example VSA, signed by securesystemslib alone (not sealverify)."""
    statement = (SPEC / "slsa-vsa-example.json").read_bytes()
    signer = CryptoSigner.generate_ed25519()
    envelope = Envelope(statement, "application/vnd.in-toto+json", {})
    envelope.sign(signer)
    path = _write(tmp_path / "spec.intoto.jsonl", [envelope.to_dict()])
    public = tmp_path / "spec.pub"
    public.write_text(signer.public_key.keyval["public"])  # an Ed25519 key as 64 hex digits
    return path, public


def test_the_slsa_specification_example_summary_verifies(tmp_path: Path) -> None:
    path, public = _signed_spec_vsa(tmp_path)
    done = _check(path, pubkey=public)
    assert done.exit_code == 0, done.output
    assert _check(path, pubkey=public.read_text()).exit_code == 0  # hex on the command line
    other = tmp_path / "artifact.tar.gz"
    other.write_bytes(b"not the example artifact")
    assert _failed(_check(path, "--subject", other, pubkey=public)) == {"attestation.subject"}


# --- an attacker's changes ----------------------------------------------------------------------


def test_a_changed_subject_byte_fails(tmp_path: Path) -> None:
    out = _attest(tmp_path)
    receipt = tmp_path / "receipts" / VERIFIED[0]
    data = bytearray(receipt.read_bytes())
    data[len(data) // 2] ^= 1
    receipt.write_bytes(bytes(data))
    done = _check(out, "--subject", receipt)
    assert done.exit_code == 1 and _failed(done) == {"attestation.subject"}


def test_a_changed_payload_byte_fails(tmp_path: Path) -> None:
    lines = _lines(_attest(tmp_path))
    statement = _statement(lines[0])
    statement["predicate"]["timeVerified"] = "2000-01-01T00:00:00Z"  # type: ignore[index]
    lines[0]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    done = _check(_write(tmp_path / "changed.jsonl", lines))
    assert done.exit_code == 1 and _failed(done) == {"attestation.signature"}


def test_a_changed_payload_type_fails(tmp_path: Path) -> None:
    lines = _lines(_attest(tmp_path))
    lines[1]["payloadType"] = "application/vnd.in-toto.vsa+json"  # an in-toto type, not signed
    done = _check(_write(tmp_path / "changed.jsonl", lines))
    assert done.exit_code == 1 and _failed(done) == {"attestation.signature"}


def test_another_key_fails(tmp_path: Path) -> None:
    out = _attest(tmp_path)
    other = ed25519.Ed25519PrivateKey.generate()
    (tmp_path / "other.pub.pem").write_bytes(_public_pem(other))
    done = _check(out, pubkey=tmp_path / "other.pub.pem")
    assert done.exit_code == 1 and _failed(done) == {"attestation.signature"}


def test_a_verdict_turned_passed_and_re_signed_by_the_attacker_fails(tmp_path: Path) -> None:
    # Mint a genuine FAILED summary, change its verdict, re-sign it with the attacker's key.
    out = tmp_path / "gate.intoto.jsonl"
    sealverify(
        "verify", DEMO / "receipts", "--trust", DEMO / "trust.json",
        "--attest-key", ATTEST / "key.pem", "--attestation", out,
    )  # fmt: skip
    attacker = CryptoSigner(ed25519.Ed25519PrivateKey.generate())
    forged = []
    for line in _lines(out):
        statement = _statement(line)
        if statement["predicateType"] == VSA:
            statement["predicate"]["verificationResult"] = "PASSED"  # type: ignore[index]
        envelope = Envelope(json.dumps(statement).encode(), str(line["payloadType"]), {})
        envelope.sign(attacker)
        forged.append(envelope.to_dict())
    path = _write(tmp_path / "forged.jsonl", forged)
    done = _check(path)
    assert done.exit_code == 1 and _failed(done) == {"attestation.signature"}


def test_another_policy_fails(tmp_path: Path) -> None:
    out = _attest(tmp_path)
    trust = json.loads((DEMO / "trust.json").read_text())
    trust["note"] = "one more member"
    (tmp_path / "trust.json").write_text(json.dumps(trust))
    done = _check(out, "--policy", tmp_path / "trust.json")
    assert done.exit_code == 1 and _failed(done) == {"attestation.policy"}


@pytest.mark.parametrize(
    "content",
    [b"", b"\xff\xfe", b"{}\n", b"[1]\n", b'{"payload":"e30=","payload":"e30="}\n', b"not json\n"],
)
def test_what_is_no_envelope_is_failed_never_a_crash(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    done = _check(path)
    assert done.exit_code == 1 and _failed(done) == {"attestation.envelope"}


@pytest.mark.parametrize("where", ["file", "payload"])
def test_hostile_depth_is_failed_never_a_crash(tmp_path: Path, where: str) -> None:
    deep = b"[" * 100_000
    if where == "payload":  # signed, so the Statement's own parse meets it
        envelope = Envelope(b'{"_type":' + deep, "application/vnd.in-toto+json", {})
        envelope.sign(CryptoSigner(ed25519.Ed25519PrivateKey.generate()))
        deep = json.dumps(envelope.to_dict()).encode()
    path = tmp_path / "deep.jsonl"
    path.write_bytes(deep)
    done = _check(path)
    assert done.exit_code == 1
    expected = "attestation.envelope" if where == "file" else "attestation.statement"
    assert expected in _failed(done)


def test_a_second_summary_in_the_file_fails(tmp_path: Path) -> None:
    lines = _lines(_attest(tmp_path))
    done = _check(_write(tmp_path / "twice.jsonl", [lines[0], *lines]))
    assert done.exit_code == 1 and _failed(done) == {"attestation.predicate"}


# --- could not run: exit 2 ----------------------------------------------------------------------


def test_what_cannot_run_is_a_usage_error(tmp_path: Path) -> None:
    receipt = DEMO / "receipts" / VERIFIED[0]
    out = tmp_path / "x.jsonl"
    assert sealverify("verify", receipt, "--attestation", out).exit_code == 2
    assert sealverify("verify", receipt, "--attest-key", ATTEST / "key.pem").exit_code == 2
    missing = ("--attest-key", "env:SEALVERIFY_NO_SUCH_VARIABLE", "--attestation", out)
    assert sealverify("verify", receipt, *missing).exit_code == 2
    public = sealverify(
        "verify", receipt, "--attest-key", ATTEST / "key.pub.pem", "--attestation", out
    )
    assert public.exit_code == 2 and "private key" in public.output
    not_a_key = _check(SPEC / "dsse-hello-world.json", pubkey="not-a-key")
    assert not_a_key.exit_code == 2 and "PEM public key or 64 hex digits" in not_a_key.output
    assert _check(tmp_path / "absent.jsonl").exit_code == 2
    assert not out.exists()


# --- the GitHub Action: attest-key in, the attestation's path out --------------------------------


def test_the_action_signs_with_its_attest_key_input_and_outputs_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    outputs = tmp_path / "output.txt"
    env = {
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKSPACE": str(ROOT),
        "INPUT_PATHS": "fixtures/demo/receipts/verified-allow.receipt.json",
        "INPUT_TRUST": "fixtures/demo/trust.json",
        "INPUT_ALLOW_PUBLISHED_KEYS": "true",
        "INPUT_SARIF": "",
        "INPUT_ATTEST_KEY": (ATTEST / "key.pem").read_text(),
        "INPUT_ATTESTATION": str(tmp_path / "gate.intoto.jsonl"),
        "INPUT_REPORT": str(tmp_path / "report.jsonl"),
    }
    out = io.StringIO()
    assert github_action.main(env=env, out=out) == 0, out.getvalue()
    assert "PRIVATE KEY" not in out.getvalue()  # the secret is never echoed
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    assert written["attestation"] == str(tmp_path / "gate.intoto.jsonl")
    receipt = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
    report = tmp_path / "report.jsonl"  # the same bytes as the run's own report, a subject
    done = _check(Path(written["attestation"]), "--subject", receipt, "--subject", report)
    assert done.exit_code == 0, done.output
    del env["INPUT_ATTEST_KEY"]
    assert github_action.main(env=env, out=io.StringIO()) == 0
    last = outputs.read_text().splitlines()
    assert "attestation=" in last  # no key, no attestation


def test_without_the_attest_extra_both_commands_say_how_to_install_it(tmp_path: Path) -> None:
    # A process in which securesystemslib cannot be imported, as on an install without it.
    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        probe = (
            "import sys\n"
            "sys.modules['securesystemslib'] = None\n"
            "from sealverify._internal.cli.main import main\n"
            f"sys.argv = ['sealverify', *{[str(a) for a in args]!r}]\n"
            "main()\n"
        )
        return subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=False
        )

    receipt = DEMO / "receipts" / VERIFIED[0]
    out = tmp_path / "gate.intoto.jsonl"
    done = run("verify", receipt, "--attest-key", ATTEST / "key.pem", "--attestation", out)
    assert done.returncode == 2 and "pip install 'sealverify[attest]'" in done.stderr
    done = run("attestation", "verify", ATTEST / "demo.intoto.jsonl", "--pubkey", receipt)
    assert done.returncode == 2 and "pip install 'sealverify[attest]'" in done.stderr
    assert not out.exists()

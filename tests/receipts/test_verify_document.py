"""Document checks on the received bytes, at every depth, and family dispatch (issue 3 item 1)."""

from __future__ import annotations

import pytest

from sealverify._internal.receipts.families import classify, read_document
from sealverify._internal.receipts.verify import VOCABULARY, verify_jsonl, verify_receipt
from sealverify._internal.results import outcomes
from sealverify._internal.results.model import Check, passed, reduced, unpinned
from sealverify._internal.results.outcomes import exit_code
from sealverify._internal.wire.strictjson import parse_text
from tests.conftest import shared_path

ALLOW = ("fixtures", "seal", "seal-check", "examples", "allow.receipt.json")


def allow() -> bytes:
    return shared_path(*ALLOW).read_bytes()


def failed_ids(raw: bytes) -> set[str]:
    subject = verify_receipt(raw, "doc")
    assert subject.outcome == "FAIL"
    return {c.id for c in subject.checks if c.status == "fail"}


def test_bom_is_refused_not_stripped() -> None:
    assert "document.bom" in failed_ids(b"\xef\xbb\xbf" + allow())


def test_trailing_content_is_refused() -> None:
    assert "document.trailing-content" in failed_ids(allow() + b"{}")
    assert verify_receipt(allow() + b" \r\n\t", "ws").outcome == "UNPINNED"


def test_duplicate_member_is_refused_at_top_level_and_nested() -> None:
    top = allow().replace(b'"now": 1000,', b'"now": 1000,\n  "now": 1000,')
    nested = allow().replace(b'"key": "k1"', b'"key": "k1", "key": "k1"')
    assert top != allow() and nested != allow()
    assert "document.duplicate-member" in failed_ids(top)
    assert "document.duplicate-member" in failed_ids(nested)


@pytest.mark.parametrize(
    "name",
    [
        "seal_receipt",
        "record_type",
        "record_version",
        "seal_live_receipt",
        "seal_check_receipt",
        "receipt",
    ],
)
def test_escaped_discriminator_name_is_refused_anywhere(name: str) -> None:
    escaped = "\\u00" + f"{ord(name[0]):02x}" + name[1:]
    nested = allow().replace(b'"key": "k1"', f'"key": "k1", "{escaped}": 1'.encode())
    assert "document.escaped-discriminator" in failed_ids(nested)


def test_escaped_top_level_discriminator_is_refused() -> None:
    text = allow().replace(b'"seal_receipt": "v2"', b'"seal\\u005freceipt": "v2"')
    assert "document.escaped-discriminator" in failed_ids(text)


@pytest.mark.parametrize("spelling", [b"3.0", b"3e0", b"-0", b"03", b'"3"'])
def test_record_version_must_be_a_bare_uint(spelling: bytes) -> None:
    text = shared_path(
        "fixtures", "seal", "seal-check", "test", "fixtures", "host-v3-block.receipt.json"
    ).read_bytes()
    mutated = text.replace(b'"record_version": 3', b'"record_version": ' + spelling)
    ids = failed_ids(mutated)
    if spelling == b"03":  # not JSON at all
        assert "document.malformed" in ids
    else:
        assert "document.record-version-spelling" in ids


def test_record_version_spelling_refused_nested() -> None:
    nested = allow().replace(b'"key": "k1"', b'"key": "k1", "record_version": 3.0')
    assert "document.record-version-spelling" in failed_ids(nested)


def test_schema_k_is_refused_as_legacy() -> None:
    assert "receipt.legacy-schema-k" in failed_ids(
        b'{"seal_check_receipt": "v0", "verdict": "ALLOW"}'
    )


@pytest.mark.parametrize(
    "head",
    [
        b'"record_type": "seal.authorization-decision", "record_version": 1',
        b'"record_type": "seal.authorization-decision", "record_version": 4',
        b'"seal_receipt": "v9"',
        b'"seal_live_receipt": "v1"',
    ],
)
def test_unknown_versions_are_refused(head: bytes) -> None:
    assert "receipt.unknown-version" in failed_ids(b"{" + head + b', "verdict": "ALLOW"}')


def test_dual_discriminators_are_refused_never_resolved() -> None:
    text = allow().replace(
        b'"seal_receipt": "v2",',
        b'"seal_receipt": "v2", "record_type": "seal.authorization-decision",',
    )
    assert "receipt.conflicting-discriminators" in failed_ids(text)


def test_authority_trusted_in_a_receipt_is_refused() -> None:
    text = allow().replace(b'"now": 1000,', b'"now": 1000, "authority_trusted": true,')
    assert "document.authority-trusted" in failed_ids(text)


def test_root_must_be_an_object_and_json() -> None:
    assert "document.root-not-object" in failed_ids(b"[]")
    assert "document.malformed" in failed_ids(b'{"seal_receipt": NaN}')
    assert "document.invalid-utf8" in failed_ids(b'{"seal_receipt": "\xff"}')


def test_classify_exact_families() -> None:
    cases = {
        b'{"seal_receipt": "v1"}': "v1",
        b'{"seal_receipt": "v2"}': "v2",
        b'{"record_type": "seal.authorization-decision", "record_version": 2}': "v2-host",
        b'{"record_type": "seal.authorization-decision", "record_version": 3}': "v3",
        b'{"seal_live_receipt": "v0"}': "v0-live",
        b'{"receipt": "seal.spine/v1"}': "spine",
    }
    for text, family in cases.items():
        document = parse_text(text.decode())
        assert isinstance(document, dict)
        assert classify(document)[0] == family
    assert read_document(b'{"record_type": "seal.authorization-decision"}').family is None


def test_outcome_vacuity_guard_and_order() -> None:
    def decide(checks: list[Check]) -> tuple[str, str]:
        return outcomes.decide(checks, VOCABULARY)

    assert decide([]) == ("FAIL", "")
    assert decide([reduced("replay.decision", "x")]) == ("FAIL", "")
    ok = passed("a", "ok")
    assert decide([ok]) == ("VERIFIED", "")
    assert decide([ok, reduced("scope.request-unparseable", "x")])[0] == "REDUCED"
    pin = unpinned("authority.config-key", "x")
    assert decide([ok, pin, reduced("scope.request-unparseable", "x")])[0] == "UNPINNED"
    assert decide([ok, pin, Check("b", "fail", "no")])[0] == "FAIL"
    assert exit_code(["VERIFIED", "UNPINNED"]) == 3
    assert exit_code(["UNPINNED", "REDUCED"]) == 4
    assert exit_code(["REDUCED", "FAIL"]) == 1
    assert exit_code(["VERIFIED"]) == 0
    assert exit_code(["VERIFIED"], findings_failed=True) == 1


def test_jsonl_blank_and_broken_lines_are_findings_and_the_run_goes_on() -> None:
    one = allow().replace(b"\n", b"")
    log = one + b"\n\n{broken\n" + one + b"\n"
    subjects, findings = verify_jsonl(log, "log.jsonl")
    assert [s.name for s in subjects] == ["log.jsonl:1", "log.jsonl:4"]
    assert [(f.id, f.location) for f in findings] == [
        ("log.blank-line", "log.jsonl:2"),
        ("log.broken-line", "log.jsonl:3"),
    ]

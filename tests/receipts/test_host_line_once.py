"""The host line of a receipt's params is rendered once when Object A provably has the same.

``binding.canonical-request`` renders the record's line; ``binding.canonical-request-frame``
needs the line of Object A's params, and takes the record's only when the call check passes
(same tool, arguments and context members rendering to the same serde text). An Object A
whose members differ, even only in order, is rendered on its own, re-signed or not.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from sealverify_testkit import mint

from sealverify._internal import fastpath
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.objectb import OBJECT_B_V2
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.results.model import Subject
from sealverify._internal.wire.strictjson import JsonValue

ARGUMENTS = '{"path":"/srv/a","mode":"x","depth":2}'
META = '{"z":{"b":1,"a":2.5},"a":[1,100.0]}'
FRAME = mint.tools_call_frame("fs.read", ARGUMENTS, meta=META)
OPTS = VerifyOptions(
    TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex], receipt=[mint.RECEIPT_KEY.public_hex]
    ),
)


def _statuses(subject: Subject) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for check in subject.checks:
        found.setdefault(check.id, set()).add(check.status)
    return found


def _resigned_with_object_a(frame: bytes) -> bytes:
    record = mint.parse_record(mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG))
    artifacts = record["signed_artifacts"]
    assert isinstance(artifacts, dict)
    artifacts["object_a"] = base64.b64encode(frame).decode()
    return mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY, OBJECT_B_V2))


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    render: Callable[[dict[str, JsonValue]], str] = identities.canonical_request

    def counted(params: dict[str, JsonValue]) -> str:
        calls[0] += 1
        return render(params)

    monkeypatch.setattr(identities, "canonical_request", counted)
    return calls


def test_an_honest_receipt_renders_its_host_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG)
    calls = _counting(monkeypatch)
    subject = verify_receipt(raw, "honest", OPTS)
    found = _statuses(subject)
    assert found["binding.canonical-request"] == {"pass"}
    assert found["binding.canonical-request-frame"] == {"pass"}
    assert found["binding.object-a-call"] == {"pass"}
    assert calls[0] == 1


@pytest.mark.parametrize(
    ("arguments", "meta", "frame_line"),
    [
        # Arguments in another member order: another line, the frame binding fails.
        ('{"mode":"x","path":"/srv/a","depth":2}', META, "fail"),
        # Another value: the frame binding fails.
        ('{"path":"/srv/b","mode":"x","depth":2}', META, "fail"),
        # A number spelled otherwise, rendered the same by serde: the same line.
        (ARGUMENTS, '{"z":{"b":1,"a":2.50},"a":[1,1e2]}', "pass"),
        # _meta in another member order: the call differs, the host line sorts _meta.
        (ARGUMENTS, '{"a":[1,100.0],"z":{"a":2.5,"b":1}}', "pass"),
    ],
)
def test_a_resigned_object_a_with_other_members_is_rendered_on_its_own(
    arguments: str, meta: str, frame_line: str
) -> None:
    raw = _resigned_with_object_a(mint.tools_call_frame("fs.read", arguments, meta=meta))
    subject = verify_receipt(raw, "resigned", OPTS)
    found = _statuses(subject)
    assert found["signature.object-b"] == {"pass"}
    assert found["binding.canonical-request"] == {"pass"}
    assert found["binding.canonical-request-frame"] == {frame_line}
    assert subject.outcome == "FAIL"  # Object A is not the frame request_sha256 names
    with fastpath.use_reference():
        assert verify_receipt(raw, "resigned", OPTS) == subject

"""`diff` and `verify` agree on every integrity failure of the red-team corpus.

`diff` re-derives the hashes a receipt stores from the content it carries (forensics/integrity.py)
with the byte rules `verify` binds them with: seal's canonical base64 and release-frame splice
(primitives/signatures.py, primitives/releaseframe.py). Every member of every corpus receipt is
changed, removed and added to (tests/helpers/adversarial_mutants.py); for each mutant, a hash `diff`
finds broken is a binding `verify` finds broken, and a base64 text or release frame one refuses the
other refuses too. The mutants are judged as changed, not re-signed: these checks read no signature.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib

import pytest
from sealverify_testkit import mint

from sealverify import load_side
from sealverify._internal.primitives.releaseframe import unsplice_operation_id
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.results.model import Check
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import JsonNumber
from tests.helpers import adversarial_corpus as corpus
from tests.helpers.adversarial_mutants import mutants
from tests.helpers.adversarial_receipts import OPTIONS

# Each integrity check of `diff` and the bindings of `verify` that hold the same bytes: when
# the first fails, one of the second must. (diff's canonical_request_sha256 is the hash of the
# stored line; verify derives the line, so a lie there fails the line or its hash.)
SAME_BYTES: dict[str, frozenset[str]] = {
    "diff.receipt.canonical-request-sha256": frozenset(
        {"binding.canonical-request", "binding.canonical-request-sha256"}
    ),
    "diff.receipt.args-hash": frozenset({"binding.args-hash"}),
    "diff.receipt.framed-subject-sha256": frozenset({"binding.framed-subject"}),
    "diff.receipt.framed-subject-length": frozenset({"binding.framed-subject"}),
    "diff.receipt.request-sha256": frozenset({"binding.request-sha256"}),
    "diff.receipt.object-a": frozenset({"binding.object-a"}),
    "diff.receipt.release-frame": frozenset({"binding.release-frame"}),
    "diff.receipt.release-frame-sha256": frozenset({"binding.release-frame"}),
    "diff.receipt.release-frame-length": frozenset({"binding.release-frame"}),
    "diff.receipt.release-frame-object-a": frozenset({"binding.release-frame-object-a"}),
    # The frame diff reads may be a release frame verify recovers no request from.
    "diff.receipt.canonical-request-frame": frozenset(
        {
            "binding.canonical-request-frame",
            "binding.object-a-request",
            "binding.release-frame-object-a",
        }
    ),
}
# verify's refusals of a byte rule diff applies too: base64 text and the release splice.
SHARED_RULES: dict[str, str] = {
    "binding.object-a": "diff.receipt.object-a",
    "binding.release-frame": "diff.receipt.release-frame",
    "binding.release-frame-object-a": "diff.receipt.release-frame-object-a",
}
CASES = [c for c in corpus.build() if c.family != "spine"]  # diff reads no spine receipt
FAST = dataclasses.replace(OPTIONS, rederive=False)  # the bindings are what is compared


def _failed(checks: tuple[Check, ...] | list[Check]) -> dict[str, str]:
    return {c.id: c.reason for c in checks if c.status == "fail"}


def _verify_rule_failures(checks: list[Check], doc: dict[str, object]) -> set[str]:
    """The shared-rule refusals among verify's failures (not its other reasons to fail)."""
    found = set()
    for check in checks:
        if check.status != "fail" or check.id not in SHARED_RULES:
            continue
        if check.id == "binding.release-frame" and not check.reason.startswith("release_frame."):
            continue  # a length or sha256 lie, judged by the hash mapping
        if check.id == "binding.object-a" and not check.reason.startswith(
            "signed_artifacts.object_a: base64"
        ):
            continue  # a member-set rule of signed_artifacts, not the decoding
        if check.id == "binding.release-frame-object-a" and "signed_artifacts" in doc:
            continue  # Object B v2: the frame against the carried Object A, not the splice rule
        found.add(SHARED_RULES[check.id])
    return found


def disagreements(name: str, data: bytes) -> list[str]:
    subject = verify_receipt(data, name, FAST)
    verified = _failed(subject.checks)
    try:
        side = load_side(data, "A", name)
    except ValueError:  # nothing diff can compare: verify refuses the document too
        return [] if subject.outcome == "FAIL" else [f"diff refused, verify {subject.outcome}"]
    if side.receipt is None:
        return [] if subject.outcome == "FAIL" else [f"diff read a frame, verify {subject.outcome}"]
    problems = []
    diffed = _failed(side.integrity)
    for check_id, reason in diffed.items():
        if not SAME_BYTES[check_id] & set(verified):
            problems.append(f"diff {check_id} ({reason}) but verify passes {SAME_BYTES[check_id]}")
    for check_id in _verify_rule_failures(subject.checks, side.receipt) - set(diffed):
        problems.append(f"verify refuses {check_id}'s rule, diff does not")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_diff_and_verify_agree_on_every_mutant(case: corpus.Case) -> None:
    assert not disagreements(case.name, case.data)
    problems = []
    for mutant in mutants(case.record):
        for problem in disagreements(case.name, mint.render_pretty(mutant.record)):
            problems.append(f"{mutant.describe()}: {problem}")
    assert not problems, f"{len(problems)} mutant(s):\n" + "\n".join(problems[:60])


# --- the spellings a lenient rule let through: each refused by both commands ------------------

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _trailing_bits(text: str) -> str:
    """The same bytes spelled with a non-zero unused bit (a lenient decoder reads them alike)."""
    body = text.rstrip("=")
    assert len(body) < len(text), "a padded text has unused bits"
    last = _ALPHABET[_ALPHABET.index(body[-1]) | 1]
    return body[:-1] + last + text[len(body) :]


def _case(name: str) -> corpus.Record:
    return next(c for c in CASES if c.name == name).record


def _failures(data: bytes) -> tuple[dict[str, str], dict[str, str]]:
    side = load_side(data, "A", "r")
    return _failed(verify_receipt(data, "r", FAST).checks), _failed(side.integrity)


@pytest.mark.parametrize("member", ["signed_artifacts/object_a", "release_frame/base64"])
def test_a_base64_spelling_with_trailing_bits_is_refused_by_both(member: str) -> None:
    record = _case("v3-b2-explicit")
    outer, inner = member.split("/")
    holder = dict(record[outer])  # type: ignore[arg-type]
    holder[inner] = _trailing_bits(str(holder[inner]))
    assert base64.b64decode(holder[inner]) == base64.b64decode(record[outer][inner])  # type: ignore[index]
    data = mint.render_pretty({**record, outer: holder})
    verified, diffed = _failures(data)
    wanted = {"signed_artifacts": "object-a", "release_frame": "release-frame"}[outer]
    assert "base64" in verified[f"binding.{wanted}"]
    assert f"diff.receipt.{wanted}" in diffed
    assert not disagreements("r", data)


def _released(record: corpus.Record, edit: bytes, into: bytes) -> corpus.Record:
    """``record`` whose released request has ``edit`` replaced by ``into``, every hash made
    consistent with the request a lenient un-splice would recover (so only the rule decides)."""
    release = base64.b64decode(str(record["release_frame"]["base64"]))  # type: ignore[index]
    operation = str(record["operation_id"])
    request = unsplice_operation_id(release, operation)
    assert request is not None and edit in request
    request, release = request.replace(edit, into, 1), release.replace(edit, into, 1)
    frame = dict(record["release_frame"])  # type: ignore[arg-type]
    frame["base64"] = base64.b64encode(release).decode()
    frame["sha256"] = hashlib.sha256(release).hexdigest()
    frame["length"] = JsonNumber(str(len(release)))
    return {
        **record,
        "release_frame": frame,
        "framed_subject_sha256": hashlib.sha256(request).hexdigest(),
        "framed_subject_length": JsonNumber(str(len(request))),
        "request_sha256": hashlib.sha256(raw_line(request)).hexdigest(),
    }


@pytest.mark.parametrize(
    "why",
    ["a duplicate member", "the request already carries operation_id"],
)
def test_a_release_frame_that_is_not_exactly_a_splice_is_refused_by_both(why: str) -> None:
    record = _case("v3-b1-explicit")
    edit = b'{"jsonrpc":"2.0",'
    if why == "a duplicate member":
        into = b'{"jsonrpc":"2.0","jsonrpc":"2.0",'
    else:
        into = b'{"operation_id":"' + str(record["operation_id"]).encode() + b'","jsonrpc":"2.0",'
    data = mint.render_pretty(_released(record, edit, into))
    verified, diffed = _failures(data)
    assert "binding.release-frame-object-a" in verified
    assert "diff.receipt.release-frame-object-a" in diffed
    assert not disagreements("r", data)

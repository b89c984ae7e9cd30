"""docs/claims.md covers every member of every family: a new member without a row fails here."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sealverify_testkit import mint

from sealverify._internal.receipts import claims
from sealverify._internal.receipts.members import LEVELS
from tests.conftest import shared_path
from tests.helpers import adversarial_corpus as corpus
from tests.helpers.adversarial_mutants import CARRIED, CODECS
from tests.helpers.claims_table import lookup, receipt_table, tables

FAMILY_TABLES = ("v3-b2", "v3-b1", "v2-host", "v2", "v1", "v0-live", "spine")


def member_paths(value: object, path: str = "") -> Iterator[str]:
    """Every normalized member path of a parsed receipt, carried documents included."""
    yield path
    if isinstance(value, dict):
        for name, item in value.items():
            yield from member_paths(item, f"{path}/{name}")
    elif isinstance(value, list):
        for item in value:
            yield from member_paths(item, f"{path}/*")
    elif isinstance(value, str) and path in CARRIED:
        try:
            inner = CODECS[CARRIED[path].name].decode(value)
        except ValueError:
            return
        yield from member_paths(inner, f"{path}#")


def test_every_family_has_a_table() -> None:
    assert set(tables()) == set(FAMILY_TABLES)


def test_every_row_has_a_kind_and_a_binding() -> None:
    for key, table in tables().items():
        for row in table.values():
            assert row.binds, f"{key}: {row.member} says nothing about what binds it"
            assert row.kinds, f"{key}: {row.member} has no kind"


def test_every_exact_object_lists_its_members() -> None:
    # An object whose member set is exact has a row for each member it may hold.
    for key, table in tables().items():
        for row in table.values():
            if row.members != "exact" or row.subtree:
                continue
            base = "" if row.member == "/" else row.member
            children = [m for m in table if m != row.member and _parent(m) == base]
            assert children, f"{key}: exact object {row.member} has no member rows"


def _parent(member: str) -> str:
    """``/a/b`` -> ``/a``; ``/a#/b`` -> ``/a#``; ``/a#`` -> ``/a``; ``/a/**`` -> parent of /a."""
    pointer = member[:-3] if member.endswith("/**") else member
    if pointer.endswith("#"):
        return pointer[:-1]
    return pointer[: pointer.rfind("/")]


def _uncovered(record: dict[str, object], key: str) -> list[str]:
    table = tables()[key]
    return sorted({p for p in member_paths(record) if lookup(table, p) is None})


@pytest.mark.parametrize("case", corpus.build(), ids=lambda c: c.name)
def test_every_minted_member_has_a_row(case: corpus.Case) -> None:
    key = receipt_table(case.record)
    assert key is not None
    assert not _uncovered(case.record, key), f"{case.name}: members without a row"


REAL = [
    "seal-check/examples/allow.receipt.json",
    "seal-check/test/fixtures/cross-receipt.json",
    "seal-check/test/fixtures/host-v2-block.receipt.json",
    "seal-check/test/fixtures/host-v3-block.receipt.json",
    "seal-check/test/fixtures/unparseable-block.receipt.json",
    "seal-check/examples/spine-allow.receipt.json",
    "seal-assurance-kit/fixtures/object-b-v2-host-04f7ba83.json",
    "seal-assurance-kit/fixtures/receipt-allow.json",
    "seal-assurance-kit/fixtures/receipt-block.json",
    "seal-assurance-kit/fixtures/receipt-unparseable.json",
    "seal-verify-action/fixtures/fail/bypass.receipt.json",
    "seal-verify-action/fixtures/pass/block.receipt.json",
]


@pytest.mark.parametrize("path", REAL)
def test_every_real_member_has_a_row(path: str) -> None:
    record = mint.parse_record(shared_path("fixtures", "seal", *path.split("/")).read_bytes())
    key = receipt_table(record)
    assert key is not None
    assert _uncovered(record, key) == []


def test_every_live_demo_member_has_a_row() -> None:
    data = shared_path("fixtures", "seal", "seal-live-demo", "evidence", "receipts.jsonl")
    for number, line in enumerate(data.read_bytes().splitlines(), start=1):
        record = mint.parse_record(line)
        key = receipt_table(record)
        assert key is not None
        assert _uncovered(record, key) == [], f"receipts.jsonl:{number}"
        json.loads(line)  # the line is one receipt


# Carried documents whose member sets their own bindings check (binding.object-a-request,
# binding.approval-statement), not receipt.members.
_BINDING_LEVELS = (
    "/signed_artifacts/object_a#",
    "/signed_artifacts/approval_statement#",
    "/release_frame/base64#",
)


def _doc_children(table: dict[str, object], level: str) -> set[str]:
    base = "" if level == "/" else level
    names: set[str] = set()
    for member in table:
        if member == level or not member.startswith(base):
            continue
        rest = member[len(base) :]
        if rest.endswith("/**"):
            rest = rest[:-3]
        if rest.startswith("/") and "/" not in rest[1:] and "#" not in rest[1:]:
            names.add(rest[1:])
    return names


@pytest.mark.parametrize("key", FAMILY_TABLES)
def test_the_code_member_sets_are_the_documented_ones(key: str) -> None:
    table = tables()[key]
    levels = {level.at: level for level in LEVELS[key]}
    for at, level in levels.items():
        row = table.get(at)
        assert row is not None and row.members == "exact", f"{key}: {at} has no exact row"
        assert _doc_children(table, at) == set(level.members), f"{key}: members of {at}"
    for row in table.values():
        if row.members == "exact" and not row.member.startswith(_BINDING_LEVELS):
            assert row.member in levels, f"{key}: {row.member} is exact in the doc, not in code"


@pytest.mark.parametrize("key", FAMILY_TABLES)
def test_the_code_names_every_asserted_and_unbound_member(key: str) -> None:
    table = tables()[key]
    for kind, code in (("asserted", claims.ASSERTED), ("unbound", claims.UNBOUND)):
        documented = {r.member for r in table.values() if r.kinds == (kind,)}
        assert documented == set(code.get(key, ())), f"{key}: {kind} members"

"""A shared vocabulary: families, roles, check ids and the hex and pointer spellings, once each."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from sealverify._internal.primitives import trust
from sealverify._internal.receipts import families
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.results.vocabulary import Family, Role
from sealverify._internal.wire.spelling import HEX64, HEX128, hex64_any_case, sha256_uri

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sealverify"
DEMO = ROOT / "fixtures" / "demo"
_SPELLING = PACKAGE / "_internal" / "wire" / "spelling.py"


def _sources() -> list[tuple[Path, str]]:
    return [
        (path, path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
        if "testkit" not in path.parts  # the testkit mints evidence in its own words
    ]


def test_families_and_roles_are_their_words() -> None:
    assert tuple(Family) == families.FAMILIES
    assert trust.ROLES == tuple(Role) == ("config", "receipt", "approval")
    assert json.dumps([Family.V2_HOST, Role.APPROVAL]) == '["v2-host", "approval"]'
    assert repr(Family.V3) == "'v3'" and f"{Role.CONFIG}" == "config"


def test_a_receipts_family_fact_is_a_family() -> None:
    for path in sorted((DEMO / "receipts").glob("*.receipt.json")):
        subject = verify_receipt(path.read_bytes(), path.name, VerifyOptions())
        assert isinstance(subject.facts["family"], Family), path.name


def test_a_trust_file_role_is_a_role() -> None:
    store = trust.TrustStore.from_pins(config=["ab" * 32])
    assert store.pinned(Role.CONFIG) == store.pinned("config")
    assert store.decide(Role.CONFIG, "ab" * 32, None) == "trusted"


def test_no_family_is_compared_with_a_literal() -> None:
    """``family == "v3"`` is written ``family == Family.V3``: one spelling of each family."""
    words = {str(f) for f in Family}
    for path, text in _sources():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            named = any(isinstance(s, ast.Name) and s.id == "family" for s in sides)
            literal = [s for s in sides if isinstance(s, ast.Constant) and s.value in words]
            assert not (named and literal), f"{path.relative_to(ROOT)}:{node.lineno}"


def test_hex_and_pointer_spellings_are_written_once() -> None:
    hex_rule = re.compile(r"\[0-9a-f(?:A-F)?\]\{(?:64|128)\}")
    for path, text in _sources():
        if path == _SPELLING:
            continue
        where = path.relative_to(ROOT)
        assert not hex_rule.search(text), f"{where}: a hex rule of its own (wire.spelling)"
        assert 'replace("~", "~0")' not in text, f"{where}: pointer escaping of its own"


def test_the_shared_hex_rules() -> None:
    digest = "ab" * 32
    assert HEX64.fullmatch(digest) and not HEX64.fullmatch(digest.upper())
    assert HEX128.fullmatch(digest * 2) and not HEX128.fullmatch(digest)
    assert hex64_any_case(digest.upper()) and not hex64_any_case("\u212a" * 64)
    assert sha256_uri("sha256:" + digest)
    assert not sha256_uri("sha256:" + digest + "\n")
    assert not sha256_uri("SHA256:" + digest)

"""The certHash fold: the head-state cache and the byte loop equal the scalar-by-scalar fold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal import fastpath
from sealverify._internal.kernel.hashes import audit_hash_parts, audit_hash_string, encode_parts

_MASK = (1 << 64) - 1


def _definition(text: str) -> int:
    """``auditHashString`` as Seal/Hash.lean states it: ``acc * prime + c`` over each scalar."""
    acc = 14695981039346656037
    for char in text:
        acc = (acc * 1099511628211 + ord(char)) & _MASK
    return acc


# Any scalar, lone surrogates included (Lean strings hold none, but a parsed reason may).
_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=120)


@given(_TEXT)
def test_the_fold_equals_the_definition(text: str) -> None:
    assert audit_hash_string(text) == _definition(text)


@given(st.lists(_TEXT, max_size=5))
def test_parts_hash_the_part_encoding_in_both_modes(parts: list[str]) -> None:
    want = _definition(encode_parts(parts))
    assert audit_hash_parts(parts) == want
    assert audit_hash_parts(parts) == want  # read back from the caches
    with fastpath.use_reference():
        assert audit_hash_parts(parts) == want


def test_certs_with_one_head_and_other_reasons_differ() -> None:
    # One cached head state (kernel, verdict, reason length), two guard targets.
    one = audit_hash_parts(["safety", "deny", "a" * 64])
    two = audit_hash_parts(["safety", "deny", "b" * 64])
    assert one == _definition(encode_parts(["safety", "deny", "a" * 64]))
    assert two == _definition(encode_parts(["safety", "deny", "b" * 64]))
    assert one != two
    assert audit_hash_parts(["safety", "allow", "\ud800" * 3]) == _definition(
        "6:safety5:allow3:" + "\ud800" * 3
    )

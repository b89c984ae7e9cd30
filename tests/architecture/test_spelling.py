"""One spelling of a 64-hex digest or key and one RFC 6901 pointer rule, for every layer.

``sealverify/_internal/wire/spelling.py`` holds both; no other module writes the hex pattern or the
pointer escapes again (a second copy could drift into a different strictness).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal.wire.spelling import HEX64, pointer, pointer_token, unescape_token

PACKAGE = Path(__file__).resolve().parents[2] / "sealverify"
HOME = PACKAGE / "_internal" / "wire" / "spelling.py"
# The skill digest's "sha256:<hex>" is its own format (agentskills.io), not a key or digest
# seal writes; it is spelled out where it is read.
ELSEWHERE = {PACKAGE / "_internal" / "skills" / "identity.py"}
COPIES = {
    "the 64-hex pattern": re.compile(r"\[0-9a-f\]\{64\}"),
    "the pointer escape": re.compile(r"""replace\(\s*["']~["'],\s*["']~0["']\s*\)"""),
    "the pointer unescape": re.compile(r"""replace\(\s*["']~1["'],\s*["']/["']\s*\)"""),
}


@pytest.mark.parametrize("rule", sorted(COPIES))
def test_each_rule_is_written_once(rule: str) -> None:
    found = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != HOME and path not in ELSEWHERE
        if COPIES[rule].search(path.read_text(encoding="utf-8"))
    ]
    assert COPIES[rule].search(HOME.read_text(encoding="utf-8"))  # the pattern finds a copy
    assert not found, f"{rule} is written again in {found}: use sealverify._internal.wire.spelling"


def test_pointers_escape_tilde_before_slash() -> None:
    # RFC 6901 §3 and §4: "~" is escaped first and unescaped last, so "~1" stays two chars.
    assert pointer() == ""
    assert pointer("a/b", "m~n", 0, "~1") == "/a~1b/m~0n/0/~01"
    assert pointer_token("") == "" and pointer_token(7) == "7"
    for token in ("a/b", "m~n", "~1", "~0/~1", "plain", ""):
        assert unescape_token(pointer_token(token)) == token


def test_hex64_is_exactly_64_lowercase_hex_digits() -> None:
    assert HEX64.fullmatch("0" * 64) and HEX64.fullmatch("abcdef0123456789" * 4)
    for text in ("A" * 64, "0" * 63, "0" * 65, "g" * 64, " " + "0" * 63):
        assert HEX64.fullmatch(text) is None


@given(st.lists(st.one_of(st.text(alphabet="ab~/1", max_size=4), st.integers(0, 99)), max_size=5))
def test_pointer_is_each_token_escaped_after_a_slash(parts: list[str | int]) -> None:
    """pointer() decides in C when no token needs escaping; it must equal the rule token by
    token (RFC 6901 §3), whatever mix of "~", "/" and empty tokens it is given."""
    expected = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    assert pointer(*parts) == expected

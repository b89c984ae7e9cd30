"""RFC 3986 normalisation of skill URIs: dot-segment removal against the RFC's own examples."""

from __future__ import annotations

import pytest

from sealverify._internal.skills.uris import normalise, remove_dot_segments, uri_problem

# RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples, base "http://a/b/c/d;p?q", those
# without a query or fragment: (reference, the path of the RFC's resolved URI). The merge of
# §5.2.3 is done here by hand (base directory "/b/c/" + reference), so only the dot-segment
# removal of §5.2.4 is under test.
RFC_5_4 = [
    ("g", "/b/c/g"),
    ("./g", "/b/c/g"),
    ("g/", "/b/c/g/"),
    ("/g", "/g"),
    (";x", "/b/c/;x"),
    ("g;x", "/b/c/g;x"),
    (".", "/b/c/"),
    ("./", "/b/c/"),
    ("..", "/b/"),
    ("../", "/b/"),
    ("../g", "/b/g"),
    ("../..", "/"),
    ("../../", "/"),
    ("../../g", "/g"),
    ("../../../g", "/g"),
    ("../../../../g", "/g"),
    ("/./g", "/g"),
    ("/../g", "/g"),
    ("g.", "/b/c/g."),
    (".g", "/b/c/.g"),
    ("g..", "/b/c/g.."),
    ("..g", "/b/c/..g"),
    ("./../g", "/b/g"),
    ("./g/.", "/b/c/g/"),
    ("g/./h", "/b/c/g/h"),
    ("g/../h", "/b/c/h"),
    ("g;x=1/./y", "/b/c/g;x=1/y"),
    ("g;x=1/../y", "/b/c/y"),
]


@pytest.mark.parametrize(("reference", "expected"), RFC_5_4)
def test_remove_dot_segments_gives_the_rfc_5_4_results(reference: str, expected: str) -> None:
    merged = reference if reference.startswith("/") else "/b/c/" + reference
    assert remove_dot_segments(merged) == expected


def test_remove_dot_segments_worked_examples_of_5_2_4() -> None:
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"
    assert remove_dot_segments("mid/content=5/../6") == "mid/6"


@pytest.mark.parametrize(
    ("uri", "normal"),
    [
        # §6.2.2.1: scheme and host in lowercase, percent-encoding hex in uppercase.
        ("SKILL://Org/notes/SKILL.md", "skill://org/notes/SKILL.md"),
        ("skill://org/caf%c3%a9.md", "skill://org/caf%C3%A9.md"),
        # §6.2.2.2: unreserved characters decoded (%7E is "~", %41 is "A").
        ("skill://org/%7Euser/%41.md", "skill://org/~user/A.md"),
        # §6.2.2.3, after decoding: %2e%2e is a dot-dot segment (§2.3), in either case.
        ("skill://org/notes/%2e%2e/secret/RUNBOOK.md", "skill://org/secret/RUNBOOK.md"),
        ("skill://org/notes/%2E/x.md", "skill://org/notes/x.md"),
        ("http://a/b/../../../c?q=%7e#f%2e", "http://a/c?q=~#f."),
        ("http://User@Example.COM:80/", "http://User@example.com:80/"),
        ("http://[::A]:8/p", "http://[::a]:8/p"),
        # A relative reference has no base to resolve ".." against: left as written.
        ("a/../b", "a/../b"),
        ("skill://org/notes/SKILL.md", "skill://org/notes/SKILL.md"),
    ],
)
def test_normalise(uri: str, normal: str) -> None:
    assert normalise(uri) == normal


@pytest.mark.parametrize(
    "uri",
    [
        "skill://org/notes/%2e%2e/secret/RUNBOOK.md",
        "skill://org/notes/%2E%2e/x",
        "skill://org/notes/.%2e/x",
        "skill://org/notes/a%2Fb.md",
        "skill://org/notes/a%2fb.md",
        "skill://org/notes/a%5cb.md",
        "skill://org/notes/a%5Cb.md",
        "skill://org/notes/a%00.md",
        "skill://org/notes/a%zz.md",
        "skill://org/notes/a\\..\\b.md",
        "skill://org/notes/a\x00.md",
        "skill://Org/notes/SKILL.md",
        "skill://org/notes/%61.md",
        "skill://org/notes/caf%c3%a9.md",
    ],
)
def test_uri_problem_names_every_uri_a_host_would_read_otherwise(uri: str) -> None:
    assert uri_problem(uri)


@pytest.mark.parametrize(
    "uri",
    ["skill://org/notes/SKILL.md", "skill://org/notes/caf%C3%A9.md", "skill://a/b/c.d/e~f_g-h"],
)
def test_uri_problem_accepts_normal_uris(uri: str) -> None:
    assert uri_problem(uri) == ""

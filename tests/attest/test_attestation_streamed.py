"""``attestation verify`` reads a file of many envelopes one envelope at a time.

It held every line, every parsed document, every envelope and every Statement at once:
about 8 bytes of memory for each byte of a file of many envelopes. The documents are now
parsed again on each pass and only the checks are kept. The reading must stay what it was:
a reference reading (the whole text, then line by line) is kept here and compared on the
shapes where the two could part.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sealverify._internal.attest.envelope import loads, read_documents
from tests.helpers.child_peak import child_peak_kib

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "attest" / "demo.intoto.jsonl"
KEY = ROOT / "fixtures" / "attest" / "key.pub.pem"
MIB = 1 << 20


def _reference(data: bytes) -> list[object] | str:
    """The reading as it was: the whole text as one document, else one document a line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8: {exc}"
    try:
        return [loads(text)]
    except ValueError:
        pass
    documents: list[object] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            documents.append(loads(line))
        except ValueError as exc:
            return f"line {number} is not a JSON document: {exc}"
    return documents or "no envelope in the file"


_SHAPES = [
    b"",
    b"\n\n",
    b" \t\r\n",
    b"\xc2\xa0\n",  # a no-break space: blank to Python, no JSON whitespace
    b'{"a": 1}',
    b'{"a": 1}\n',
    b'\n{"a": 1}\n\n',
    b'\x1c\n{"a": 1}\n',  # a separator before the document: not JSON whitespace
    b'{"a": 1}\n\xc2\xa0\n',
    b'{"a": 1}\n{"b": 2}\n',
    b'{"a": 1}\r\n{"b": 2}\r\n',
    b"12\n34\n",
    b'{\n  "a": [\n    1\n  ]\n}\n',  # one pretty-printed document
    b'{\n  "a": 1\n}\n{"b": 2}\n',  # a pretty document, then another: neither reading
    b'{"a": 1}\nnot json\n',
    b'{"a": 1, "a": 2}\n',
    b"[" * 100_000 + b"\n",
    b'{"a": 1}\n\xff\n',
    b'{"a": "\xed\xa0\x80"}\n',  # an encoded surrogate: not UTF-8
    b"\xef\xbb\xbf" + b'{"a": 1}\n',
    b'\x00{"a": 1}\n',
]


@pytest.mark.parametrize("data", _SHAPES)
def test_the_reading_is_the_whole_text_reading(data: bytes) -> None:
    found = read_documents(data)
    expected = _reference(data)
    if isinstance(expected, str):
        assert found == expected
    else:
        assert not isinstance(found, str), found
        assert list(found) == expected
        assert list(found) == expected  # a second pass reads the same documents


def _report(path: Path) -> dict[str, object]:
    from sealverify._internal.attest import keys
    from sealverify._internal.attest.check import attestation_verify_report

    key = keys.public_key(KEY.read_bytes(), "key")
    report = attestation_verify_report(
        path.read_bytes(), key, [], None, allow_published_keys=True
    )
    subject = report.subjects[0]
    return {"outcome": subject.outcome, "checks": [c.to_dict() for c in subject.checks]}


def test_many_envelopes_are_judged_as_before(tmp_path: Path) -> None:
    """Three copies of the demo file: every envelope checked, three summaries refused."""
    lines = DEMO.read_bytes().splitlines(keepends=True)
    assert len(lines) == 2
    path = tmp_path / "three.intoto.jsonl"
    path.write_bytes(b"".join(lines) * 3)
    report = _report(path)
    checks = report["checks"]
    assert isinstance(checks, list)
    assert report["outcome"] == "FAILED"
    assert [c["id"] for c in checks].count("attestation.signature") == 6
    predicate = [c for c in checks if c["id"] == "attestation.predicate"]
    assert len(predicate) == 1
    assert "found 3" in json.dumps(predicate[0])
    # One summary and one run, in either order, pass as the demo file does.
    path.write_bytes(lines[1] + lines[0])
    assert _report(path)["outcome"] == "PASSED"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
def test_memory_grows_less_than_the_file_held_as_objects(tmp_path: Path) -> None:
    line = DEMO.read_bytes()
    peaks = []
    for size in (2 * MIB, 16 * MIB):
        path = tmp_path / f"{size}.intoto.jsonl"
        path.write_bytes(line * (size // len(line)))
        out = tmp_path / f"{size}.json"
        args = ["attestation", "verify", str(path), "--pubkey", str(KEY), "--format", "json"]
        peaks.append(child_peak_kib([*args, "-o", str(out)], ROOT))
        assert out.stat().st_size > 0
    small, large = peaks  # every envelope held: 65 then 182 MiB; one at a time: 55 then 98
    assert large - small < 64 * 1024, f"{small} then {large} KiB for a file eight times longer"

"""A followed log line stored as where to find it again, and found again only as it was judged.

A session's first receipt is stored until the session comes back (``judge.py``); a log line's
bytes are already in the log, so the store keeps a locator instead (about 150 bytes and the
followed name, not the receipt's several KB): the followed name, the fingerprint of the file
the line was read from (device, inode, the sha256 of its first bytes, as the checkpoint knows
it: ``tail.py``), the line's byte offset and length, the sha256 of its exact bytes, and the
place the receipt claimed. :func:`reread` reads the line again from the file under the name
or a rotated file beside it (a name starting with the followed name, as ``tail.py`` finds
rotated files), the one with that device and inode first, then any other holding the same
first bytes (a copy-truncate rotation's copy), and returns it only when its sha256 is the
stored one. A line that is gone, or whose bytes changed (the log was rewritten under the
follower), is None: it is never fed, and its session has a gap. The text begins ``locator ``
followed by a JSON array, which no stored receipt (a strict JSON object) can begin with, so a
store written before holds its receipts' bytes and they are used as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import NamedTuple

from sealverify._internal.follow.tail import Fingerprint, Line
from sealverify._internal.kernel.session_pass import Claim

__all__ = ["PREFIX", "changed_at", "claim_of", "is_locator", "locator", "reread"]

PREFIX = b"locator "
# The members of a locator, in the order its JSON array holds them (no names: a row a receipt).
_MEMBERS = (
    "path",
    "dev",
    "ino",
    "head_len",
    "head_sha256",
    "offset",
    "length",
    "sha256",
    "position",
    "executed",
)


def locator(path: str, line: Line, claim: Claim | None, sha256: str | None = None) -> bytes | None:
    """The locator of ``line`` of the followed log ``path``; None when its file is unknown.

    With it, the place the receipt claims (``claim``): a line that cannot be read again still
    holds its executed position against a later receipt claiming it, as when it was fed.
    ``sha256``: the hex digest of ``line.data`` when the caller already made it.
    """
    fp = line.fingerprint
    if fp is None:
        return None
    value: dict[str, object] = {
        "path": path,
        "dev": fp.dev,
        "ino": fp.ino,
        "head_len": fp.head_len,
        "head_sha256": fp.head_sha256,
        "offset": line.offset,
        "length": len(line.data),
        "sha256": sha256 if sha256 is not None else hashlib.sha256(line.data).hexdigest(),
        "position": claim.position if claim is not None else None,
        "executed": claim is not None and claim.executed,
    }
    # ASCII JSON (a name that is not UTF-8 keeps its surrogate escapes, read back the same).
    members = [value[k] for k in _MEMBERS]
    return PREFIX + json.dumps(members, separators=(",", ":")).encode("ascii")


def is_locator(data: bytes) -> bool:
    """Whether a stored receipt is a locator (else the receipt's own bytes, used as they are)."""
    return data.startswith(PREFIX)


def _value(text: bytes) -> dict[str, object] | None:
    try:
        value = json.loads(text[len(PREFIX) :].decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(value, list) or len(value) != len(_MEMBERS):
        return None
    members = dict(zip(_MEMBERS, value, strict=True))
    position, executed = members["position"], members["executed"]
    counted = isinstance(position, int) and not isinstance(position, bool) and position >= 1
    if not (position is None or counted) or not isinstance(executed, bool):
        return None  # fail closed: not the shape :func:`locator` writes
    return members


def claim_of(text: bytes) -> Claim | None:
    """The place the located receipt claimed when it was judged (None: none, or unreadable)."""
    value = _value(text)
    if value is None:
        return None
    position = value["position"]
    if not isinstance(position, int):
        return None
    return Claim(position, value["executed"] is True)


class _Located(NamedTuple):
    """A locator's file and line, as :func:`locator` wrote them."""

    path: str
    fingerprint: Fingerprint
    offset: int
    length: int
    sha256: str


def _located(text: bytes) -> _Located | None:
    value = _value(text)
    if value is None:
        return None
    numbers = [
        n
        for k in ("dev", "ino", "head_len", "offset", "length")
        if isinstance(n := value[k], int) and not isinstance(n, bool) and n >= 0
    ]
    texts = [t for k in ("path", "head_sha256", "sha256") if isinstance(t := value[k], str)]
    if len(numbers) != 5 or len(texts) != 3:
        return None
    dev, ino, head_len, offset, length = numbers
    path, head_sha256, sha256 = texts
    return _Located(path, Fingerprint(dev, ino, head_len, head_sha256), offset, length, sha256)


def reread(text: bytes) -> bytes | None:
    """The line ``text`` locates, read again with the digest it was judged with; else None.

    None also for a locator that is not the shape :func:`locator` writes: fail closed.
    """
    found = _located(text)
    if found is None:
        return None
    for candidate in _candidates(found.path, found.fingerprint):
        data = _line_at(candidate, found.fingerprint, found.offset, found.length)
        if data is not None and hashlib.sha256(data).hexdigest() == found.sha256:
            return data
    return None


def changed_at(text: bytes) -> tuple[str, int] | None:
    """Where the line ``text`` locates was rewritten: its file and offset, else None.

    Asked once :func:`reread` found no line: the followed file itself (the device, inode and
    first bytes the line was read under) still holds bytes at the line's place, and they are
    not the line judged there. A file that is gone, or whose first bytes changed (a rotation,
    or the rewrite ``tail.py`` already reports as ``follow.rewritten``), is None.
    """
    found = _located(text)
    if found is None:
        return None
    fp = found.fingerprint
    for candidate in _candidates(found.path, fp):
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) != (fp.dev, fp.ino):
            continue
        data = _line_at(candidate, fp, found.offset, found.length)
        if data is not None and hashlib.sha256(data).hexdigest() != found.sha256:
            return candidate, found.offset
    return None


def _candidates(path: str, fp: Fingerprint) -> list[str]:
    """The followed file and the rotated files beside it (regular files), its inode first."""
    followed = Path(path)
    try:
        names = sorted(os.listdir(followed.parent or "."))
    except OSError:
        names = []
    found: list[tuple[bool, str]] = []
    for name in [followed.name, *(n for n in names if n != followed.name)]:
        if not name.startswith(followed.name):
            continue
        candidate = str(followed.parent / name)
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):  # never a FIFO or a device, whose open could block
            found.append(((st.st_dev, st.st_ino) != (fp.dev, fp.ino), candidate))
    return [candidate for _, candidate in sorted(found, key=lambda c: c[0])]


def _line_at(path: str, fp: Fingerprint, offset: int, length: int) -> bytes | None:
    """``length`` bytes at ``offset`` of ``path`` when its first bytes are the fingerprint's."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(fp.head_len)
            if len(head) != fp.head_len or hashlib.sha256(head).hexdigest() != fp.head_sha256:
                return None
            handle.seek(offset)
            data = handle.read(length)
    except OSError:
        return None
    return data if len(data) == length else None

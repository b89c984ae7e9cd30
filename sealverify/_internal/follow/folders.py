"""A followed receipt directory: the receipt files that are new or changed since the last look.

seal-host writes one file per decision and rewrites an ALLOW receipt atomically (a new file
renamed over the old) as its release status moves (seal-host@099be66 ``rust/src/release.rs``).
A file is judged when its bytes differ from the bytes last judged under its name (their
sha256, kept in the checkpoint), so each form is judged once and the latest form counts.
Files are walked as ``verify`` walks a directory (``*.json``, not a ``.partition.json`` side
file, links not followed) and taken in the order they were written (modification time, then
name).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.errors import InputError

__all__ = ["FileTooLarge", "Folder", "Found", "Looked", "receipt_name"]

_SIDE_SUFFIX = ".partition.json"


class FileTooLarge(InputError):
    """A receipt file larger than the input cap (``--max-input-bytes``)."""


def receipt_name(name: str) -> bool:
    """Whether a walk takes the file: ``*.json`` after a dot not leading the name."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:] == ".json" and not name.endswith(_SIDE_SUFFIX)


@dataclass(frozen=True, slots=True)
class Found:
    """A new or changed file: its name as the report shows it, its path, bytes and digest."""

    name: str
    path: str  # where the bytes were read: a local path, or an object's path in its store
    data: bytes
    digest: str
    revision: bool  # another form was judged under this name before


class Looked:
    """A followed directory or prefix: each name's last judged digest, and its last look.

    What a look saw of each name (a file's inode, size and mtime; an object's ETag, size and
    modification time) keeps an unchanged one from being read again; the digest of the bytes
    last judged under a name keeps a form from being judged twice.
    """

    def __init__(self, root: str, digests: dict[str, str] | None) -> None:
        self.root = root
        self.digests: dict[str, str] = dict(digests or {})
        self._seen: dict[str, tuple[object, ...]] = {}

    def _changed(
        self,
        entries: Iterable[tuple[str, str, tuple[object, ...], int]],
        read: Callable[[str, str], bytes | None],
        limit: int,
        cap: int,
    ) -> list[Found]:
        """Of ``entries`` (name, path, what the look saw, size), those whose bytes changed.

        ``read`` gives an entry's bytes, or None when it is gone since the listing (the next
        look reads its successor); an entry larger than ``cap`` is refused.
        """
        changed: list[Found] = []
        for name, path, seen, size in entries:
            if self._seen.get(name) == seen:
                continue
            if size > cap:
                raise FileTooLarge(f"{name}: larger than {cap} bytes (--max-input-bytes)")
            data = read(name, path)
            if data is None:
                continue
            self._seen[name] = seen
            digest = hashlib.sha256(data).hexdigest()
            before = self.digests.get(name)
            if before != digest:
                changed.append(Found(name, path, data, digest, before is not None))
                if len(changed) >= limit:
                    break
        return changed

    def judged(self, found: Found) -> None:
        """Remember ``found``'s bytes as judged (the checkpoint keeps the digest)."""
        self.digests[found.name] = found.digest

    def forget_looks(self) -> None:
        """Read every entry again at the next look (after SIGHUP)."""
        self._seen.clear()


def _read_local(_: str, path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None  # gone since the walk


class Folder(Looked):
    """One followed directory and the digest of each file's last judged bytes."""

    def __init__(self, root: str, digests: dict[str, str] | None = None) -> None:
        super().__init__(root, digests)

    def _walk(self) -> list[tuple[int, str, Path, tuple[int, int, int]]]:
        found: list[tuple[int, str, Path, tuple[int, int, int]]] = []
        base = Path(self.root)
        for folder, dirs, files in os.walk(self.root):
            dirs.sort()
            for file in sorted(files):
                if not receipt_name(file):
                    continue
                path = Path(folder) / file
                try:
                    st = os.lstat(path)
                except OSError:
                    continue  # renamed away since the listing
                if not stat.S_ISREG(st.st_mode):
                    continue
                name = (base / path.relative_to(base)).as_posix()
                found.append((st.st_mtime_ns, name, path, (st.st_ino, st.st_size, st.st_mtime_ns)))
        found.sort(key=lambda item: (item[0], item[1]))
        return found

    def look(self, limit: int, cap: int = 256 << 20) -> list[Found]:
        """Files new or changed since the last look, in the order written, up to ``limit``.

        A file larger than ``cap`` bytes is refused (:class:`FileTooLarge`), as a batch run
        refuses an input larger than ``--max-input-bytes``.
        """
        walked = ((name, str(path), seen, seen[1]) for _, name, path, seen in self._walk())
        return self._changed(walked, _read_local, limit, cap)

    def side_attestation(self, found: Found) -> tuple[JsonValue | None, str]:
        """A partition attestation beside a receipt file, as a batch walk reads it.

        ``(attestation, "")``, ``(None, "")`` when there is none, or ``(None, problem)`` when
        the side file exists but cannot be read.
        """
        side = Path(found.path + _SIDE_SUFFIX)
        try:
            if not side.is_file():
                return None, ""
            return parse_bytes(side.read_bytes()), ""
        except (OSError, JsonError) as exc:
            return None, f"cannot read partition attestation {side}: {exc}"

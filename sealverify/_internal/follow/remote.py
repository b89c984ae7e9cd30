"""A followed object-storage prefix (``s3://``, ``gs://``, ...): polled, with a listing checkpoint.

Object stores send no file events, so a prefix is listed at every look (``fsspec``, the
``s3`` extra) and an object is read when its listing entry (ETag, size, modification time)
differs from the last look's; it is judged when its bytes differ from those last judged
under its name (their sha256, kept in the store as for a local directory: the listing
checkpoint). Objects are named by their URL, as a batch run over the prefix names them, and
taken in the order written (modification time, then name). A listing or a read that fails
stops the run (exit 2), never a smaller look.
"""

from __future__ import annotations

import posixpath
from typing import Any

from sealverify._internal.follow.folders import Found, Looked, receipt_name
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.errors import SourceError

__all__ = ["RemoteFolder"]

_SIDE_SUFFIX = ".partition.json"


def _failed(exc: BaseException, url: str) -> SourceError:
    text = str(exc).strip().splitlines()
    return SourceError(5, f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": "), url)


class RemoteFolder(Looked):
    """One followed prefix and the digest of each object's last judged bytes."""

    def __init__(self, root: str, digests: dict[str, str] | None, options: dict[str, Any]) -> None:
        try:
            from fsspec.core import url_to_fs
        except ImportError:
            raise SourceError(2, "needs the s3 extra: pip install 'sealverify[s3]'", root) from None
        super().__init__(root, digests)
        self._scheme = root.split("://", 1)[0]
        try:
            self._fs, self._base = url_to_fs(root, **options)
        except Exception as exc:  # each backend raises its own classes: translated, not lost
            raise _failed(exc, root) from None

    def _url(self, path: str) -> str:
        return f"{self._scheme}://{path.split('://', 1)[-1]}"

    def _listing(self) -> list[tuple[str, str, tuple[str, int, str]]]:
        try:
            self._fs.invalidate_cache()  # fsspec keeps listings: each look must list anew
            found = self._fs.find(self._base, detail=True)
        except Exception as exc:
            raise _failed(exc, self.root) from None
        entries = []
        for path, info in found.items():
            if info.get("type") == "directory" or not receipt_name(posixpath.basename(path)):
                continue
            modified = str(info.get("LastModified") or info.get("mtime") or "")
            tag = str(info.get("ETag") or info.get("etag") or "")
            entries.append((modified, str(path), (tag, int(info.get("size") or 0), modified)))
        entries.sort()
        return [(path, modified, seen) for modified, path, seen in entries]

    def look(self, limit: int, cap: int = 256 << 20) -> list[Found]:
        """Objects new or changed since the last look, in the order written, up to ``limit``."""
        listed = ((self._url(path), path, seen, seen[1]) for path, _, seen in self._listing())
        return self._changed(listed, self._read, limit, cap)

    def _read(self, name: str, path: str) -> bytes | None:
        try:
            return bytes(self._fs.cat_file(path))
        except FileNotFoundError:
            return None  # replaced since the listing: the next look reads its successor
        except Exception as exc:
            raise _failed(exc, name) from None

    def side_attestation(self, found: Found) -> tuple[JsonValue | None, str]:
        """A partition attestation object beside a receipt object, as a batch run reads it."""
        side = found.path + _SIDE_SUFFIX
        try:
            if not self._fs.isfile(side):
                return None, ""
            return parse_bytes(bytes(self._fs.cat_file(side))), ""
        except JsonError as exc:
            return None, f"cannot read partition attestation {self._url(side)}: {exc}"
        except Exception as exc:
            raise _failed(exc, self._url(side)) from None

"""Inputs named by URL (s3://, gs://, az://, https://, file://), listed and read through fsspec.

A :class:`Remote` stands where a local :class:`~pathlib.Path` stands in the runner: it has the
few members the runner uses (``name``, ``suffix``, ``as_posix``, ``is_dir``, ``is_file``,
``read_bytes``, ``open``, ``with_name``), and every failure to reach an object is an
:class:`OSError` whose ``strerror`` says why, so an unreadable object is named exactly as an
unreadable local file is. fsspec and the protocol's package are imported only when a URL is
named: the default install reads local files only.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealverify._internal.run.refused import InputRefused, SourceUnreadable
from sealverify._internal.run.walk import MAX_DEPTH, glob_matches
from sealverify.errors import InputError, SealverifyError, SourceError

__all__ = [
    "Location",
    "Remote",
    "configure",
    "expand_url",
    "is_url",
    "locate",
    "read_range",
    "storage_options",
    "walk",
]

_URL = re.compile(r"[a-z][a-z0-9+.-]*://")
_GLOB = re.compile(r"[*?\[]")
# The package each protocol needs, for the one-line hint when it is missing.
_PACKAGES = {
    "s3": "sealverify[s3]",
    "s3a": "sealverify[s3]",
    "gs": "gcsfs",
    "gcs": "gcsfs",
    "az": "adlfs",
    "abfs": "adlfs",
    "abfss": "adlfs",
    "http": "aiohttp",
    "https": "aiohttp",
}
_OPTIONS: dict[str, Any] = {}  # --storage-option, set once per process by configure()


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL (``scheme://...``) rather than a local path."""
    return _URL.match(name) is not None


def configure(options: Mapping[str, Any]) -> None:
    """Set the storage options every URL of this process is opened with."""
    _OPTIONS.clear()
    _OPTIONS.update(options)


def storage_options() -> dict[str, Any]:
    return dict(_OPTIONS)


def _missing(url: str, exc: ImportError) -> InputError:
    scheme = url.split("://", 1)[0]
    package = _PACKAGES.get(scheme, "fsspec")
    return InputError(
        f"{url}: reading {scheme}:// needs an optional package ({exc.name or exc}): "
        f"pip install '{package}'"
    )


def _filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem for ``url`` and the path within it."""
    try:
        from fsspec.core import url_to_fs
    except ImportError as exc:
        raise _missing(url, exc) from None
    try:
        fs, path = url_to_fs(url, **_OPTIONS)
    except ImportError as exc:
        raise _missing(url, exc) from None
    except (ValueError, TypeError) as exc:
        raise InputError(f"{url}: {exc}") from None
    return fs, str(path)


# Each ``except Exception`` below translates, never swallows: fsspec's backends raise their own
# classes (botocore, aiohttp, azure-core, google-auth), so any of them becomes a SourceError or
# an InputError naming the object (exit 2), never a False, an empty listing or a skipped file.


def _reason(exc: BaseException) -> str:
    """One line saying why an object could not be reached."""
    if isinstance(exc, FileNotFoundError):
        return "No such file or directory"
    if isinstance(exc, PermissionError):
        return f"access denied (credentials refused?): {exc}".rstrip(": ")
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _os_error(exc: BaseException, url: str) -> SourceError:
    return SourceError(getattr(exc, "errno", None) or errno.EIO, _reason(exc), url)


def _url(fs: Any, path: str, like: str) -> str:
    """``path`` inside ``fs`` as a URL of the scheme ``like`` was written in."""
    scheme = like.split("://", 1)[0]
    unstripped = str(fs.unstrip_protocol(path))
    if unstripped.startswith(scheme + "://"):
        return unstripped
    return f"{scheme}://{path.split('://', 1)[-1]}"


@dataclass(frozen=True, slots=True)
class Remote:
    """One object (or prefix) in object storage, used where the runner uses a Path."""

    url: str

    def __str__(self) -> str:
        return self.url

    @property
    def name(self) -> str:
        return posixpath.basename(self.url.rstrip("/"))

    @property
    def suffix(self) -> str:
        return posixpath.splitext(self.name)[1]

    def as_posix(self) -> str:
        return self.url

    def with_name(self, name: str) -> Remote:
        return Remote(posixpath.join(posixpath.dirname(self.url.rstrip("/")), name))

    # is_dir and is_file answer False only for an object that is not there. A store that
    # cannot answer (unreachable, access denied, throttled) is a SourceError, never "no such
    # object": a partition attestation beside a receipt that could not be looked up must stop
    # the run, not be skipped as absent (fsspec's own isfile says False on any error).
    def is_dir(self) -> bool:
        fs, path = _filesystem(self.url)
        try:
            return bool(fs.isdir(path))
        except FileNotFoundError:
            return False
        except Exception as exc:  # the store's own error classes: named, never a False
            raise _os_error(exc, self.url) from None

    def is_file(self) -> bool:
        fs, path = _filesystem(self.url)
        try:
            return bool(fs.info(path)["type"] == "file")
        except FileNotFoundError:
            return False
        except Exception as exc:  # the store's own error classes: named, never a False
            raise _os_error(exc, self.url) from None

    def read_bytes(self) -> bytes:
        fs, path = _filesystem(self.url)
        try:
            return bytes(fs.cat_file(path))
        except Exception as exc:
            raise _os_error(exc, self.url) from None

    def read_range(self, start: int, end: int) -> bytes:
        fs, path = _filesystem(self.url)
        try:
            return bytes(fs.cat_file(path, start=start, end=end)) if end > start else b""
        except Exception as exc:
            raise _os_error(exc, self.url) from None

    def open(self, mode: str = "rb") -> _Reading:
        fs, path = _filesystem(self.url)
        try:
            return _Reading(fs.open(path, mode), self.url)
        except Exception as exc:
            raise _os_error(exc, self.url) from None


class _Reading:
    """A remote file whose read errors are :class:`OSError` (the runner's contract)."""

    def __init__(self, handle: Any, url: str) -> None:
        self._handle = handle
        self.url = url

    def read(self, size: int = -1) -> bytes:
        try:
            return bytes(self._handle.read(size))
        except Exception as exc:
            raise _os_error(exc, self.url) from None

    def __iter__(self) -> Iterator[bytes]:
        while True:
            try:
                line = self._handle.readline()
            except Exception as exc:
                raise _os_error(exc, self.url) from None
            if not line:
                return
            yield bytes(line)

    def __enter__(self) -> _Reading:
        return self

    def __exit__(self, *_: object) -> None:
        self._handle.close()


Location = Path | Remote


def locate(name: str) -> Location:
    """A task's file name back to what reads it."""
    return Remote(name) if is_url(name) else Path(name)


def read_range(name: str, start: int, end: int) -> bytes:
    """The bytes ``[start, end)`` of a file or object (a JSONL slice: one ranged read)."""
    if is_url(name):
        return Remote(name).read_range(start, end)
    with open(name, "rb") as log:
        log.seek(start)
        return log.read(end - start)


def expand_url(arg: str) -> list[tuple[Remote, bool]]:
    """A URL argument as the runner's sources: an object, a prefix to walk, or a glob's matches.

    Same rules as a local argument: a glob's matches are walked (non-receipts skipped), an
    object named directly is read as a receipt, and nothing found stops the run (exit 2).
    """
    fs, path = _filesystem(arg)
    try:
        if _GLOB.search(path):
            # A local tree (file://) is globbed by the tree walker (run/walk.py): fsspec's
            # walk follows symbolic links, so a link loop would never end.
            found = glob_matches(path) if _local(fs) else fs.glob(path)
            matches = sorted(str(m) for m in found)
            if not matches:
                raise InputRefused(f"{arg}: no file matches this pattern")
            return [(Remote(_url(fs, m, arg)), True) for m in matches]
        if fs.isfile(path):
            return [(Remote(arg), False)]
        if fs.isdir(path):
            return [(Remote(arg.rstrip("/")), True)]
    except SealverifyError:
        raise
    except Exception as exc:
        raise SourceUnreadable(f"{arg}: {_reason(exc)}") from None
    raise SourceUnreadable(f"{arg}: no such file or directory")


def walk(prefix: Remote, keep: Callable[[str], bool]) -> Iterator[Remote]:
    """Objects under ``prefix`` whose name ``keep`` accepts, in the local walk's order.

    Each level is listed and sorted by name, and a sub-prefix is entered in place: the order
    the runner's local walk gives, so a tree copied to a bucket is verified in the same order.
    A listing that fails stops the run, naming the prefix (exit 2), never a smaller run.
    As the local walk (run/walk.py), it is iterative and bounded: a prefix more than
    ``MAX_DEPTH`` levels down is refused by name, and on a local filesystem (``file://``) a
    directory is entered once, so a symbolic link loop is refused, not followed.
    """
    fs, _ = _filesystem(prefix.url)
    local = _local(fs)
    entered = {_inode(prefix)} if local else set()
    stack = [(iter(_listed(fs, prefix)), 1)]
    while stack:
        entries, depth = stack[-1]
        child, is_dir = next(entries, (None, False))
        if child is None:
            stack.pop()
        elif not is_dir:
            if keep(child.name):
                yield child
        elif depth >= MAX_DEPTH:
            raise InputRefused(
                f"{child.url}: deeper than {MAX_DEPTH} levels below {prefix.url} (not walked)"
            )
        else:
            if local:
                key = _inode(child)
                if key in entered:
                    raise InputRefused(
                        f"{child.url}: a directory already walked (a symbolic link loop, or "
                        "a second way into it; not walked twice)"
                    )
                entered.add(key)
            stack.append((iter(_listed(fs, child)), depth + 1))


def _listed(fs: Any, prefix: Remote) -> list[tuple[Remote, bool]]:
    """One level under ``prefix``, sorted by name: each child and whether it is a prefix."""
    _, path = _filesystem(prefix.url)
    try:
        entries = sorted(fs.ls(path, detail=True), key=lambda e: posixpath.basename(e["name"]))
    except Exception as exc:
        raise SourceUnreadable(f"cannot read directory {prefix.url}: {_reason(exc)}") from None
    listed = []
    for entry in entries:
        name = str(entry["name"]).rstrip("/")
        if name == path.rstrip("/"):
            continue  # some stores list the prefix itself
        listed.append((Remote(_url(fs, name, prefix.url)), entry.get("type") == "directory"))
    return listed


def _local(fs: Any) -> bool:
    protocol = fs.protocol
    return "file" in (protocol if isinstance(protocol, (tuple, list)) else (protocol,))


def _inode(prefix: Remote) -> tuple[int, int]:
    """A local directory's (device, inode), as the tree walker keys what it entered."""
    _, path = _filesystem(prefix.url)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SourceUnreadable(f"cannot read directory {prefix.url}: {exc.strerror}") from None
    return info.st_dev, info.st_ino

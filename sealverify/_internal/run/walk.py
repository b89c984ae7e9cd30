"""Walking a directory tree fail-closed: sorted, lazy, never out of the tree, never in a loop.

Every command that walks a directory or expands a glob goes through :func:`entries`, one
iterative walker (a stack, never recursion, so a tree thousands of levels deep is a named
refusal, not a ``RecursionError``). A directory is entered at most once, by (device, inode):
a link back to an enclosing directory is a loop, and a second way into a directory already
walked is refused too, since two links per level would otherwise make 2^depth paths.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from sealverify._internal.run.refused import InputRefused, SourceUnreadable

__all__ = [
    "MAX_DEPTH",
    "Entry",
    "entries",
    "followed",
    "glob_covers",
    "glob_matches",
    "inside",
    "walk_tree",
]

# Directory levels below the named directory a walk enters. Receipt stores are a few levels
# deep; a tree deeper than this is refused by name (exit 2) rather than walked.
MAX_DEPTH = 256

_MAGIC = re.compile(r"[*?\[]")


class Entry(NamedTuple):
    """One thing met in a walk: its path, its level below the root (1 = a child), its kind.

    ``is_dir`` and ``is_file`` describe a link's target (both false when it dangles).
    """

    path: Path
    depth: int
    is_dir: bool
    is_file: bool
    is_link: bool


def inside(path: Path, root: Path) -> Path:
    """``path`` resolved, or a refusal when a symbolic link takes it out of ``root``.

    ``root`` is the resolved tree the user named; a link whose target lies elsewhere would
    make the report speak of files the user did not name, so it is refused by name (exit 2).
    """
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop on Python 3.11
        raise InputRefused(
            f"{path}: dangling or looping symbolic link ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    if not target.is_relative_to(root):
        raise InputRefused(
            f"{path}: symbolic link to {target}, outside the tree {root} (not followed)"
        )
    return target


def _resolved_root(directory: Path) -> Path:
    try:
        return directory.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise SourceUnreadable(
            f"cannot read directory {directory}: {getattr(exc, 'strerror', None) or exc}"
        ) from None


def _listing(
    directory: Path, problem: Callable[[Path, str], None] | None
) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        why = f"cannot read directory {directory}: {exc.strerror or exc}"
        if problem is None:
            raise SourceUnreadable(why) from None
        problem(directory, f"cannot list: {exc.strerror or exc}")
        return []


def entries(
    directory: Path,
    *,
    descend: Callable[[Entry], bool] = lambda entry: True,
    follow_links: bool = True,
    problem: Callable[[Path, str], None] | None = None,
    every_link: bool = True,
) -> Iterator[Entry]:
    """Everything under ``directory``, lazily, in sorted path order (each entry, then its tree).

    ``descend`` prunes: a directory it refuses is yielded but not entered. With
    ``follow_links`` a symbolic link is followed when its target is inside the tree (else a
    refusal naming it); without, a link is yielded as met and never entered. ``problem``,
    when given, receives an unreadable directory instead of a refusal. Without
    ``every_link``, a followed link is checked only when it is entered (a glob then checks
    the links it matches: :func:`followed`), so a link the pattern never reaches is left
    alone. Always exit 2, named: a dangling link, a loop, a second way into a directory, a
    tree deeper than :data:`MAX_DEPTH`.
    """
    root = _resolved_root(directory)
    top = directory.stat()
    walked: dict[tuple[int, int], Path] = {(top.st_dev, top.st_ino): directory}
    # One frame per open directory: its sorted entries, the next index, its level, its key.
    stack: list[tuple[list[os.DirEntry[str]], int, int, tuple[int, int]]] = [
        (_listing(directory, problem), 0, 1, (top.st_dev, top.st_ino))
    ]
    enclosing: set[tuple[int, int]] = {(top.st_dev, top.st_ino)}
    while stack:
        listing, index, depth, key = stack[-1]
        if index == len(listing):
            stack.pop()
            enclosing.discard(key)
            continue
        stack[-1] = (listing, index + 1, depth, key)
        entry = _entry(listing[index], depth, root, follow_links and every_link)
        yield entry
        if not entry.is_dir or (entry.is_link and not follow_links) or not descend(entry):
            continue
        if entry.is_link and not every_link:
            followed(entry.path, root)
        if depth >= MAX_DEPTH:
            raise InputRefused(
                f"{entry.path}: deeper than {MAX_DEPTH} directory levels below {directory} "
                "(not walked)"
            )
        info = entry.path.stat()
        child = (info.st_dev, info.st_ino)
        if child in enclosing:
            raise InputRefused(
                f"{entry.path}: symbolic link loop (leads back to an enclosing directory)"
            )
        if child in walked:
            raise InputRefused(
                f"{entry.path}: a second way into the directory {walked[child]}, already "
                "walked (a symbolic link to a directory in the tree is not walked twice)"
            )
        walked[child] = entry.path
        enclosing.add(child)
        stack.append((_listing(entry.path, problem), 0, depth + 1, child))


def followed(path: Path, root: Path) -> Path:
    """A link's target, when the walk may follow it: else a refusal naming it (exit 2).

    Dangling, looping, out of the tree ``root``, or to neither a file nor a directory.
    """
    target = inside(path, root)
    if not (target.is_dir() or target.is_file()):
        raise InputRefused(f"{path}: a symbolic link to neither a file nor a directory")
    return target


def _entry(found: os.DirEntry[str], depth: int, root: Path, check: bool) -> Entry:
    path = Path(found.path)
    link = found.is_symlink()
    if link and check:
        followed(path, root)  # dangling, looping or out of the tree: exit 2, named
    try:
        is_dir, is_file = found.is_dir(), found.is_file()  # of the target, for a link
    except OSError as exc:
        if check:
            raise SourceUnreadable(f"{path}: cannot be read ({exc.strerror or exc})") from None
        is_dir = is_file = False  # a link not checked here: checked if it is ever used
    return Entry(path, depth, is_dir, is_file, link)


def walk_tree(directory: Path, wanted: Callable[[Path], bool]) -> Iterator[Path]:
    """The files under ``directory`` that ``wanted`` accepts, lazily, in sorted path order.

    Each directory's entries are sorted by name and subdirectories are entered in place,
    which is the order ``sorted(directory.rglob("*"))`` gives (paths compare part by part)
    without holding the whole tree's paths at once. Fails closed, as refusals naming the
    path (exit 2), never a skip: an unreadable directory, a dangling symbolic link, a link
    loop, a link (to a file or a directory) whose target is outside the tree, a second way
    into a directory, and a tree deeper than :data:`MAX_DEPTH` levels.
    """
    _resolved_root(directory)
    return (e.path for e in entries(directory) if e.is_file and wanted(e.path))


def glob_matches(pattern: str) -> Iterator[Path]:
    """What ``glob.glob(pattern, recursive=True)`` would match, found by :func:`entries`.

    The pattern's leading parts without a wildcard name the tree; the rest is matched one
    name at a time while walking it (``**`` is any number of directories), so a walk only
    enters directories the pattern can still match, and is bounded like any other walk:
    loops, second ways into a directory and links out of the tree are refused by name.
    Names starting with ``.`` match only a part that starts with ``.``, as in ``glob``.
    """
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) and not _MAGIC.search(parts[fixed]):
        fixed += 1
    if fixed == len(parts):
        path = Path(pattern)
        return iter([path] if os.path.lexists(path) else [])
    base = Path(*parts[:fixed]) if fixed else Path(".")
    if not base.is_dir():
        return iter([])
    return _matching(base, parts[fixed:])


def glob_covers(pattern: str, path: Path) -> bool:
    """Whether :func:`glob_matches` of ``pattern`` would reach ``path``, walking nothing.

    Reached is matched itself, or inside a matched directory (which the run then walks).
    ``path`` is compared resolved, with the pattern's fixed leading parts resolved too, so
    a symbolic link on either side does not hide that they name one file.
    """
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) and not _MAGIC.search(parts[fixed]):
        fixed += 1
    try:
        base = (Path(*parts[:fixed]) if fixed else Path(".")).resolve()
        target = path.resolve()
    except (OSError, RuntimeError):  # a link loop (RuntimeError on Python 3.11)
        return False
    if fixed == len(parts) or not target.is_relative_to(base):
        return fixed == len(parts) and (target == base or target.is_relative_to(base))
    rest = parts[fixed:]
    states = _closure(rest, {0})
    if len(rest) in states:
        return True  # "DIR/**" matches DIR itself
    for name in target.relative_to(base).parts:
        states = _step(rest, states, name)
        if len(rest) in states:
            return True
        if not states:
            return False
    return False


def _matching(base: Path, rest: tuple[str, ...]) -> Iterator[Path]:
    root = _resolved_root(base)
    start = _closure(rest, {0})
    if len(rest) in start:
        yield base  # "DIR/**" matches DIR itself, as glob does
    # The pattern positions reached after each enclosing directory, and after the last entry.
    chain: list[frozenset[int]] = []
    last = [start]

    def descend(entry: Entry) -> bool:
        if not last[0]:
            return False  # nothing below can match: not entered
        chain.append(last[0])
        return True

    for entry in entries(base, descend=descend, every_link=False):
        del chain[entry.depth - 1 :]
        last[0] = _step(rest, chain[-1] if chain else start, entry.path.name)
        if len(rest) in last[0]:
            if entry.is_link:
                followed(entry.path, root)  # a matched link must stay in the tree
            yield entry.path


def _closure(rest: tuple[str, ...], states: set[int]) -> frozenset[int]:
    """States with every ``**`` allowed to match no directory at all."""
    todo = list(states)
    done = set(states)
    while todo:
        i = todo.pop()
        if i < len(rest) and rest[i] == "**" and i + 1 not in done:
            done.add(i + 1)
            todo.append(i + 1)
    return frozenset(done)


def _step(rest: tuple[str, ...], states: frozenset[int], name: str) -> frozenset[int]:
    """The pattern positions reachable after one more path part ``name``."""
    hidden = name.startswith(".")
    following: set[int] = set()
    for i in states:
        if i == len(rest):
            continue
        part = rest[i]
        if part == "**":
            if not hidden:
                following.add(i)  # ** takes this directory and may take more
            continue
        if hidden and not part.startswith("."):
            continue
        if fnmatch.fnmatchcase(name, part):
            following.add(i + 1)
    return _closure(rest, following)

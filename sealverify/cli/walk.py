"""Walking a directory tree fail-closed: sorted, lazy, never out of the tree, never in a loop."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import click

__all__ = ["inside", "walk_tree"]


def inside(path: Path, root: Path) -> Path:
    """``path`` resolved, or a usage error when a symbolic link takes it out of ``root``.

    ``root`` is the resolved tree the user named; a link whose target lies elsewhere would
    make the report speak of files the user did not name, so it is refused by name (exit 2).
    """
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop on Python 3.11
        raise click.UsageError(
            f"{path}: dangling or looping symbolic link ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    if not target.is_relative_to(root):
        raise click.UsageError(
            f"{path}: symbolic link to {target}, outside the tree {root} (not followed)"
        )
    return target


def walk_tree(directory: Path, wanted: Callable[[Path], bool]) -> Iterator[Path]:
    """The files under ``directory`` that ``wanted`` accepts, lazily, in sorted path order.

    Each directory's entries are sorted by name and subdirectories are entered in place,
    which is the order ``sorted(directory.rglob("*"))`` gives (paths compare part by part)
    without holding the whole tree's paths at once. Fails closed, as usage errors naming the
    path (exit 2), never a skip: an unreadable directory, a dangling symbolic link, a link
    loop, and a link (to a file or a directory) whose target is outside the tree.
    """
    try:
        root = directory.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise click.UsageError(
            f"cannot read directory {directory}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    yield from _walk(directory, root, wanted, frozenset())


def _walk(
    directory: Path,
    root: Path,
    wanted: Callable[[Path], bool],
    seen: frozenset[tuple[int, int]],
) -> Iterator[Path]:
    try:
        here = directory.stat()
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        raise click.UsageError(
            f"cannot read directory {directory}: {exc.strerror or exc}"
        ) from None
    seen = seen | {(here.st_dev, here.st_ino)}
    for entry in entries:
        path = Path(entry.path)
        link = entry.is_symlink()
        if link:
            inside(path, root)  # dangling, looping or out of the tree: exit 2, named
        try:
            is_dir, is_file = entry.is_dir(), entry.is_file()
        except OSError as exc:
            raise click.UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        if link and not (is_dir or is_file):
            raise click.UsageError(f"{path}: a symbolic link to neither a file nor a directory")
        if is_dir:
            target = path.stat()
            if (target.st_dev, target.st_ino) in seen:
                raise click.UsageError(
                    f"{path}: symbolic link loop (leads back to an enclosing directory)"
                )
            yield from _walk(path, root, wanted, seen)
        elif is_file and wanted(path):
            yield path

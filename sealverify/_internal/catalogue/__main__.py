"""``python -m sealverify._internal.catalogue FILE``: writes FILE's id table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sealverify._internal.catalogue import replace_table


def main(argv: list[str] | None = None) -> int:
    """Rewrite the table between the markers; ``--check`` only reports a stale table (exit 1)."""
    parser = argparse.ArgumentParser(
        prog="python -m sealverify._internal.catalogue", description=__doc__
    )
    parser.add_argument("file", type=Path, help="the Markdown file (docs/checks.md)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    args = parser.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8")
        new = replace_table(text)
    except (OSError, ValueError) as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 2
    if new == text:
        return 0
    if args.check:
        print(f"{args.file}: the id table is stale; run without --check", file=sys.stderr)
        return 1
    args.file.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate sealverify/reports/data/check_descriptions.json from the docs' check-id tables.

Each docs/*.md table row whose first cell is one backticked check id gives that id's
description (the second cell) and the page that explains it. The html report shows the text
beside each failing check (sealverify/reports/explain_text.py). Run from the repository root:

    python tools/check_descriptions.py          # rewrite the file
    python tools/check_descriptions.py --check  # exit 1 when the file is out of date
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "sealverify" / "reports" / "data" / "check_descriptions.json"
_ROW = re.compile(r"^\| `([a-z0-9_-]+(?:\.[a-z0-9_*-]+)+)` \|(.*)\|\s*$", re.MULTILINE)
_STATUS_WORDS = {"pass", "fail", "not-evaluated", "info", "waived", "or", "and"}


_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


def _plain(cell: str) -> str:
    """A markdown cell as plain text: links become their text, code loses its backticks."""
    return _LINK.sub(r"\1", cell).replace("`", "")


def _description(cells: list[str]) -> str:
    """The row's longest cell that is more than a list of statuses, as plain text."""
    useful = [
        cell for cell in cells if cell and not set(re.findall(r"[a-z-]+", cell)) <= _STATUS_WORDS
    ]
    return _plain(max(useful, key=len, default=""))


def descriptions() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name == "checks.md":
            continue
        for match in _ROW.finditer(page.read_text(encoding="utf-8")):
            check_id = match.group(1)
            text = _description([cell.strip() for cell in match.group(2).split(" | ")])
            if text and len(text) > len(found.get(check_id, {}).get("text", "")):
                found[check_id] = {"text": text, "doc": f"docs/{page.name}"}
    return dict(sorted(found.items()))


_PREFIX = re.compile(r"`([a-z0-9-]+)\.\*`")
_PAGE = re.compile(r"\]\(([a-z0-9-]+\.md)")


def prefixes() -> dict[str, dict[str, str]]:
    """``prefix.*`` -> the page docs/checks.md names for ids under that prefix."""
    found: dict[str, dict[str, str]] = {}
    for row in (ROOT / "docs" / "checks.md").read_text(encoding="utf-8").splitlines():
        cells = row.split(" | ")
        page = _PAGE.search(cells[-1]) if len(cells) > 2 else None
        if page is None:
            continue
        for prefix in _PREFIX.findall(cells[0]):
            found.setdefault(f"{prefix}.*", {"text": "", "doc": f"docs/{page.group(1)}"})
    return found


def rendered() -> str:
    table = {**prefixes(), **descriptions()}
    return json.dumps(table, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = rendered()
    if "--check" in argv:
        return 0 if TARGET.read_text(encoding="utf-8") == text else 1
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

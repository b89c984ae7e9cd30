"""The public face is small and documented: what sits outside ``_internal/`` is in docs/api.md.

Everything of the package lives under ``sealverify/_internal/`` except the public modules
(docs/adr/0009-public-face-and-internal.md). A module outside it that is not private (no
leading underscore, not ``__main__``) must be one of the public modules docs/api.md lists, and
every name a public module offers in ``__all__`` is documented there.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sealverify"
API_DOC = ROOT / "docs" / "api.md"
# A row of docs/api.md's table of public modules: | `sealverify.errors` | ... |
_MODULE_ROW = re.compile(r"^\| `(sealverify(?:\.\w+)*)` \|", re.MULTILINE)


def documented_modules(text: str) -> set[str]:
    return set(_MODULE_ROW.findall(text))


def public_modules(package: Path) -> set[str]:
    """Every module of ``package`` whose dotted name has no private part (``_x``, not dunder)."""
    found = set()
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        private = [p for p in parts if p.startswith("_") and not p.endswith("__")]
        if not private and parts[-1] != "__main__":
            found.add(".".join(parts))
    return found


def undocumented(names: list[str], text: str) -> list[str]:
    """The names ``text`` never shows in code: `name`, `name(...)` or `module.name`."""
    return sorted(
        name for name in names if not re.search(rf"`(?:[\w.]+\.)?{re.escape(name)}[`(]", text)
    )


def test_every_module_outside_internal_is_a_documented_public_module() -> None:
    public = public_modules(PACKAGE)
    documented = documented_modules(API_DOC.read_text(encoding="utf-8"))
    assert public <= documented, (
        f"not under sealverify/_internal/ and not documented as public in docs/api.md: "
        f"{sorted(public - documented)}"
    )
    assert documented <= public, f"docs/api.md lists modules that are not: {documented - public}"


def test_the_public_face_is_small() -> None:
    assert public_modules(PACKAGE) == {"sealverify", "sealverify.errors", "sealverify.formats"}


@pytest.mark.parametrize("module", sorted(public_modules(PACKAGE)))
def test_every_public_name_is_documented(module: str) -> None:
    names = list(importlib.import_module(module).__all__)
    assert names, module
    missing = undocumented(names, API_DOC.read_text(encoding="utf-8"))
    assert not missing, f"{module}.__all__ names these, docs/api.md does not: {missing}"


def test_the_checks_themselves_see_what_they_must(tmp_path: Path) -> None:
    # A layer package beside the public face is found; one under _internal/ is not.
    pkg = tmp_path / "sealverify"
    for rel in (
        "__init__.py",
        "__main__.py",
        "_version.py",
        "errors.py",
        "receipts/__init__.py",
        "receipts/verify.py",
        "_internal/__init__.py",
        "_internal/wire/strictjson.py",
    ):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text('"""x."""\n', encoding="utf-8")
    beside = {f"sealverify.{name}" for name in ("errors", "receipts", "receipts.verify")}
    assert public_modules(pkg) == {"sealverify", *beside}
    assert documented_modules("| `sealverify` | a |\n| `sealverify.errors` | b |\n") == {
        "sealverify",
        "sealverify.errors",
    }
    shown = "`Check`, `render(report)`, `sealverify.exit_code` and EXIT_CODES, `Status_`"
    assert undocumented(["EXIT_CODES", "Check", "render", "exit_code", "Status"], shown) == [
        "EXIT_CODES",
        "Status",
    ]

"""The public API: what ``import sealverify`` costs and offers; docs/api.md run as a test."""

from __future__ import annotations

import ast
import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sealverify

ROOT = Path(__file__).resolve().parents[2]


def test_import_is_cheap_and_free_of_the_cli_stack() -> None:
    code = (
        "import sys, sealverify\n"
        "assert 'typing' not in sys.modules, 'typing costs start-up time'\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('sealverify.', 'click', "
        "'tabulate')))\n"
        "print(loaded)\n"
        "sealverify.verify_receipt\n"  # the first use loads the verify layer, still no click
        "print(sorted(m for m in sys.modules if m.startswith(('click', 'tabulate'))))\n"
        "sealverify.verify_sources\n"  # the run layer: no click, no fsspec, no workers yet
        "print(sorted(m for m in sys.modules if m.startswith(('click', 'tabulate', 'fsspec', "
        "'multiprocessing', 'distributed'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["['sealverify._version']", "[]", "[]"]


def test_every_public_name_resolves_to_its_layer() -> None:
    exports = sealverify._EXPORTS
    assert set(sealverify.__all__) == {*exports, "__version__"}
    for name, module in exports.items():
        assert getattr(sealverify, name) is getattr(importlib.import_module(module), name)
    assert set(sealverify.__all__) <= set(dir(sealverify))


def test_the_type_checking_imports_match_the_table() -> None:
    # mypy reads the TYPE_CHECKING block, the runtime reads _EXPORTS: they must agree.
    tree = ast.parse((ROOT / "sealverify" / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If))
    typed = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if node.module and node.module.startswith("sealverify")
    }
    assert typed == sealverify._EXPORTS


def test_every_public_name_is_on_the_api_page() -> None:
    # The page is the contract: a name in __all__ that it never mentions is not promised.
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    unnamed = [n for n in sealverify.__all__ if not re.search(rf"`(sealverify\.)?{n}\b", page)]
    assert unnamed == []


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'verify_everything'"):
        _ = sealverify.verify_everything  # type: ignore[attr-defined]


def test_the_api_page_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the page reads fixtures/ relative to the repository root
    result = doctest.testfile(
        str(ROOT / "docs" / "api.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.attempted >= 40
    assert result.failed == 0

"""No library function over 80 lines: each is a few named steps, each step one concern.

Measured with ``ast`` as ``end_lineno - lineno + 1`` of every function and method, nested ones
included, decorators and docstring counted. ``cli/`` (command glue) is outside the library
core and not held to it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "sealverify"
EXEMPT = frozenset({"cli"})
LIMIT = 80


def _sizes(tree: ast.AST) -> list[tuple[str, int, int]]:
    """Every function in ``tree`` as ``(name, first line, length in lines)``."""
    return [
        (node.name, node.lineno, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _library_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[-2 if len(path.relative_to(PACKAGE).parts) > 2 else 0]
        not in EXEMPT
    ]


def test_no_library_function_is_over_80_lines() -> None:
    modules = _library_modules()
    assert len(modules) > 100  # the walk found the library
    long = [
        f"{path.relative_to(PACKAGE)}:{line} {name} ({size} lines)"
        for path in modules
        for name, line, size in _sizes(ast.parse(path.read_text(encoding="utf-8")))
        if size > LIMIT
    ]
    assert long == [], "split these into named steps: " + "; ".join(long)


def test_the_measure_counts_methods_nested_and_async_functions() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(LIMIT))
    source = f"class C:\n    async def m(self):\n{body}\ndef outer():\n    def inner():\n{body}"
    sizes = {name: size for name, _, size in _sizes(ast.parse(source))}
    assert sizes == {"m": LIMIT + 1, "outer": LIMIT + 2, "inner": LIMIT + 1}
    assert _sizes(ast.parse("def f():\n" + "    x = 1\n" * (LIMIT - 1))) == [("f", 1, LIMIT)]


def test_the_exempt_packages_exist() -> None:
    assert all((PACKAGE / "_internal" / name / "__init__.py").is_file() for name in EXEMPT)

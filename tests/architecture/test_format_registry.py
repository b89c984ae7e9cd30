"""A format is chosen by its name in one place: the registry (``sealverify/formats.py``).

Every other module asks the registry for the format's object (``format_named``, ``STREAMS``,
``listing``) and calls the streaming interface (``reports/formats/protocol.py``): so a new
format is one module and one registry line, never a branch in each command. The test reads
every module with ``ast`` and refuses a comparison with a format's name (``fmt == "json"``,
``name in ("sarif", "junit")``, a ``match`` case) and a table keyed by format names.
"""

from __future__ import annotations

import ast

from sealverify.formats import FORMATS, STREAMS
from tests.conftest import ROOT

PACKAGE = ROOT / "sealverify"
REGISTRY = PACKAGE / "formats.py"
NAMES = frozenset(STREAMS)
_COMPARING = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
# Writers of what is not a report, each its command's own: named here, each with why.
OWN_WRITERS = {
    # decide writes a what-if stream of kernel steps, not a report (no subjects or checks)
    "sealverify/_internal/cli/decide_cmd.py": (
        "a table keyed by format names ['json', 'jsonl', 'table']"
    ),
}


def _names_in(node: ast.AST) -> set[str]:
    """The format names ``node`` spells: a string constant, or a literal collection of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_names_in(e) for e in node.elts)) if node.elts else set()
    return set()


def _hits(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, _COMPARING) for op in node.ops):
            names = set().union(*map(_names_in, [node.left, *node.comparators]))
            found.extend((node.lineno, f"compares with {n!r}") for n in sorted(names))
        elif isinstance(node, ast.match_case):
            for pattern in ast.walk(node.pattern):
                if isinstance(pattern, ast.MatchValue) and _names_in(pattern.value):
                    found.append((pattern.lineno, "matches a format name"))
        elif isinstance(node, ast.Dict):
            keys = set().union(*(_names_in(k) for k in node.keys if k is not None))
            if len(keys) > 1:  # one key is a member named like a format ("sarif": a path)
                found.append((node.lineno, f"a table keyed by format names {sorted(keys)}"))
    return found


def _offences() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REGISTRY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(ROOT).as_posix()
        own = OWN_WRITERS.get(rel)
        out.extend(f"{rel}:{line}: {what}" for line, what in _hits(tree) if what != own)
    return out


def test_no_module_but_the_registry_compares_a_format_name() -> None:
    assert _offences() == []


def test_the_check_sees_each_way_of_naming_a_format() -> None:
    # The test must fail on the code it guards against: each spelling below is refused.
    samples = [
        'if fmt == "json": pass',
        'x = "sarif" != name',
        'ok = fmt in ("sarif", "junit", "jsonl")',
        'match fmt:\n    case "html":\n        pass',
        '_SEPARATOR = {"json": ",", "sarif": ","}',
    ]
    for sample in samples:
        assert _hits(ast.parse(sample)), sample
    assert not _hits(ast.parse('suffix == ".json"\nkind == "receipts"\nx = {"sarif": p}'))


def test_every_format_the_registry_renders_streams() -> None:
    assert set(FORMATS) == set(STREAMS)
    for name, shown in STREAMS.items():
        assert shown.name == name

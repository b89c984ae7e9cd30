"""The fast-path switch: one flag selects the definitions, and both modes write the same reports.

``SEALVERIFY_REFERENCE=1`` is read once, when ``sealverify._internal.fastpath`` is imported, so the
first tests run fresh interpreters: one with the variable, one without. Each verifies the
demo receipts in every format under a profile that records every Python function entered:
the reports are byte for byte the same, under the switch no fast path is ever entered and no
cache keeps anything, and without it the fast paths run. Then the house rules the switch
rests on (no layer's ``__init__`` does anything, every cache is a ``fastpath.cache``), and
each fast path's answer against its definition's, through the public function in both
modes, on the project's own fixtures and on hostile values: duplicate members, deep nesting,
huge numbers, lone surrogates and the control characters the orjson writers spell
differently.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal import fastpath
from sealverify._internal.kernel import ljson
from sealverify._internal.primitives import identities, objectb
from sealverify._internal.reports.formats import jsonfmt
from sealverify._internal.results import model
from sealverify._internal.results.effects import Effect
from sealverify._internal.results.model import Check, Compared, Subject
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.wire import leanjson, serdejson, strictjson
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
PACKAGE = ROOT / "sealverify"

# The fast paths kept (docs/performance.md says what each is worth), by a function that runs
# only on the fast side of its branch on ``fastpath.reference()``.
FAST_ONLY = (
    "sealverify._internal.wire.serdejson._orjson_bytes",
    "sealverify._internal.wire.leanjson._orjson_text",
    "sealverify._internal.kernel.wirecue._object",
    "sealverify._internal.reports.formats.jsonfmt._subject_whole",
    "sealverify._internal.receipts.members._clean",
    "sealverify._internal.wording.rules._names_walk",
)
# The definitions that stand in for them under the switch.
DEFINITIONS = (
    "sealverify._internal.wire.serdejson._reference",
    "sealverify._internal.wire.leanjson.print_value",
    "sealverify._internal.kernel.guards.first_failed_guard",
    "sealverify._internal.reports.formats.jsonfmt.subject_text_reference",
)

# Run in a fresh interpreter: verify the demo receipts in every format under a profile that
# records every Python function entered; print each format's report digest, which of the
# fast-only and definition functions ran (by module and qualified name) and how much every
# cache holds afterwards.
_PROFILED_RUN = r"""
import hashlib, json, sys, types
from click.testing import CliRunner
from sealverify._internal import fastpath
from sealverify._internal.cli.main import cli
from sealverify_testkit import mint

def plain(value):  # a function with its own code (a cache wrapper's code is shared)
    own = isinstance(value, types.FunctionType) and not hasattr(value, "__wrapped__")
    return value if own else None

entered = set()
def profile(frame, event, arg):
    if event == "call":
        code = frame.f_code
        entered.add((frame.f_globals.get("__name__"), code.co_qualname))
sys.setprofile(profile)
digests = {}
for fmt in ("json", "jsonl", "sarif", "junit", "table", "html"):
    out = CliRunner().invoke(cli, ["verify", sys.argv[1], "--config-pubkey",
        mint.CONFIG_KEY.public_hex, "--receipt-pubkey", mint.RECEIPT_KEY.public_hex,
        "--format", fmt])
    digests[fmt] = [out.exit_code, hashlib.sha256(out.stdout_bytes).hexdigest()]
sys.setprofile(None)
names = {f"{module}.{name}" for module, name in entered}
from sealverify._internal.wording import rules as wording
from sealverify._internal.results import model
from sealverify._internal.wire import strictjson
kept = {
    "caches": sum(c.cache_info().currsize for c in fastpath.caches()),
    "passes": model._pass.cache_info().currsize,
    "roles": len(wording._KEY_ROLES),
    "numbers": len(strictjson.NUMBERS),
    "u memo": strictjson._U_MEMO != (None, None, None),
}
print(json.dumps({
    "digests": digests,
    "entered": sorted(names),
    "kept": kept,
}))
"""


def _profiled(tmp_path: Path, switch: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != fastpath.ENVIRONMENT}
    if switch is not None:
        env[fastpath.ENVIRONMENT] = switch
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    receipts = tmp_path / "receipts"
    receipts.mkdir(exist_ok=True)
    for path in sorted((FIXTURES / "demo" / "receipts").glob("*.json")):
        (receipts / path.name).write_bytes(path.read_bytes())
    out = subprocess.run(
        [sys.executable, "-c", _PROFILED_RUN, str(receipts)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """One profiled run without the switch and one under it, over the same folder."""
    folder = tmp_path_factory.mktemp("demo")
    return {"fast": _profiled(folder, None), "reference": _profiled(folder, "1")}


def test_both_modes_write_the_same_reports_in_every_format(
    runs: dict[str, dict[str, Any]],
) -> None:
    fast, reference = runs["fast"]["digests"], runs["reference"]["digests"]
    assert fast == reference
    assert len(fast) == 6 and {code for code, _ in fast.values()} == {1}  # the demo's failures


def test_without_the_switch_the_fast_paths_run(runs: dict[str, dict[str, Any]]) -> None:
    run = runs["fast"]
    for name in FAST_ONLY:
        assert name in run["entered"], name
    assert run["kept"]["caches"] > 0 and run["kept"]["passes"] > 0 and run["kept"]["roles"] > 0
    assert run["kept"]["numbers"] > 0 and run["kept"]["u memo"]


def test_under_the_switch_no_fast_path_runs_and_no_cache_keeps_anything(
    runs: dict[str, dict[str, Any]],
) -> None:
    run = runs["reference"]
    for name in FAST_ONLY:
        assert name not in run["entered"], name
    for name in DEFINITIONS:
        assert name in run["entered"], name
    assert run["kept"] == {"caches": 0, "passes": 0, "roles": 0, "numbers": 0, "u memo": False}


@pytest.mark.parametrize("switch", ["0", "", "yes"])
def test_only_the_value_1_selects_the_references(tmp_path: Path, switch: str) -> None:
    code = "from sealverify._internal import fastpath; print(fastpath.REFERENCE)"
    env = {**os.environ, fastpath.ENVIRONMENT: switch, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "False"


def test_use_reference_switches_the_flag_and_restores_it() -> None:
    before = fastpath.reference()
    with fastpath.use_reference():
        assert fastpath.reference()
        with fastpath.use_reference(False):
            assert not fastpath.reference()
        assert fastpath.reference()
    assert fastpath.reference() == before


def test_a_cache_is_emptied_as_the_mode_switches() -> None:
    calls: list[str] = []

    @fastpath.cache(maxsize=8)
    def echo(text: str) -> str:
        calls.append(text)
        return text

    if fastpath.REFERENCE:  # this process started under the switch: no cache keeps anything
        assert echo("a") == echo("a") == "a"
        assert calls == ["a", "a"]
        return
    with fastpath.use_reference(False):
        assert echo("a") == echo("a") == "a"
        assert calls == ["a"]  # kept
        with fastpath.use_reference():
            assert echo("a") == "a"
        assert calls == ["a", "a"]  # not read across the switch
        assert echo("a") == "a"
        assert calls == ["a", "a", "a"]  # nor back
    assert echo in fastpath.caches()


# --- the house rules the switch rests on -------------------------------------------------------

# Each layer's fast paths are branches in the functions that own them: a layer's package
# ``__init__`` holds its docstring and nothing else.
LAYERS = (
    "wire",
    "results",
    "reports",
    "primitives",
    "kernel",
    "partition",
    "wording",
    "receipts",
)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_package_init_has_no_side_effects(layer: str) -> None:
    tree = ast.parse((PACKAGE / "_internal" / layer / "__init__.py").read_text(encoding="utf-8"))
    assert ast.get_docstring(tree)
    assert len(tree.body) == 1, f"sealverify/_internal/{layer}/__init__.py does more than document"
    assert not (PACKAGE / "_internal" / layer / "fast.py").exists()


def _uses(tree: ast.AST, module: str, names: set[str]) -> list[str]:
    """Each ``module.name`` or ``from module import name`` in ``tree``, for ``name`` in names."""
    found = []
    alias = module.rpartition(".")[2]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names:
            if isinstance(node.value, ast.Name) and node.value.id == alias:
                found.append(f"{alias}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == module:
            found += [f"{module}.{a.name}" for a in node.names if a.name in names]
    return found


# Memoized loads of constant package data (read once, whatever the mode).
_CONSTANT_LOADS = {
    "_internal/catalogue/__init__.py",  # the check catalogue, package data
    "_internal/history/databases.py",  # the schema the project's own migrations make
    "_internal/kernel/unicode_nfd.py",  # the Unicode decomposition tables, package data
    "_internal/reports/formats/html/env.py",  # the HTML templates, package data
    "_internal/reports/formats/html/page.py",
}


def _only_constant_loads(tree: ast.AST) -> bool:
    """Whether every functools cache in ``tree`` is ``@cache`` on a function without parameters.

    Such a function has nothing to key on: it computes one constant (a pattern compiled, a
    table read) when first needed and returns it in either mode, so it is no fast path.
    """
    caches = {"cache", "lru_cache"}
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "functools"
        for alias in node.names
        if alias.name in caches
    }
    uses = [
        node
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id in imported)
        or (
            isinstance(node, ast.Attribute)
            and node.attr in caches
            and isinstance(node.value, ast.Name)
            and node.value.id == "functools"
        )
    ]
    constant = [
        decorator
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and not (node.args.args or node.args.posonlyargs or node.args.kwonlyargs)
        and node.args.vararg is None
        and node.args.kwarg is None
        for decorator in node.decorator_list
        if (isinstance(decorator, ast.Name) and decorator.id == "cache" and "cache" in imported)
        or (isinstance(decorator, ast.Attribute) and decorator.attr == "cache")
    ]
    return len(uses) == len(constant) and all(any(u is c for c in constant) for u in uses)


def test_every_cache_is_a_fastpath_cache() -> None:
    stray = []
    rebinding = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "_internal/fastpath.py" or name in _CONSTANT_LOADS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        uses = _uses(tree, "functools", {"lru_cache", "cache"})
        if not _only_constant_loads(tree):
            stray += [f"{name}: {c}" for c in uses]
        rebound = _uses(tree, "sealverify._internal.fastpath", {"register", "Pair"})
        rebinding += [f"{name}: {c}" for c in rebound]
    assert stray == []  # functools caches outside the switch
    assert rebinding == []  # names rebound at import


# --- every pair gives its reference's answer ---------------------------------------------------


def _outcome(function: Callable[..., object], *args: Any, **kwargs: Any) -> tuple[str, object]:
    try:
        return "ok", function(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        return type(exc).__name__, str(exc)
    except RecursionError:  # past the interpreter's limit: its wording depends on the frame
        return "RecursionError", ""


def _both(function: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    fast = _outcome(function, *args, **kwargs)
    with fastpath.use_reference():
        reference = _outcome(function, *args, **kwargs)
    assert fast == reference, (function, args, kwargs)


def _fixture_values() -> list[JsonValue]:
    """Every JSON document of fixtures/ (one per line of the line-delimited ones), parsed."""
    values: list[JsonValue] = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix not in (".json", ".jsonl", ".ndjson"):
            continue
        texts = path.read_text(encoding="utf-8").splitlines() if path.suffix != ".json" else []
        for text in texts or [path.read_text(encoding="utf-8")]:
            try:
                values.append(strictjson.parse_text(text))
            except strictjson.JsonError:
                continue  # a deliberately broken line of a demo log
    assert len(values) > 20
    return values


def _subtrees(value: JsonValue) -> list[JsonValue]:
    out = [value]
    if isinstance(value, dict):
        for item in value.values():
            out += _subtrees(item)
    elif isinstance(value, list):
        for item in value:
            out += _subtrees(item)
    return out


def _nested(depth: int) -> JsonValue:
    value: JsonValue = {"leaf": JsonNumber("1")}
    for index in range(depth):
        value = [value] if index % 2 else {"k": value}
    return value


HOSTILE: list[JsonValue] = [
    {"lone": "\ud800"},
    {"\udfff": "key"},
    ["\ud83d", "ok", "\U0001f600"],
    {"tab": "\t", "bs": "\b", "ff": "\f", "nl": "\n", "cr": "\r", "nul": "\x00", "us": "\x1f"},
    {"escaped": "\\t\\b\\f"},
    {"b": JsonNumber("1"), "a": JsonNumber("-0"), "é": JsonNumber("1.5e3")},
    {"big": JsonNumber("123456789012345678901234567890")},
    {"huge": JsonNumber("1e400")},
    {"tiny": JsonNumber("1e-400")},
    {"exp": JsonNumber("1E+0000009")},
    {"neg": JsonNumber("-9223372036854775809")},
    {"f": JsonNumber("0.1"), "g": JsonNumber("1.0"), "h": JsonNumber("18446744073709551616")},
    {"z": None, "a": [None, True, False, [], {}]},
    _nested(300),
    _nested(1200),
]


@pytest.fixture(scope="module")
def values() -> list[JsonValue]:
    found = [sub for value in _fixture_values() for sub in _subtrees(value)]
    return found + HOSTILE


def test_serde_writer_equals_its_reference(values: list[JsonValue]) -> None:
    answered = 0
    for value in values:
        for exact in (False, True):
            for sort_keys in (False, True):
                _both(serdejson.compact, value, exact=exact, sort_keys=sort_keys)
                _both(serdejson.compact_bytes, value, exact=exact, sort_keys=sort_keys)
        answered += _outcome(serdejson._orjson_bytes, value, False, False)[1] is not None
    assert answered > len(values) // 2  # the fast writer answered itself, not the reference


def test_lean_printers_equal_their_reference(values: list[JsonValue]) -> None:
    answered = 0
    for value in values:
        _both(leanjson.compress, value)
        answered += _outcome(leanjson._orjson_text, value)[1] is not None
    assert answered > len(values) // 2
    # the kernel's printer, over values parsed by Lean's rules (the last of duplicates kept)
    texts = [
        '{"a":1,"a":2,"b":{"c":1e2,"c":[1.0,-0,"\\ud800"]}}',
        '{"\\u0009":"\\t\\b\\f","z":0.000000001,"y":123456789012345678901234567890}',
        "[" * 200 + "]" * 200,
        *[
            json.dumps(json.loads(path.read_text(encoding="utf-8")))
            for path in sorted(FIXTURES.rglob("*.json"))
        ],
    ]
    for text in texts:
        parsed = ljson.parse_or_none(text)
        if isinstance(parsed, ljson.LeanError):
            continue
        _both(ljson.compress, parsed)
        assert leanjson._orjson_text(parsed) in (None, leanjson.print_value(parsed))


def test_canonical_request_equals_its_reference(values: list[JsonValue]) -> None:
    meta_values = [v for v in values if not isinstance(v, list) or len(v) < 50]
    for index, value in enumerate(meta_values):
        params: dict[str, JsonValue] = {"name": "tool", "arguments": {"x": value}}
        if index % 2:
            params["_meta"] = value
        if index % 3 == 0:
            params["requestState"] = value
        if index % 5 == 0:
            params["inputResponses"] = value
        _both(identities.canonical_request, params)
        _both(identities.legacy_canonical_request, params)


def test_object_b_blobs_equal_their_reference() -> None:
    every_byte = bytes(range(256))
    samples = [b"", every_byte, every_byte[::-1] * 3]
    samples += [path.read_bytes() for path in sorted(FIXTURES.rglob("*.bin"))]
    for data in samples:
        _both(objectb.blob, data)
        _both(objectb.preimage_v2, data, data[:7], data[::-1], "RELEASED", "op", "unknown")
        _both(objectb.preimage_v2, data, None, data, "PENDING", "\u00e9", "witnessed_external")


def test_report_json_equals_its_reference(values: list[JsonValue]) -> None:
    plain = [json.loads(path.read_text(encoding="utf-8")) for path in FIXTURES.rglob("*.json")]
    plain += [
        {"lone": "\ud800"},
        {"float": 1e16, "nan": float("nan")},
        {"big": 2**70},
        [(1, 2), {"t": ("a",)}],
    ]
    for value in plain:
        _both(jsonfmt.dumps, value)
        _both(jsonfmt.dumps_compact, value)


# --- the report model: checks and subjects -----------------------------------------------------


def _slots(check: Check) -> tuple[object, ...]:
    # every field, the effect too (Check's equality leaves the effect out)
    return tuple(getattr(check, name) for name in Check.__slots__)


def _check_by_init(
    check_id: str,
    status: str,
    reason: str,
    location: str,
    data: dict[str, Any],
    compared: Compared | None = None,
    effect: Effect = Effect.INFORMS,
) -> Check:
    """A check through the dataclass's own ``__init__``, its effect then set as given.

    ``__post_init__`` turns an INFORMS failure into FAILS; ``model._check`` sets the effect it
    is given, so the effect is set again here as given: both must build the very same check.
    """
    check = Check(check_id, status, reason, location, data, compared, effect)  # type: ignore[arg-type]
    if check.effect is not effect:
        object.__setattr__(check, "effect", effect)
    return check


def test_a_check_built_without_init_has_the_fields_and_effect_init_gives() -> None:
    compared = Compared("a", "b")
    for status in ("pass", "fail", "not-evaluated", "info", "waived"):
        for effect in Effect:
            for extra in ((), (None,), (compared,), (compared, effect)):
                fields = ("x.y", status, "why", "/at", {"k": 1}, *extra)
                fast = model._check(*fields)  # type: ignore[arg-type]
                reference = _check_by_init(*fields)  # type: ignore[arg-type]
                assert _slots(fast) == _slots(reference), fields


def test_every_check_helper_gives_the_same_effect_in_both_modes() -> None:
    def made() -> list[tuple[object, ...]]:
        checks = [
            model.passed("x.y", "fine"),
            model.passed("x.y", "fine", "/at", k=1),
            model.fail("x.y", "bad", "/at"),
            model.fail_compared("x.y", "bad", "/at", Compared("a", "b")),
            model.not_evaluated("x.y", "untold"),
            model.unpinned("x.y", "no pin"),
            model.reduced("x.y", "narrower"),
            model.info("x.y", "note"),
        ]
        checks.append(model.waived(checks[2], "accepted"))
        return [(type(check), *_slots(check)) for check in checks]

    fast = made()
    with fastpath.use_reference():
        reference = made()
    assert fast == reference
    assert {row[-1] for row in fast} == set(Effect)


def test_the_subject_writer_answers_for_a_subject_whose_outcome_is_an_outcome() -> None:
    checks = (model.passed("a.b", "fine"), model.fail("c.d", "bad", "/x", k=[1]))
    for outcome in (Outcome.VERIFIED, Outcome.NOT_EVALUATED, "VERIFIED"):
        subject = Subject("n", outcome, checks, {"family": "v3"}, "label")
        text = jsonfmt._subject_whole(subject, jsonfmt._ORJSON)
        body = jsonfmt._subject_whole(subject, jsonfmt._ORJSON_COMPACT)
        assert text is not None and body is not None  # written here, not left to the reference
        assert jsonfmt.subject_text(subject) == jsonfmt.subject_text_reference(subject)
        assert jsonfmt.subject_body(subject) == jsonfmt.subject_body_reference(subject)


@pytest.mark.parametrize(
    ("source", "constant"),
    [
        ("import functools\n@functools.cache\ndef f():\n    return 1\n", True),
        ("from functools import cache\n@cache\ndef f():\n    return 1\n", True),
        ("import functools\n@functools.cache\ndef f(x):\n    return x\n", False),
        ("from functools import cache\n@cache\ndef f(*, x=1):\n    return x\n", False),
        ("import functools\n@functools.lru_cache\ndef f():\n    return 1\n", False),
        ("import functools\ng = functools.cache(len)\n", False),
        ("from functools import cache\n@cache\ndef f():\n    return 1\nh = cache(len)\n", False),
    ],
)
def test_a_constant_load_is_a_cache_without_parameters(source: str, constant: bool) -> None:
    assert _only_constant_loads(ast.parse(source)) is constant

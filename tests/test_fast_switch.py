"""The fast-path boundary: one switch selects every layer's references, and each pair agrees.

``SEALVERIFY_REFERENCE=1`` is read once, when ``sealverify.fastpath`` is imported, so the
first tests run fresh interpreters: one with the variable, one without. A profile of a whole
``verify`` run in every format shows that under the switch no fast function is ever entered
(and, in the run without it, that they are). The last tests compare each fast path's answer
with its reference's, through the public function in both modes, on the project's own
fixtures and on hostile values: duplicate members, deep nesting, huge numbers, lone
surrogates and the control characters the orjson writers spell differently.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest

from sealverify import fastpath
from sealverify.kernel import fast as kernel_fast
from sealverify.kernel import ljson
from sealverify.reports import fast as reports_fast
from sealverify.reports import model
from sealverify.reports.effects import Effect
from sealverify.reports.formats import jsonfmt
from sealverify.reports.model import Check, Compared, Subject
from sealverify.reports.outcomes import Outcome
from sealverify.ruling import fast as ruling_fast
from sealverify.seal import fast as seal_fast
from sealverify.seal import identities, objectb
from sealverify.wire import fast as wire_fast
from sealverify.wire import leanjson, serdejson, strictjson
from sealverify.wire.strictjson import JsonNumber, JsonValue

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
LAYERS = (wire_fast, seal_fast, kernel_fast, ruling_fast, reports_fast)

# Run in a fresh interpreter: verify the demo receipts in every format under a profile that
# records every Python function entered, then print which registered fast and reference
# functions (by module and name) ran (the CLI imports a layer when a command first needs it,
# so they are looked up afterwards) and what fastpath.active() says.
_PROFILED_RUN = r"""
import json, sys, types
from click.testing import CliRunner
from sealverify import fastpath
from sealverify.cli.main import cli
from sealverify.testkit import mint

def plain(value):  # a function with its own code (a cache wrapper's code is shared)
    own = isinstance(value, types.FunctionType) and not hasattr(value, "__wrapped__")
    return value if own else None

def codes(side):
    found = {plain(getattr(p, side)) for p in fastpath._PAIRS} - {None}
    return {f.__code__: f"{f.__module__}.{f.__qualname__}" for f in found}

entered = set()
def profile(frame, event, arg):
    if event == "call":
        entered.add(frame.f_code)
sys.setprofile(profile)
for fmt in ("json", "jsonl", "sarif", "junit", "table", "html"):
    CliRunner().invoke(cli, ["verify", sys.argv[1], "--config-pubkey", mint.CONFIG_KEY.public_hex,
                             "--receipt-pubkey", mint.RECEIPT_KEY.public_hex, "--format", fmt])
sys.setprofile(None)
fast, reference = codes("fast"), codes("reference")  # every layer has registered by now
print(json.dumps({
    "active": fastpath.active(),
    "fast": sorted({fast[c] for c in entered & fast.keys()}),
    "reference": sorted({reference[c] for c in entered & reference.keys()}),
}))
"""


def _profiled(tmp_path: Path, switch: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != fastpath.ENVIRONMENT}
    if switch is not None:
        env[fastpath.ENVIRONMENT] = switch
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    receipts = tmp_path / "receipts"
    receipts.mkdir()
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


def _labels() -> set[str]:
    return {pair.label for layer in LAYERS for pair in layer.PAIRS}


def test_every_layer_fast_module_registers_its_pairs() -> None:
    # this process runs without the switch (the CI's second run sets it: then all reference)
    expected = "reference" if fastpath.REFERENCE else "fast"
    active = fastpath.active()
    assert set(active) == _labels()
    assert set(active.values()) == {expected}
    assert all(layer.PAIRS for layer in LAYERS)


def test_without_the_switch_the_fast_paths_run(tmp_path: Path) -> None:
    run = _profiled(tmp_path, None)
    assert set(run["active"]) == _labels()
    assert set(run["active"].values()) == {"fast"}
    # the profile sees them, so the test below could see them too
    for name in (
        "sealverify.wire.fast.serde_bytes",
        "sealverify.wire.fast.lean_compress",
        "sealverify.seal.fast.interleaved",
        "sealverify.seal.fast.canonical_line",
        "sealverify.kernel.fast.lean_compress",
        "sealverify.kernel.wirecue.proven_request",
        "sealverify.reports.model.Subject.sorted_checks",
        "sealverify.reports.model._check",
        "sealverify.reports.fast.subject_bytes_fast",
    ):
        assert name in run["fast"], name


@pytest.mark.parametrize("switch", ["1"])
def test_under_the_switch_only_references_run(tmp_path: Path, switch: str) -> None:
    run = _profiled(tmp_path, switch)
    assert set(run["active"]) == _labels()
    assert set(run["active"].values()) == {"reference"}
    assert run["fast"] == []  # no fast function was entered in the whole run
    assert "sealverify.seal.identities._canonical_request_reference" in run["reference"]
    assert "sealverify.kernel.ljson.compress_reference" in run["reference"]
    assert "sealverify.reports.model.Subject.sorted_checks_reference" in run["reference"]


@pytest.mark.parametrize("switch", ["0", "", "yes"])
def test_only_the_value_1_selects_the_references(tmp_path: Path, switch: str) -> None:
    code = "from sealverify import fastpath; print(fastpath.REFERENCE)"
    env = {**os.environ, fastpath.ENVIRONMENT: switch, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "False"


def _sealverify_modules() -> list[ModuleType]:
    import sealverify

    names = [
        info.name
        for info in pkgutil.walk_packages(sealverify.__path__, "sealverify.")
        if not info.name.endswith("__main__")
    ]
    return [importlib.import_module(name) for name in names]


@pytest.mark.skipif(fastpath.REFERENCE, reason="every name is bound to its reference")
def test_no_module_holds_a_reference_where_the_fast_path_belongs() -> None:
    # A module that imports a fast-path name by value (``from ljson import compress``) before
    # the layer's fast module binds it keeps the reference: the same answers, slowly. Each
    # such binding must be a pair of its own; a reference held under its own name is fine.
    modules = _sealverify_modules()
    references = {
        id(pair.reference): pair
        for pair in fastpath._PAIRS
        if isinstance(pair.reference, FunctionType)
    }
    registered = {(id(pair.owner), pair.name) for pair in fastpath._PAIRS}
    stray = [
        f"{module.__name__}.{name}"
        for module in modules
        for name, value in vars(module).items()
        if id(value) in references
        and name != getattr(value, "__name__", name)
        and (id(module), name) not in registered
    ]
    assert not stray
    assert len(modules) > 150


def test_use_reference_switches_and_restores_every_pair() -> None:
    before = fastpath.active()
    with fastpath.use_reference():
        assert set(fastpath.active().values()) == {"reference"}
        with fastpath.use_reference(False):
            assert set(fastpath.active().values()) == {"fast"}
        assert set(fastpath.active().values()) == {"reference"}
    assert fastpath.active() == before


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
        answered += _outcome(wire_fast.serde_bytes, value, False, False)[1] is not None
    assert answered > len(values) // 2  # the fast writer answered itself, not the reference


def test_lean_printers_equal_their_reference(values: list[JsonValue]) -> None:
    answered = 0
    for value in values:
        _both(leanjson.compress, value)
        answered += _outcome(wire_fast.lean_compress, value)[1] is not None
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
        assert kernel_fast.lean_compress(parsed) in (None, ljson.compress_reference(parsed))


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


def test_a_check_built_by_its_reference_has_the_same_fields_and_effect() -> None:
    compared = Compared("a", "b")
    for status in ("pass", "fail", "not-evaluated", "info", "waived"):
        for effect in Effect:
            for extra in ((), (None,), (compared,), (compared, effect)):
                fields = ("x.y", status, "why", "/at", {"k": 1}, *extra)
                fast = model._check(*fields)  # type: ignore[arg-type]
                reference = reports_fast._check_by_init(*fields)  # type: ignore[arg-type]
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
        text = reports_fast.subject_bytes_fast(subject)
        body = reports_fast._subject_fast(subject)
        assert text is not None and body is not None  # written here, not left to the reference
        assert text.decode() == jsonfmt.subject_text_reference(subject)
        assert body == jsonfmt.subject_body_reference(subject)

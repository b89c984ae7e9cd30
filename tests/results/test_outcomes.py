"""One outcome vocabulary, one exit-code table, one decision rule over declared effects.

Each check says where it is made what it does to its subject's outcome (``unpinned``,
``reduced``, ``fail``; anything else informs); ``decide`` reads those effects in the words of
the command's vocabulary, never a check's id. These tests hold that the creation sites of the
ids that cap declare it (written here, not read from the code), that the effect alone decides,
and that every command's exit code is its outcomes' code in the one table.
"""

from __future__ import annotations

import ast
import json
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify import formats
from sealverify._internal import catalogue
from sealverify._internal.approvals.tokens import VOCABULARIES
from sealverify._internal.primitives.trust import load_trust_file
from sealverify._internal.receipts.verify import VOCABULARY as RECEIPT
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.reports.formats import jsonfmt
from sealverify._internal.results import ids
from sealverify._internal.results.model import (
    Check,
    Report,
    fail,
    info,
    not_evaluated,
    passed,
    reduced,
    unpinned,
)
from sealverify._internal.results.outcomes import (
    EXIT_CODES,
    RECEIPTS_BY_SEVERITY,
    Effect,
    Outcome,
    Vocabulary,
    decide,
    exit_code,
    severity,
    worst_code,
)
from tests.helpers import library_reports
from tests.helpers.examples import EXAMPLE_LIST
from tests.helpers.library_reports import CASES, PREPARE

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sealverify"
DEMO = ROOT / "fixtures" / "demo"
_HELPERS = {"unpinned": Effect.CAPS_UNPINNED, "reduced": Effect.CAPS_REDUCED}
# The ids whose not-evaluated checks cap, and the effect each creation site must declare: an
# authority or anchor not established caps at UNPINNED (UNANCHORED for a chain), a reduced
# scope at REDUCED. Written here from docs/claims.md and docs/chain.md, not read from the code.
_CAPPING = {
    ids.APPROVAL_RECEIPT_KEY: Effect.CAPS_UNPINNED,
    ids.AUTHORITY_CONFIG_KEY: Effect.CAPS_UNPINNED,
    ids.AUTHORITY_RECEIPT_KEY: Effect.CAPS_UNPINNED,
    ids.AUTHORITY_APPROVAL_KEY: Effect.CAPS_UNPINNED,
    ids.AUTHORITY_PUBLISHED_KEY: Effect.CAPS_UNPINNED,
    ids.CHAIN_START: Effect.CAPS_UNPINNED,
    "chain.tail-unanchored": Effect.CAPS_UNPINNED,
    "history.chain-unanchored": Effect.CAPS_UNPINNED,
    ids.SCOPE_REQUEST_UNPARSEABLE: Effect.CAPS_REDUCED,
    ids.DECISION_AUTHENTICATED: Effect.CAPS_REDUCED,
    ids.REPLAY_DECISION: Effect.CAPS_REDUCED,
    ids.CLAIMS_UNBOUND: Effect.CAPS_REDUCED,
    ids.APPROVAL_TIME: Effect.CAPS_REDUCED,
}
# Ids that cap only where made for one reason: spine.signature with no pinned key (UNPINNED); its
# other not-evaluated sites (an algorithm or bytes it cannot check) come with a failure.
_SOMETIMES = {"spine.signature": Effect.CAPS_UNPINNED}


# -- the vocabulary ------------------------------------------------------------------------


def test_every_outcome_is_explained_and_has_an_exit_code() -> None:
    for word in Outcome:
        assert catalogue.lookup_outcome(word) is not None, word
        assert word in EXIT_CODES, word
    assert set(EXIT_CODES) == set(Outcome)


def test_an_outcome_is_its_word_in_every_spelling() -> None:
    # Reports hold the word's bytes: JSON, str(), format() and repr() as a plain string gives.
    assert json.dumps({Outcome.NOT_EVALUATED: Outcome.FAIL}) == '{"NOT EVALUATED": "FAIL"}'
    assert f"{Outcome.UNPINNED}" == str(Outcome.UNPINNED) == "UNPINNED"
    assert repr(Outcome.VALID) == repr("VALID")
    assert EXIT_CODES["UNANCHORED"] == EXIT_CODES[Outcome.UNANCHORED] == 3


def test_the_check_id_constants_are_catalogue_ids() -> None:
    known = catalogue.entries()
    for name in ids.__all__:
        value = getattr(ids, name)
        assert value in known, (name, value)
        assert name == value.upper().replace(".", "_").replace("-", "_"), name
    assert set(_CAPPING) <= set(known)


def test_the_catalogue_declares_each_constant_once() -> None:
    data = tomllib.loads(
        (PACKAGE / "_internal" / "catalogue" / "checks.toml").read_text(encoding="utf-8")
    )
    values = [getattr(ids, name) for name in ids.__all__]
    assert len(values) == len(set(values))
    assert set(values) <= set(data)


# -- the exit-code table -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "code"),
    [
        ([], 0),
        (["VERIFIED", "VALID", "DECLINE", "INTACT", "ADMISSIBLE", "PASS", "CLEAN"], 0),
        (["VERIFIED", "UNPINNED"], 3),
        (["UNANCHORED", "INTACT"], 3),
        (["UNPINNED", "REDUCED"], 4),
        (["REDUCED", "FAIL", "UNPINNED"], 1),
        (["VALID", "REFUSED"], 1),
        (["INTACT", "BROKEN", "UNANCHORED"], 1),
        (["PASS", "NOT EVALUATED"], 0),
    ],
)
def test_the_run_takes_its_worst_outcomes_code(outcomes: list[str], code: int) -> None:
    assert exit_code(outcomes) == code
    assert exit_code(outcomes, findings_failed=True) == 1
    assert worst_code(EXIT_CODES[o] for o in outcomes) == code


def test_the_severity_order_is_the_exit_codes_order() -> None:
    from sealverify._internal.reports.formats import terminal
    from sealverify._internal.reports.formats.html import verify_page

    assert RECEIPTS_BY_SEVERITY == ("VERIFIED", "UNPINNED", "REDUCED", "FAIL")
    assert [severity(o) for o in ("INTACT", "UNANCHORED", "REDUCED", "BROKEN")] == [0, 1, 2, 3]
    assert verify_page.OUTCOMES == RECEIPTS_BY_SEVERITY
    assert verify_page.TRIAGE == ("FAIL", "REDUCED", "UNPINNED")
    assert list(terminal._RANK) == list(RECEIPTS_BY_SEVERITY)


def _json_run(argv: list[str]) -> tuple[dict[str, object], int]:
    if "--format" not in argv:
        argv = [*argv, "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-m", "sealverify._internal.cli.main", *argv[1:]],
        capture_output=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    return json.loads(done.stdout), done.returncode


_JUDGED = ("verify", "frame", "chain", "approval", "partition", "lint", "skill")


@pytest.mark.parametrize(
    "argv",
    # partition (emit) writes a partition record, not a report, for an admissible frame.
    [a for _, a, _, _ in EXAMPLE_LIST if a[1] in _JUDGED and a[1:3] != ["partition", a[2]]]
    + [a for _, a, _, _ in EXAMPLE_LIST if a[1:3] == ["partition", "verify"]],
    ids=lambda argv: shlex.join(argv[1:4])[:50],
)
def test_every_commands_exit_code_comes_from_the_table(argv: list[str]) -> None:
    """Each worked example, as JSON: its code is the table's code of its subjects' outcomes."""
    report, returncode = _json_run(argv)
    subjects = report["subjects"]
    findings = report["findings"]
    assert isinstance(subjects, list) and subjects and isinstance(findings, list)
    outcomes = [s["outcome"] for s in subjects]
    assert all(o in set(Outcome) for o in outcomes), outcomes
    failed = any(f["status"] == "fail" for f in findings)
    assert report["exit_code"] == returncode == exit_code(outcomes, failed)


def _tools_with_a_repeated_name(tmp: Path) -> None:
    """The tools fixture with its second tool renamed to the first: no tool-set digest."""
    listing = json.loads((ROOT / "fixtures" / "tools" / "tools.json").read_bytes())
    listing["tools"][1]["name"] = listing["tools"][0]["name"]
    (tmp / "repeated.json").write_text(json.dumps(listing), encoding="utf-8")


def _tools_incomplete(tmp: Path) -> None:
    """The later tools fixture read as an incomplete list: not comparable, no subject at all."""
    listing = json.loads((ROOT / "fixtures" / "tools" / "tools-later.json").read_bytes())
    listing["capture"]["pages"]["complete"] = False
    (tmp / "incomplete.json").write_text(json.dumps(listing), encoding="utf-8")


# The tools and diff samples of tests/api/test_library_reports.py, and three more minted from the
# fixtures, each with the code it must exit with (written here, not read from the code).
_TOOLS_AND_DIFF: list[tuple[tuple[str, ...], Callable[[Path], None] | None, int]] = [
    (("tools", "digest", "fixtures/tools/tools.json"), None, 0),
    (("tools", "digest", "{tmp}/repeated.json"), _tools_with_a_repeated_name, 1),
    (("tools", "compare", "fixtures/tools/tools.json", "fixtures/tools/tools.json"), None, 0),
    (("tools", "compare", "fixtures/tools/tools.json", "fixtures/tools/tools-later.json"), None, 1),
    (
        ("tools", "compare", "fixtures/tools/tools.json", "{tmp}/incomplete.json"),
        _tools_incomplete,
        1,
    ),
    (("diff", "fixtures/frames/call.bin", "fixtures/frames/call.bin"), None, 0),
    (("diff", "fixtures/frames/call.bin", "fixtures/frames/call-other-trace.bin"), None, 1),
    (("diff", "fixtures/frames/call.bin", "fixtures/frames/refused-meta-null.bin"), None, 1),
    (
        (
            "diff",
            "fixtures/demo/receipts/verified-allow.receipt.json",
            "fixtures/demo/receipts/fail-edited-arguments.receipt.json",
        ),
        None,
        1,
    ),
] + [((case.args), PREPARE.get(case.id), -1) for case in CASES if case.args[0] in ("tools", "diff")]


def _table_answer(report: dict[str, Any]) -> int:
    """The code the table gives for the outcomes a tools or diff report writes."""
    subjects, findings = report["subjects"], report["findings"]
    failed = any(f["status"] == "fail" for f in findings)
    if report["command"] == "diff":
        # diff writes its verdict as a sentence; the verdict's word is in the summary. Drift in
        # a receipt's authorization surface fails a verdict the table would pass.
        checks = subjects[0]["checks"]
        surface = any(
            c["id"].startswith("diff.receipt.") and c["id"] != "diff.receipt.minor" for c in checks
        )
        verdict = report["summary"]["verdict"]
        assert verdict in set(Outcome), verdict
        return exit_code([verdict], surface)
    outcomes = [s["outcome"] for s in subjects]
    assert all(o in set(Outcome) for o in outcomes), outcomes
    if report["command"] == "tools digest":  # a flagged tool (capture rule 4) fails the run
        failed |= any(c["status"] == "fail" for s in subjects for c in s["checks"])
    return exit_code(outcomes, failed)


@pytest.mark.parametrize(
    ("args", "prepare", "code"),
    _TOOLS_AND_DIFF,
    ids=[f"{shlex.join(a)[:60]}-{c}" for a, _, c in _TOOLS_AND_DIFF],
)
def test_tools_and_diff_exit_codes_come_from_the_table(
    args: tuple[str, ...],
    prepare: Callable[[Path], None] | None,
    code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tools digest, tools compare and diff as JSON: the table's code for what they report."""
    from sealverify._internal.cli.main import cli

    monkeypatch.chdir(ROOT)
    if prepare is not None:
        prepare(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(cli, [*argv, "--format", "json"], catch_exceptions=False)
    report = json.loads(result.stdout_bytes)
    assert report["exit_code"] == result.exit_code == _table_answer(report)
    if code >= 0:
        assert result.exit_code == code


def test_every_summary_is_keyed_by_plain_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary keyed by Outcome members makes orjson refuse the report (a slower encoder)."""
    monkeypatch.chdir(ROOT)
    captured: list[Report] = []
    real = formats.render

    def spy(report: Report, *rest: Any, **named: Any) -> str:
        captured.append(report)
        return real(report, *rest, **named)

    monkeypatch.setattr(library_reports, "render", spy)
    for number, case in enumerate(CASES):
        work = tmp_path / str(number)
        work.mkdir()
        if case.id in PREPARE:
            PREPARE[case.id](work)
        captured.clear()
        case.library(work)
        # partition emit of an admissible frame writes a record, decide its own text: no report
        if not captured:
            assert case.args[:2] == ("partition", "emit") or case.args[0] == "decide", case.id
            continue
        summary = captured[-1].summary
        assert all(type(key) is str for key in summary), (case.id, list(summary))
        assert jsonfmt._plain(summary), case.id


# Where a subject's outcome may be compared with a literal word: the table's own module.
_WORD_HOME = {Path("_internal/results/outcomes.py")}


def _mentions_outcome(node: ast.expr) -> bool:
    """Whether ``node`` reads an outcome (or diff's verdict, whose words are outcomes too)."""
    source = ast.unparse(node).lower()
    return "outcome" in source or "verdict" in source


def _literal_words(node: ast.expr) -> list[str]:
    """The outcome words spelled as string literals in ``node`` (a literal, or a literal set)."""
    words = {str(o) for o in Outcome}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in words else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [w for item in node.elts for w in _literal_words(item)]
    return []


def _word_comparisons(tree: ast.Module) -> list[tuple[int, str]]:
    """Comparisons of a subject's outcome with a literal word, and any uppercase word compared."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for operand in operands:
            for word in _literal_words(operand):
                others = [o for o in operands if o is not operand]
                if word.isupper() or any(map(_mentions_outcome, others)):
                    found.append((node.lineno, word))
    return found


def test_no_module_compares_an_outcome_with_a_literal_word() -> None:
    """Outcome words are spelled once, in results/outcomes.py; everyone else reads Outcome."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative in _WORD_HOME or relative.parts[0] == "testkit":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{relative}:{line}: {word!r}" for line, word in _word_comparisons(tree)]
    assert found == []


def test_the_literal_word_scan_finds_a_comparison() -> None:
    """The scan above is not vacuous: each spelling it must catch, it catches."""
    caught = (
        'subject.outcome == "VERIFIED"',
        'self.outcome != "VALID"',
        'outcome in ("digested", "unchanged")',
        'verdict == "same-action"',
    )
    for source in caught:
        assert _word_comparisons(ast.parse(source)), source
    assert not _word_comparisons(ast.parse('check.status == "not-evaluated"'))


# -- effects declared where the check is made ----------------------------------------------------


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "literal"`` and ``NAME = ids.CONSTANT`` assignments of a file."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            value = _literal(node.value, found)
            if isinstance(target, ast.Name) and value is not None:
                found[target.id] = value
    return found


def _literal(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "ids":
            return str(getattr(ids, node.attr))
        if node.value.id == "publishedkeys" and node.attr == "CHECK_ID":
            return ids.AUTHORITY_PUBLISHED_KEY
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _creation_sites() -> list[tuple[str, str, str]]:
    """``(helper, check id, file:line)`` for every check-making call whose id is known."""
    sites = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "testkit" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constants(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            if name not in ("not_evaluated", "unpinned", "reduced"):
                continue
            check_id = _literal(node.args[0], constants)
            if check_id is not None:
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                sites.append((name, check_id, where))
    return sites


SITES = _creation_sites()


def test_a_capping_check_is_made_with_its_effect() -> None:
    """No not-evaluated check of an id that caps is made without saying so where it is made."""
    for helper, check_id, where in SITES:
        if check_id in _CAPPING:
            assert helper != "not_evaluated", f"{where}: {check_id} made by not_evaluated()"
            assert _HELPERS[helper] is _CAPPING[check_id], f"{where}: {check_id} by {helper}()"


def test_the_sites_that_cap_are_exactly_the_known_ones() -> None:
    declared = {check_id: _HELPERS[h] for h, check_id, _ in SITES if h in _HELPERS}
    # authority.config-key is made by _authority(role, check_id, ...), its id a parameter.
    declared[ids.AUTHORITY_CONFIG_KEY] = Effect.CAPS_UNPINNED
    assert declared == {**_CAPPING, **_SOMETIMES}


def _demo_subjects() -> list[tuple[str, Check]]:
    """Every check of every demo receipt, verified with its trust file and with no pins."""
    pinned = VerifyOptions(trust=load_trust_file((DEMO / "trust.json").read_bytes()))
    found = []
    for path in sorted((DEMO / "receipts").glob("*.receipt.json")):
        for options in (pinned, VerifyOptions()):
            subject = verify_receipt(path.read_bytes(), path.name, options)
            found.extend((subject.outcome, check) for check in subject.checks)
    return found


def test_on_the_demo_corpus_each_capping_check_carries_its_effect() -> None:
    checks = _demo_subjects()
    capping = [c for _, c in checks if c.status == "not-evaluated" and c.id in _CAPPING]
    assert {c.id for c in capping} >= {ids.AUTHORITY_RECEIPT_KEY, ids.SCOPE_REQUEST_UNPARSEABLE}
    for check in capping:
        assert check.effect is _CAPPING[check.id], (check.id, check.effect)
    for _, check in checks:
        if check.status == "fail":
            assert check.effect is Effect.FAILS, check.id


# -- decide ------------------------------------------------------------------------------------


def test_a_declared_effect_caps_any_id() -> None:
    ok = passed("format.fields", "r")
    assert decide([ok, unpinned("new.authority", "r")], RECEIPT) == (Outcome.UNPINNED, "")
    assert decide([ok, reduced("new.scope", "r")], RECEIPT) == (Outcome.REDUCED, "")
    assert decide([ok, not_evaluated("new.scope", "r")], RECEIPT) == (Outcome.VERIFIED, "")
    assert decide([ok, info("x.y", "r")], RECEIPT) == (Outcome.VERIFIED, "")
    assert decide([ok, unpinned("a.b", "r"), reduced("c.d", "r")], RECEIPT).outcome == "UNPINNED"
    assert decide([ok, unpinned("a.b", "r"), fail("c.d", "r")], RECEIPT) == (Outcome.FAIL, "")
    assert decide([ok, unpinned("a.b", "r")], VOCABULARIES["v2"]).outcome == "UNPINNED"
    assert decide([ok, reduced("a.b", "r")], VOCABULARIES["v2"]).outcome == "VALID"


def test_a_failure_fails_whatever_it_declares() -> None:
    ok = passed("format.fields", "r")
    for effect in Effect:
        bad = Check("x.y", "fail", "r", effect=effect)
        assert decide([ok, bad], RECEIPT) == (Outcome.FAIL, "")
    assert Check("x.y", "fail", "r").effect is Effect.FAILS


@pytest.mark.parametrize("check_id", [*sorted(_CAPPING), "x.y"])
@pytest.mark.parametrize("effect", list(Effect))
def test_the_effect_decides_never_the_id(check_id: str, effect: Effect) -> None:
    """A not-evaluated check caps by the effect it declares, whatever its id (no id table)."""
    ok = passed("format.fields", "r")
    check = Check(check_id, "not-evaluated", "r", effect=effect)
    expected = {Effect.CAPS_UNPINNED: "UNPINNED", Effect.CAPS_REDUCED: "REDUCED"}
    assert decide([ok, check], RECEIPT).outcome == expected.get(effect, "VERIFIED")


def test_each_word_of_a_vocabulary_is_reached_in_the_rules_order() -> None:
    words = Vocabulary(
        passed=Outcome.PASS,
        failed=Outcome.FAIL,
        unpinned=Outcome.UNPINNED,
        reduced=Outcome.REDUCED,
        not_evaluated=Outcome.NOT_EVALUATED,
        empty=Outcome.INVALID,
        labels={"x.bad": "LABEL"},
    )
    ok, bad = passed("x.ok", "r"), fail("x.bad", "r")
    assert decide([], words) == (Outcome.INVALID, "")
    assert decide([bad], words) == (Outcome.INVALID, "")  # no pass: the vacuity guard first
    assert decide([ok, fail("x.other", "r"), bad], words) == (Outcome.FAIL, "LABEL")
    assert decide([ok, fail("x.other", "r")], words) == (Outcome.FAIL, "")
    assert decide([ok, reduced("a", "r"), unpinned("b", "r")], words).outcome == "UNPINNED"
    assert decide([ok, not_evaluated("a", "r"), reduced("b", "r")], words).outcome == "REDUCED"
    assert decide([ok, not_evaluated("a", "r")], words).outcome == "NOT EVALUATED"
    assert decide([ok, info("a", "r")], words) == (Outcome.PASS, "")
    plain = Vocabulary(passed=Outcome.CLEAN, failed=Outcome.VIOLATIONS)
    assert decide([], plain).outcome == "CLEAN"  # no guard: nothing failed, nothing capped
    assert decide([unpinned("a", "r"), reduced("b", "r")], plain).outcome == "CLEAN"


def test_the_rule_names_no_check_id() -> None:
    """decide reads statuses and effects: its source names no id, its module imports no ids."""
    source = (PACKAGE / "_internal" / "results" / "outcomes.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "ids" not in imported
    known = set(catalogue.entries())
    literals = {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    assert not literals & known

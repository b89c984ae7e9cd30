"""The import graph, read with ``ast``: layers import only downward, and never in a circle.

The layer order is written once, in ``LAYERS`` below; docs/architecture.md draws it. Every
import counts, also one inside a function or under ``TYPE_CHECKING``, and so does a literal
``importlib.import_module("sealverify....")``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sealverify"

# Bottom first. A package may import from any lower level, never from its own level's other
# packages (they are independent siblings) nor from above. "" is the package face,
# sealverify/__init__.py: the public API, above everything it re-exports; "_version" is the
# version string, which every layer may name, "errors" the root of every error raised when a
# run cannot be done, which every layer derives its error classes from, "catalogue" the
# check-id catalogue (package data), which SARIF and `explain` read, and "fastpath" the one
# switch between every layer's fast paths and their references; "__main__" is
# `python -m sealverify`, above the CLI.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_version", "errors", "_internal", "catalogue", "fastpath"),
    ("wire", "results"),
    ("primitives", "reports", "tools", "skills"),
    # "formats" is the output-format registry (public: sealverify.formats), just above the
    # formats it names (reports), so the run layer and the CLI write through it.
    ("mcp", "history", "approvals", "formats"),
    ("kernel", "partition", "wording", "forensics", "attest"),
    ("receipts",),
    # A run of verify over inputs (discovery, local and object-storage reads, the session
    # pass, workers, Dask): the I/O ring around the pure core, re-exported by the package face.
    ("run",),
    # verify --follow's library (tailing, checkpoints, the loop) is beside the public API.
    ("", "follow"),
    ("cli",),
    ("__main__",),
)
LEVEL = {package: level for level, packages in enumerate(LAYERS) for package in packages}

# What the CLI takes from below the public API (besides sealverify.formats, the formats
# registry, and the report model and formats in _internal's results and reports). Every command's
# report is one `sealverify` call; these are the orchestration pieces around the calls (option
# spellings, the --state store, verify's streaming steps). docs/api.md names them; adding one is a
# decision.
CLI_BELOW_THE_API = {
    ("sealverify._internal.cli.common", "sealverify._internal.mcp.frame"),  # ERA_CHOICES for --era
    (
        "sealverify._internal.cli.common",
        "sealverify._internal.wire.spelling",
    ),  # HEX64: pins and chain heads
    (
        "sealverify._internal.cli.approval_cmd",
        "sealverify._internal.primitives.signatures",
    ),  # hex_key: pin parsing
    (
        "sealverify._internal.cli.approval_cmd",
        "sealverify._internal.wire.strictjson",
    ),  # --target-spec JSON
    ("sealverify._internal.cli.chain_cmd", "sealverify._internal.history.state"),  # --state store
    (
        "sealverify._internal.cli.chain_cmd",
        "sealverify._internal.history.databases",
    ),  # a --state URL, redacted
    ("sealverify._internal.cli.verify_cmd", "sealverify._internal.history.state"),  # --state store
    (
        "sealverify._internal.cli.verify_report",
        "sealverify._internal.history.facts",
    ),  # each receipt's facts, typed
    (
        "sealverify._internal.cli.verify_report",
        "sealverify._internal.history.state",
    ),  # --state checks, staged
    (
        "sealverify._internal.cli.verify_html",
        "sealverify._internal.history.databases",
    ),  # a --state URL, redacted
    (
        "sealverify._internal.cli.verify_report",
        "sealverify._internal.receipts.verify",
    ),  # streamed report tally
    (
        "sealverify._internal.cli.explain_cmd",
        "sealverify._internal.catalogue",
    ),  # the id catalogue it prints
    (
        "sealverify._internal.cli.github_action",
        "sealverify._internal.catalogue",
    ),  # SARIF links to the docs
    (
        "sealverify._internal.cli.github_action",
        "sealverify._internal.wire.spelling",
    ),  # HEX64, without click
    (
        "sealverify._internal.cli.partition_cmd",
        "sealverify._internal.partition.records",
    ),  # policies, key file
    (
        "sealverify._internal.cli.partition_cmd",
        "sealverify._internal.primitives.signatures",
    ),  # hex_key: pin parsing
    ("sealverify._internal.cli.tools_cmd", "sealverify._internal.tools.digests"),  # profile names
    # signed verification summaries (the attest extra), imported only when asked for
    ("sealverify._internal.cli.attest_run", "sealverify._internal.attest.envelope"),
    ("sealverify._internal.cli.attest_run", "sealverify._internal.attest.keys"),
    ("sealverify._internal.cli.attest_run", "sealverify._internal.attest.statement"),
    (
        "sealverify._internal.cli.attest_run",
        "sealverify._internal.kernel.profiles",
    ),  # verifier.version
    ("sealverify._internal.cli.attestation_cmd", "sealverify._internal.attest.check"),
    ("sealverify._internal.cli.attestation_cmd", "sealverify._internal.attest.keys"),
    (
        "sealverify._internal.cli.follow",
        "sealverify._internal.follow.engine",
    ),  # verify --follow's inputs
    (
        "sealverify._internal.cli.follow",
        "sealverify._internal.follow.loop",
    ),  # verify --follow's loop
    ("sealverify._internal.cli.follow", "sealverify._internal.history.state"),  # --state errors
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, name: str) -> str:
    """``from module import name``: the submodule when ``name`` is one, else ``module``."""
    candidate = f"{module}.{name}"
    return candidate if candidate in MODULES else module


def imports_of(module: str) -> Iterator[str]:
    """Every sealverify module ``module`` imports, wherever in the file the import is."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("sealverify"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if not base.startswith("sealverify"):
                continue
            for alias in node.names:
                yield _resolve(base, alias.name)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("sealverify")
        ):
            yield str(node.args[0].value)


def package_of(module: str) -> str:
    """The layer package of a module: ``sealverify._internal.receipts.verify`` -> receipts."""
    parts = module.split(".")
    if parts[1:2] == ["_internal"]:  # the layers sit under sealverify/_internal/
        parts = parts[1:]
    return parts[1] if len(parts) > 1 else ""


GRAPH = {module: sorted(set(imports_of(module)) - {module}) for module in MODULES}


def test_every_package_has_a_layer() -> None:
    unplaced = sorted({package_of(m) for m in MODULES} - set(LEVEL))
    assert not unplaced, (
        f"add these packages to LAYERS in tests/architecture/test_layers.py: {unplaced}"
    )


def test_every_import_names_a_module_that_exists() -> None:
    missing = [(m, t) for m, targets in GRAPH.items() for t in targets if t not in MODULES]
    assert not missing


def test_imports_run_only_downward() -> None:
    wrong = []
    for module, targets in GRAPH.items():
        source = package_of(module)
        for target in targets:
            dest = package_of(target)
            if dest != source and LEVEL[dest] >= LEVEL[source]:
                side = "sideways" if LEVEL[dest] == LEVEL[source] else "upward"
                wrong.append(f"{module} -> {target} ({side})")
    assert not wrong, "\n".join(wrong)


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in graph:
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_checks_themselves_see_what_they_must() -> None:
    # An upward edge and a cycle in a made-up graph are caught, so the two tests above can fail.
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b"], "b": []}) is None
    assert "sealverify._internal.receipts.verify" in GRAPH["sealverify._internal.run.engine"]
    assert (
        "sealverify._internal.receipts.spine" in GRAPH["sealverify._internal.receipts.verify"]
    )  # import_module
    assert (
        LEVEL[package_of("sealverify._internal.wire.strictjson")] < LEVEL[package_of("sealverify")]
    )


def test_the_cli_reaches_below_the_api_only_where_listed() -> None:
    reaches = {
        (module, target)
        for module, targets in GRAPH.items()
        if package_of(module) == "cli"
        for target in targets
        if package_of(target) not in ("", "cli", "formats", "reports", "results", "run")
    }
    assert reaches == CLI_BELOW_THE_API


# The test code beside the package (the testkit distribution, the benchmark) keeps the cap too.
BESIDE = {
    module_name(path): path
    for tree in (ROOT / "testkit", ROOT / "benchmarks")
    for path in sorted(tree.rglob("*.py"))
}


@pytest.mark.parametrize("module", sorted(MODULES.keys() | BESIDE.keys()))
def test_modules_stay_small(module: str) -> None:
    lines = {**MODULES, **BESIDE}[module].read_text(encoding="utf-8").count("\n")
    assert lines <= 800, f"{module} has {lines} lines: split it by concern"


_TEST_CODE = ("sealverify_testkit", "benchmarks.", "tests.")


def test_the_package_imports_no_test_code() -> None:
    # The wheel ships sealverify alone: the testkit, the benchmark and tests/ are not in it, so
    # no module of the package may import them, even lazily.
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # importlib.import_module("...") with a literal name
                names = [node.value] if node.value.startswith(_TEST_CODE) else []
            for name in names:
                top = name.partition(".")[0]
                assert not name.startswith(_TEST_CODE) and top != "tests", (module, name)


def test_the_run_layer_never_imports_click() -> None:
    # The run layer is the library's: what cannot be run is a SealverifyError, never a click
    # usage error; only cli/ turns options into arguments and errors into exit codes.
    for module, path in MODULES.items():
        if package_of(module) != "run":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n == "click" or n.startswith("click.") for n in names), module

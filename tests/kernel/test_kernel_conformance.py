"""The model against seal-host's own conformance corpora (read from ../shared at test time).

* ``wasm-spike/conformance_fixture.json``: 27 golden outputs (9 ``seal_init`` and 18
  ``seal_decide`` over 9 sessions, state carried), captured from build 0b5e7925, whose inputs
  are ``wasm-spike/seal_scenarios.mjs``;
* ``wasm-spike/policy_v2_conformance.mjs``: run as-is, with our model behind its ``ccall``;
* ``docs/conformance-wasm-ci-transcript.txt``: the bridge's target and record-chain heads for
  build d3067bc0;
* ``rust/tests/common/mod.rs``: the 61-case parser-boundary corpus and its labels.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from sealverify._internal.kernel.profiles import CURRENT, PROFILES
from sealverify._internal.kernel.session import KernelSession
from tests.helpers.kernel_upstream import (
    boundary_corpus,
    bridge_corpus,
    conformance_file,
    golden_scenarios,
    node,
)

GOLDEN_BUILD = "0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec"
BRIDGE_BUILD = "d3067bc07e74977dedf6bb96d79a710c4b61143f6e8db151655bc88ece8b9d66"


def test_27_golden_outputs_byte_for_byte() -> None:
    golden = json.loads(conformance_file("wasm-spike_conformance_fixture.json").read_text())
    corpus = golden_scenarios()
    outputs: list[str] = []
    for scenario in corpus["scenarios"]:
        init = KernelSession.init_trusted(corpus["payload"], PROFILES[GOLDEN_BUILD])
        outputs.append(init.output)
        assert init.session is not None
        for step in scenario["steps"]:
            result = init.session.decide(step["input"])
            assert result.route == step["expect"], scenario["name"]
            outputs.append(result.output)
    assert len(golden) == 27
    assert outputs == golden


def test_policy_v2_conformance_script_passes_on_the_model(tmp_path: Path) -> None:
    node_bin = node()
    for name, target in (
        ("wasm-spike_policy_v2_conformance.mjs", "policy_v2_conformance.mjs"),
        ("wasm-spike_seal_scenarios.mjs", "seal_scenarios.mjs"),
    ):
        shutil.copyfile(conformance_file(name), tmp_path / target)
    (tmp_path / "build-core").mkdir()
    (tmp_path / "build-core" / "seal.js").write_text(
        "const { execFileSync } = require('node:child_process');\n"
        "module.exports = async function () {\n"
        "  const history = [];\n"
        "  return { ccall(name, ret, types, args) {\n"
        "    history.push([name, args]);\n"
        "    return execFileSync(process.env.SHIM_PYTHON, [process.env.SHIM],\n"
        "      { input: JSON.stringify(history), encoding: 'utf8' });\n"
        "  } };\n"
        "};\n"
    )
    shim = Path(__file__).parents[1] / "helpers" / "kernel_wasm_shim.py"
    env = {"SHIM_PYTHON": sys.executable, "SHIM": str(shim), "PATH": "/usr/bin:/bin"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [node_bin, "policy_v2_conformance.mjs"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "POLICY-V2 WASM CONFORMANCE PASS" in done.stdout


def _chain_head(payloads: list[str]) -> str:
    # scripts/seal_log.mjs: genesis, then sha256(prev || 0x1f || payload) per audit line.
    head = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()
    for payload in payloads:
        head = hashlib.sha256(f"{head}\x1f{payload}".encode()).hexdigest()
    return head


def test_bridge_chain_heads_of_build_d3067bc0() -> None:
    transcript = conformance_file("docs_conformance-wasm-ci-transcript.txt").read_text()
    assert BRIDGE_BUILD in transcript
    target_want = re.search(r"emit ([0-9a-f]{64})", transcript).group(1)  # type: ignore[union-attr]
    head_want = re.search(r"chain heads equal.*?: ([0-9a-f]{64})", transcript).group(1)  # type: ignore[union-attr]
    deployed_want = re.search(r"head == model head: ([0-9a-f]{64})", transcript).group(1)  # type: ignore[union-attr]
    corpus = bridge_corpus()
    # The transcript was recorded with the bridge at seal-host 46a9e93, whose policy's guard
    # target was [literal db, arg database, literal write, arg sql]; the script in ../shared is
    # the later one (full arguments). Everything else is the shared script's own corpus.
    policy = json.loads(corpus["policy"])
    policy["safety"]["tools"][0]["target"] = [
        {"literal": "db"},
        {"arg": "database"},
        {"literal": "write"},
        {"arg": "sql"},
    ]
    payload = json.dumps(policy, separators=(",", ":"))
    shape = corpus["call"]

    def call(request_id: int, sql: str) -> str:
        line = shape.replace('"id":7', f'"id":{request_id}', 1)
        return line.replace('"sql":"q"', f'"sql":{json.dumps(sql)}', 1)

    def step(line: str, approvals: list[object] | None = None) -> str:
        envelope = {"line": line, "now": 1000, "approvals": approvals or []}
        envelope.update(votes="", grants="", forecasts="")
        return json.dumps(envelope, separators=(",", ":"))

    profile = PROFILES[BRIDGE_BUILD]

    def session() -> KernelSession:
        init = KernelSession.init_trusted(payload, profile)
        assert init.session is not None, init.output
        return init.session

    probe = session().decide(step(call(1, "drop table customers")))
    target = re.search(r"approval required: ([0-9a-f]{64})", probe.response or "").group(1)  # type: ignore[union-attr]
    assert target == target_want
    steps = [step(call(200 + i, sql)) for i, sql in enumerate(corpus["disguises"])]
    steps += [step(line) for line in corpus["passthrough"]]
    steps.append(step(call(1, "drop table customers"), [{"target": target, "issuedAt": 1000}]))
    run = session()
    results = [run.decide(s) for s in steps]
    assert [r.route for r in results] == ["block"] * 11 + ["passthrough"] * 3 + ["forward"]
    assert _chain_head([r.audit for r in results if r.audit]) == head_want
    deployed = session()
    audits = [
        deployed.decide(step(call(300 + i, sql))).audit
        for i, sql in enumerate(["drop table customers", "delete from ledger", "truncate audit"])
    ]
    assert _chain_head([a for a in audits if a]) == deployed_want


_LEAN_CLASS = {
    "agree-routed": "act",
    "reduced-scope-structural": "act",
    "reduced-scope-unparseable": "act",
    "agree-unrouted": "passthrough",
    "wire-refused": "refuse",
}


def test_parser_boundary_corpus_labels() -> None:
    """Each label's kernel side: 1 (mediated), 0 (passthrough) or 2 (refused by a guard).

    The label also records what the Rust host's serde view makes of the line; that half is not
    the kernel's and is not re-derived here.
    """
    cases = boundary_corpus()
    assert len(cases) == 61
    init = KernelSession.init_trusted(
        '{"epoch":1,"safety":{"approval":{"control_file":"x"},"tools":[]}}', CURRENT
    )
    assert init.session is not None
    got = {name: init.session.classify(line)[0] for name, line, _ in cases}
    assert got == {name: _LEAN_CLASS[label] for name, _, label in cases}

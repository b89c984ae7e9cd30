"""A pin that matched no receipt is a run note naming what the receipts carry instead.

A valid key that signed nothing makes every demo receipt FAIL exactly as a forgery would; the
run must end with an ``authority.pin-unmatched`` note naming the pin and the keys the receipts
do name, through every path the parent receives results by (one process, workers, slim
subjects of each format). Pins that match say nothing.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.keys import TestKey

from sealverify._internal.cli.main import cli
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.pin_use import PinUse, carry
from sealverify._internal.receipts.verify import VerifyOptions
from sealverify._internal.results.model import Subject, passed
from tests.conftest import ROOT

DEMO = str(ROOT / "fixtures" / "demo" / "receipts")
TRUST = str(ROOT / "fixtures" / "demo" / "trust.json")
# A valid Ed25519 key that signed none of the demo receipts.
UNUSED = TestKey("pin-use-unused", hashlib.sha256(b"pin use: a key that signed nothing").digest())
UNUSED_BUILD = hashlib.sha256(b"pin use: a build no receipt names").hexdigest()


def _notes(*args: str) -> tuple[int, list[dict[str, object]]]:
    run = CliRunner().invoke(cli, ["verify", DEMO, "--format", "json", *args])
    report = json.loads(run.stdout)
    return run.exit_code, [f for f in report["findings"] if f["id"] == "authority.pin-unmatched"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_valid_key_that_signed_nothing_is_named_with_the_keys_the_receipts_carry(
    jobs: str,
) -> None:
    code, notes = _notes("--config-pubkey", UNUSED.public_hex, "--jobs", jobs)
    assert code == 1
    (note,) = notes
    assert note["status"] == "info"
    data = note["data"]
    assert isinstance(data, dict) and data["kind"] == "config" and data["pin"] == UNUSED.public_hex
    assert data["carried"] == [
        {"value": mint.CONFIG_KEY.public_hex, "receipts": 11},
        {"value": mint.OTHER_CONFIG_KEY.public_hex, "receipts": 1},
    ]
    reason = str(note["reason"])
    assert UNUSED.public_hex[:16] in reason and "--config-pubkey" in reason
    assert mint.CONFIG_KEY.public_hex[:16] in reason and "matched no receipt" in reason


@pytest.mark.parametrize("fmt", ["table", "jsonl", "html", "sarif", "junit"])
def test_every_format_carries_the_note(fmt: str) -> None:
    run = CliRunner().invoke(
        cli, ["verify", DEMO, "--receipt-pubkey", UNUSED.public_hex, "--format", fmt]
    )
    assert run.exit_code == 1
    assert "authority.pin-unmatched" in run.stdout
    assert UNUSED.public_hex[:16] in run.stdout


def test_sarif_says_the_note_as_a_note_and_junit_as_no_failure() -> None:
    args = ["verify", DEMO, "--receipt-pubkey", UNUSED.public_hex, "--format"]
    sarif = json.loads(CliRunner().invoke(cli, [*args, "sarif"]).stdout)
    (note,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "authority.pin-unmatched"]
    assert note["level"] == "note" and UNUSED.public_hex[:16] in note["message"]["text"]
    junit = CliRunner().invoke(cli, [*args, "junit"]).stdout
    (case,) = [line for line in junit.splitlines() if "authority.pin-unmatched" in line]
    assert "<system-out>" in case and "<failure" not in case
    cases = junit.count("<testcase ")
    failures = sum("<failure " in line for line in junit.splitlines())
    assert f'tests="{cases}" failures="{failures}"' in junit and failures == cases - 1


def test_an_unused_kernel_build_is_named_and_pins_beside_matching_ones_say_nothing() -> None:
    # The demo build is left unpinned, so its three receipts fail kernel.identity.
    code, notes = _notes("--kernel-sha256", UNUSED_BUILD)
    assert code == 1
    (note,) = notes
    data = note["data"]
    assert isinstance(data, dict) and data["kind"] == "kernel" and data["pin"] == UNUSED_BUILD
    assert {c["value"] for c in data["carried"]} == {  # type: ignore[union-attr]
        mint.DEMO_WASM_SHA256,
        "28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657",
    }
    # the demo trust file's keys and its build all match receipts: no note at all, nor for a
    # build pinned beside them that no receipt needs (every receipt's build is pinned)
    assert _notes("--trust", TRUST) == (1, [])
    assert _notes("--trust", TRUST, "--kernel-sha256", UNUSED_BUILD) == (1, [])
    assert _notes() == (1, [])  # nothing pinned: nothing to say


def test_distinct_values_are_bounded_and_a_spine_signer_counts_as_a_match() -> None:
    options = VerifyOptions(trust=TrustStore.from_pins(config=[UNUSED.public_hex]))
    use = PinUse.of(options)
    for index in range(2_500):
        key = hashlib.sha256(str(index).encode()).hexdigest()
        use.add(Subject(f"r{index}", "FAIL", facts={"config_key": key}))
    assert len(use.seen["config"]) == 1_000
    (note,) = use.notes()
    assert "and 2495 receipt(s) naming others" in note.reason
    # A spine receipt names its signer by key id only: a seal verified under a receipt pin
    # counts as that pin's match, also once the worker has slimmed the subject.
    receipt_pins = VerifyOptions(trust=TrustStore.from_pins(receipt=[UNUSED.public_hex]))
    spine = Subject(
        "s.json",
        "UNPINNED",
        (passed("authority.receipt-key", "matches pin"),),
        facts={"family": "spine"},
    )
    slim = carry(spine, Subject("s.json", "UNPINNED"))
    assert isinstance(slim, Subject) and slim.facts == {"spine_signed": True}
    use = PinUse.of(receipt_pins)
    use.add(slim)
    assert use.notes() == []


def test_carry_keeps_every_field_of_the_slim_subject_and_adds_the_pin_facts() -> None:
    full = Subject("r.json", "VERIFIED", facts={"config_key": "a" * 64, "family": "v3"})
    check = passed("binding.x", "held")
    slim = Subject("r.json", "VERIFIED", (check,), {"family": "v3"}, "label", {"time": 1})
    carried = carry(full, slim)
    assert carried == Subject(
        "r.json",
        "VERIFIED",
        (check,),
        {"family": "v3", "config_key": "a" * 64},
        "label",
        {"time": 1},
    )
    assert carried.display == {"time": 1} and slim.facts == {"family": "v3"}  # slim untouched
    # nothing to add: the slim subject itself
    assert carry(Subject("r.json", "FAIL"), slim) is slim


def test_an_approver_pin_that_matched_no_token_is_named_with_the_ids_the_tokens_carry() -> None:
    fixtures = ROOT / "fixtures" / "approval"
    args = ["approval", str(fixtures / "tokens.ndjson"), "--frame", str(fixtures / "frame.bin")]
    args += ["--server", "sealverify-demo@1.0.0", "--at", "1786000060000", "--format", "json"]
    wrong = CliRunner().invoke(cli, [*args, "--approval-pubkey", UNUSED.public_hex])
    report = json.loads(wrong.stdout)
    (note,) = [f for f in report["findings"] if f["id"] == "authority.pin-unmatched"]
    signer = report["subjects"][0]["facts"]["signer_key_id"]
    assert note["status"] == "info" and note["data"]["carried"] == [{"value": signer, "tokens": 1}]
    assert UNUSED.public_hex[:16] in note["reason"] and signer[:16] in note["reason"]
    right_key = "33eeb75bcee9e2349937c1cc205a4673e0e0563e19a1dc8617995bcd7f9174de"
    right = CliRunner().invoke(cli, [*args, "--approval-pubkey", right_key])
    assert json.loads(right.stdout)["findings"] == []

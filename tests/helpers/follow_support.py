"""What the follow tests share: minted receipts (sessions too), batch outcomes, conditions.

Receipts come from the testkit. A session's calls are ALLOWs of ``search_notes`` under a
budget of one call, each claiming its place (``trace ok (N events)``) and re-signed under the
pinned keys: the first passes, a second is over budget, so a batch run refutes it when it
comes after the first (and only then).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.kernel_model import overall_verdict
from sealverify_testkit.records import Cert, emitted_bytes, parse_record, render_compact

from sealverify._internal.cli.main import cli
from sealverify._internal.kernel.ljson import parse
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from tests.helpers.kernel_minting import CONFIG, HOST

PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_key.hex(),), receipt=(mint.RECEIPT_KEY.public_key.hex(),)
)
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)
PIN_ARGS = (
    "--config-pubkey",
    mint.CONFIG_KEY.public_key.hex(),
    "--receipt-pubkey",
    mint.RECEIPT_KEY.public_key.hex(),
    "--allow-published-keys",
)
BUDGET = CONFIG[:-1] + ',"budget":{"budgets":[{"name":"calls","cap":1,"tools":["search_notes"]}]}}'
# A session that runs long: a budget of 250 calls and a temporal policy its calls trigger.
LONG = (
    CONFIG[:-1] + ',"budget":{"budgets":[{"name":"calls","cap":250,"tools":["search_notes"]}]},'
    '"temporal":{"policies":[{"name":"no-shell-after-search","type":"no_after",'
    '"trigger":["search_notes"],"forbidden":["shell_exec"]}]}}'
)


def _restate(doc: dict[str, JsonValue], certs: list[Cert]) -> dict[str, JsonValue]:
    """The receipt's kernel output re-written to claim ``certs`` (and re-signed by the caller)."""
    out = parse(str(doc["emitted_bytes"]))
    assert isinstance(out, dict)
    audit = parse(str(out["audit"]))
    assert isinstance(audit, dict)
    sha = str(audit.get("request_sha256", ""))
    doc["emitted_bytes"] = emitted_bytes(
        JsonNumber("1"), str(audit["tool"]), certs, sha, JsonNumber("1")
    )
    doc["certs"] = [c.host_form() for c in certs]
    doc["verdict"], doc["reason"], doc["deny_kernel"] = overall_verdict(certs)
    return doc


def session_call(session: int, index: int, position: int, config: str = BUDGET) -> bytes:
    """Call ``index`` (< 256) of session ``session``, claiming ``position``, one line."""
    frame = mint.tools_call_frame("search_notes", f'{{"q":"{index}"}}', request_id=index)
    ctx = dataclasses.replace(
        HOST,
        temporal_events=position,
        operation_seed=bytes([session % 256, index]),
        session=f"seal-host-rs/stdio:{9000 + session}:1785999990000",
    )
    doc = parse_record(mint.mint_host_v3(frame, config, ctx=ctx))
    trace = Cert("temporal", "allow", f"trace ok ({position} events)")
    within = Cert("budget", "allow", "within budget: search_notes")
    doc = _restate(doc, [Cert("safety", "allow", "explicit policy allow"), trace, within])
    signed = mint.resign_v3(doc, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]
    return render_compact(signed)


def plain_receipts(n: int, seed: bytes = b"follow") -> list[bytes]:
    """``n`` distinct receipts, one line each (each the first call of its own session)."""
    return [render_compact(parse_record(r)) for r in mint.mint_many(n, seed=seed)]


def batch_outcomes(*paths: str, rename: dict[str, str] | None = None) -> dict[str, str]:
    """Each receipt's outcome in one batch ``verify --format jsonl`` of ``paths``."""
    done = CliRunner().invoke(cli, ["verify", *paths, *PIN_ARGS, "--format", "jsonl", "-j", "1"])
    assert done.exit_code in (0, 1, 3, 4), done.output
    outcomes: dict[str, str] = {}
    for line in done.stdout.splitlines():
        value = json.loads(line)
        if value["type"] == "subject":
            outcomes[value["name"]] = value["outcome"]
    return outcomes


def replay_status(event: dict[str, object]) -> str:
    checks = event["checks"]
    assert isinstance(checks, list)
    return next(str(c["status"]) for c in checks if c["id"] == "replay.decision")


def until(condition: Callable[[], bool], what: str, deadline: float = 60.0) -> None:
    """Poll ``condition`` until it holds; fail after ``deadline`` seconds (never a pass)."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def relabelled(line: bytes, session: int) -> bytes:
    """The receipt ``line`` moved to session ``session`` (its idempotency key too), re-signed.

    The copy names the same operation in another session: what an attacker holding the
    pinned keys makes of one honest call to have it counted twice.
    """
    doc = parse_record(line)
    view = doc["effect_view"]
    assert isinstance(view, dict)
    old = str(view["session"])
    name = f"seal-host-rs/stdio:{9000 + session}:1785999990000"
    view["session"] = name
    view["idempotency_key"] = str(view["idempotency_key"]).replace(old, name, 1)
    signed = mint.resign_v3(doc, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]
    return render_compact(signed)

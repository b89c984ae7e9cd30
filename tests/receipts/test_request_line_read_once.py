"""One parse of a receipt's request line: the view's, handed to the re-derivation.

Counts the parses of each receipt's request line while ``verify`` judges it (the view's strict
parse, the kernel's one-pass proof and ``Json.parse``, the version gate's), the kernel's
per-line caches emptied first, so a line parsed again anywhere counts twice.
"""

from __future__ import annotations

import pytest
from sealverify_testkit import mint
from sealverify_testkit.mint import KERNEL_VALID_CONFIG

from sealverify._internal.kernel import gate, session
from sealverify._internal.kernel.lpath import trim_ascii
from sealverify._internal.receipts import view as view_module
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.receipts.view import read_view
from sealverify._internal.wire.framing import raw_line


def _frame(index: int) -> bytes:
    arguments = f'{{"command":"rotate-logs --shard {index}","cwd":"/srv/app","keep":{index}}}'
    return mint.tools_call_frame("shell_exec", arguments, request_id=index)


def _receipts() -> list[bytes]:
    minted = list(mint.mint_many(12, kernel_config=KERNEL_VALID_CONFIG, ruled_target=False))
    minted += list(mint.mint_many(6, seed=b"ruled"))
    minted += [mint.mint_fleet_v2(_frame(i), KERNEL_VALID_CONFIG) for i in range(4)]
    return minted


def test_verify_parses_each_request_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    receipts = _receipts()
    lines: dict[str, int] = {}
    for raw in receipts:
        read = read_document(raw)
        assert read.document is not None
        view = read_view(read.document, read.family)
        if view.request_frame is None:
            continue
        lines[trim_ascii(raw_line(view.request_frame).decode("utf-8"))] = 0

    def counted(function):  # type: ignore[no-untyped-def]
        def call(text, *args, **kwargs):  # type: ignore[no-untyped-def]
            key = text.decode("utf-8") if isinstance(text, bytes) else text
            if trim_ascii(key) in lines:
                lines[trim_ascii(key)] += 1
            return function(text, *args, **kwargs)

        return call

    monkeypatch.setattr(view_module, "parse_bytes", counted(view_module.parse_bytes))
    monkeypatch.setattr(session, "proven_request", counted(session.proven_request))
    monkeypatch.setattr(session, "parse", counted(session.parse))
    monkeypatch.setattr(gate, "parse", counted(gate.parse))
    session.classify_line.cache_clear()  # type: ignore[attr-defined]
    session.line_keys_safe.cache_clear()  # type: ignore[attr-defined]
    verdicts = [verify_receipt(raw, f"r{index}") for index, raw in enumerate(receipts)]
    assert any(v.facts.get("rederivation") == "pass" for v in verdicts)
    assert set(lines.values()) == {1}, lines

"""Guard-target specs for minting: every target-part kind the kernel's policy parser accepts."""

from __future__ import annotations

import json

from sealverify_testkit.mint import DEMO_KERNEL_CONFIG

__all__ = ["GUARD_SPECS", "guarded_config"]

# mcp-seal-dev@316d741 ``Seal/Policy.lean`` ``TargetPart``: ``literal`` (a fixed string),
# ``arg`` (a dotted path into the arguments, empty segments dropped, to a scalar) and
# ``full_arguments: true``, in any combination; ``parseTargetPart`` reads ``literal`` first.
# Since Stage A (mcp-seal-dev f119487, 2026-07-21) a guarded rule may hold only the first
# spec below; the others are what a policy held before, and what older receipts carry.
GUARD_SPECS: dict[str, str] = {
    "full-arguments": '[{"full_arguments":true}]',
    "literal": '[{"literal":"prod-db"}]',
    "arg-string": '[{"arg":"command"}]',
    "arg-nested": '[{"arg":"db.name"}]',
    "arg-number": '[{"arg":"limit"}]',
    "arg-boolean": '[{"arg":"dry_run"}]',
    "arg-null": '[{"arg":"note"}]',
    "arg-empty-segments": '[{"arg":".db..name."}]',
    "literal-wins": '[{"literal":"fixed","full_arguments":true}]',
    "mixed": '[{"literal":"prod-db"},{"arg":"db.name"},{"full_arguments":true}]',
    "with-comment": '[{"full_arguments":true,"_comment":"unknown members are tolerated"}]',
}


def guarded_config(tool: str, spec: str, *, server: str | None = None) -> str:
    """The demo kernel config with one more guarded rule: ``tool`` guarded by ``spec`` (JSON).

    ``server`` replaces the demo server name when given. Member order and spellings are kept
    as written, so the signed config is exactly this text.
    """
    rule = f'{{"name":{json.dumps(tool)},"mode":"guard","target":{spec}}}'
    config = DEMO_KERNEL_CONFIG.replace('"tools":[', f'"tools":[{rule},', 1)
    if server is not None:
        config = config.replace('"sealverify-demo@1.0.0"', json.dumps(server), 1)
    return config

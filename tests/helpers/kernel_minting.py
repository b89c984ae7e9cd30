"""What the re-derivation tests mint: a policy the kernel loads, three calls, the current build.

The policy allows ``search_notes``, denies ``shell_exec`` and guards ``db.execute`` on its full
arguments; receipts name the current kernel build, so ``replay.decision`` can pass.
"""

from __future__ import annotations

from sealverify_testkit import mint

from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.wire.strictjson import JsonValue

BUILD = CURRENT.wasm_sha256
CONFIG = (
    '{"epoch":1,"server":"sealverify-demo@1.0.0","safety":{"approval":{"ttl_seconds":120,'
    '"control_file":"/tmp/approvals.ndjson"},"tools":['
    '{"name":"search_notes","mode":"allow"},'
    '{"name":"shell_exec","mode":"deny"},'
    '{"name":"db.execute","mode":"guard","target":[{"full_arguments":true}]}]}}'
)
HOST = mint.HostContext(wasm_sha256=BUILD)
FLEET = mint.FleetContext(wasm_sha256=BUILD)
GUARDED = mint.tools_call_frame("db.execute", '{"sql":"drop table x","database":"prod"}')
DENIED = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /"}')
SEARCH = mint.tools_call_frame("search_notes", '{"q":"a"}')
TARGET = mint.guard_target_of(GUARDED, CONFIG)

Receipt = dict[str, JsonValue]

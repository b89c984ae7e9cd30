"""sealverify: an independent, offline verifier for seal MCP mediator evidence.

The names in ``__all__`` are the public API (docs/api.md): pure functions over bytes and
frozen values, no file or network I/O, and ``verify_sources``, a run over files, directories,
logs and object storage. Everything else is importable but not promised.
Each name is loaded on first use, so ``import sealverify`` stays cheap (start-up is part of
every run) and never imports the command-line stack (click, tabulate).
"""

from __future__ import annotations

import importlib

from sealverify._version import __version__

# typing.TYPE_CHECKING without importing typing, which would cost more than the rest of this
# module's start-up; mypy treats any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from sealverify._internal.approvals.report import (
        ApprovalOptions,
        ApprovalTally,
        approval_report,
        approval_subject,
    )
    from sealverify._internal.approvals.tokens import TokenResult, check_token, split_tokens
    from sealverify._internal.forensics import (
        DiffInputError,
        Side,
        diff_report,
        input_required_reply,
        load_side,
    )
    from sealverify._internal.forensics.diff_run import DiffInput, DiffOptions, diff_inputs
    from sealverify._internal.history.chain import (
        Anchor,
        ChainResult,
        bind_receipts,
        parse_state_file,
        receipt_audit,
        verify_logs,
    )
    from sealverify._internal.kernel.ljson import ModelLimit
    from sealverify._internal.kernel.profiles import KERNEL_PROFILES, BuildProfile
    from sealverify._internal.kernel.replay import Rederivation, rederive
    from sealverify._internal.kernel.whatif import (
        HostApproval,
        WhatIf,
        WhatIfStream,
        what_if,
        what_if_report,
        what_if_stream,
    )
    from sealverify._internal.mcp.frame import (
        FrameAnalysis,
        FrameOptions,
        analyze_frame,
        analyze_stream,
        iter_stream,
    )
    from sealverify._internal.mcp.frame_report import frame_report
    from sealverify._internal.mcp.frame_stream import (
        FRAME_LIMIT_ID,
        MAX_FRAMES,
        FrameTally,
        frame_stream_report,
        frame_subjects,
    )
    from sealverify._internal.partition.emit_report import Emitted, partition_emit, select_frame
    from sealverify._internal.partition.verify_report import attestation_report
    from sealverify._internal.primitives.trust import TrustStore, load_trust_file
    from sealverify._internal.receipts.chain_report import ChainOptions, ReceiptGroup, chain_report
    from sealverify._internal.receipts.families import ReceiptDocument, read_document
    from sealverify._internal.receipts.inventory import Inventory, InventoryBuilder, trust_template
    from sealverify._internal.receipts.rederivation import raw_line_index
    from sealverify._internal.receipts.verify import (
        DEFAULT_KERNEL_SHA256,
        VerifyOptions,
        build_report,
        verify_jsonl,
        verify_receipt,
    )
    from sealverify._internal.results.effects import Effect
    from sealverify._internal.results.model import Check, Report, Status, Subject
    from sealverify._internal.results.outcomes import (
        EXIT_CODES,
        Outcome,
        Verdict,
        Vocabulary,
        decide,
        exit_code,
    )
    from sealverify._internal.results.vocabulary import Family, Role
    from sealverify._internal.run.sources import verify_sources
    from sealverify._internal.skills.report import (
        DEFAULT_SKILL_BASE,
        FetchedSkill,
        ResourceFile,
        SkillTree,
        skill_report,
    )
    from sealverify._internal.tools.report import (
        DigestRun,
        ToolsSource,
        compare_report,
        digest_report,
        profile_named,
    )
    from sealverify._internal.wire.framing import (
        FrameBytes,
        frame_of,
        iter_stdio,
        split_stdio,
        stdio_frame_count,
    )
    from sealverify._internal.wire.streamed import read_http_frame, read_stdio_frames
    from sealverify._internal.wire.strictjson import Limits
    from sealverify._internal.wording.lint_report import (
        LINTED_SUFFIXES,
        LintTally,
        RuleSet,
        lint_report,
        lint_subject,
        parse_rules,
    )
    from sealverify.errors import (
        InputError,
        InputFileError,
        InternalError,
        OptionError,
        SealverifyError,
        SourceError,
        StoreError,
    )

# Where each public name lives. The layer test (tests/architecture/test_layers.py) checks that this
# table and the imports above name the same objects.
_EXPORTS: dict[str, str] = {
    # the one root of every error raised when a run cannot be done (bad evidence never raises)
    "SealverifyError": "sealverify.errors",
    "InputError": "sealverify.errors",
    "InputFileError": "sealverify.errors",
    "OptionError": "sealverify.errors",
    "SourceError": "sealverify.errors",
    "StoreError": "sealverify.errors",
    "InternalError": "sealverify.errors",
    # the report every check produces
    "Check": "sealverify._internal.results.model",
    "Report": "sealverify._internal.results.model",
    "Status": "sealverify._internal.results.model",
    "Subject": "sealverify._internal.results.model",
    # outcomes, what a check does to them, the one exit-code table; families and trust roles
    "Outcome": "sealverify._internal.results.outcomes",
    "Effect": "sealverify._internal.results.effects",
    "EXIT_CODES": "sealverify._internal.results.outcomes",
    "exit_code": "sealverify._internal.results.outcomes",
    "decide": "sealverify._internal.results.outcomes",
    "Verdict": "sealverify._internal.results.outcomes",
    "Vocabulary": "sealverify._internal.results.outcomes",
    "Family": "sealverify._internal.results.vocabulary",
    "Role": "sealverify._internal.results.vocabulary",
    # verify receipts
    "DEFAULT_KERNEL_SHA256": "sealverify._internal.receipts.verify",
    "VerifyOptions": "sealverify._internal.receipts.verify",
    "build_report": "sealverify._internal.receipts.verify",
    "verify_jsonl": "sealverify._internal.receipts.verify",
    "verify_receipt": "sealverify._internal.receipts.verify",
    "read_document": "sealverify._internal.receipts.families",
    "ReceiptDocument": "sealverify._internal.receipts.families",
    "TrustStore": "sealverify._internal.primitives.trust",
    # verify a run's sources as `sealverify verify` does: files, directories, globs, logs, URLs
    "verify_sources": "sealverify._internal.run.sources",
    "load_trust_file": "sealverify._internal.primitives.trust",
    # what a set of receipts carries, and a trust template to confirm (docs/inventory.md)
    "Inventory": "sealverify._internal.receipts.inventory",
    "InventoryBuilder": "sealverify._internal.receipts.inventory",
    "trust_template": "sealverify._internal.receipts.inventory",
    # analyse a frame
    "FrameBytes": "sealverify._internal.wire.framing",
    "frame_of": "sealverify._internal.wire.framing",
    "split_stdio": "sealverify._internal.wire.framing",
    "iter_stdio": "sealverify._internal.wire.framing",
    "stdio_frame_count": "sealverify._internal.wire.framing",
    "read_stdio_frames": "sealverify._internal.wire.streamed",
    "read_http_frame": "sealverify._internal.wire.streamed",
    "FrameAnalysis": "sealverify._internal.mcp.frame",
    "FrameOptions": "sealverify._internal.mcp.frame",
    "analyze_frame": "sealverify._internal.mcp.frame",
    "analyze_stream": "sealverify._internal.mcp.frame",
    "iter_stream": "sealverify._internal.mcp.frame",
    "frame_report": "sealverify._internal.mcp.frame_report",
    "FRAME_LIMIT_ID": "sealverify._internal.mcp.frame_stream",
    "MAX_FRAMES": "sealverify._internal.mcp.frame_stream",
    "frame_stream_report": "sealverify._internal.mcp.frame_stream",
    "FrameTally": "sealverify._internal.mcp.frame_stream",
    "frame_subjects": "sealverify._internal.mcp.frame_stream",
    "Limits": "sealverify._internal.wire.strictjson",
    # compare two frames or receipts
    "DiffInputError": "sealverify._internal.forensics",
    "Side": "sealverify._internal.forensics",
    "diff_report": "sealverify._internal.forensics",
    "load_side": "sealverify._internal.forensics",
    "input_required_reply": "sealverify._internal.forensics",
    "DiffInput": "sealverify._internal.forensics.diff_run",
    "DiffOptions": "sealverify._internal.forensics.diff_run",
    "diff_inputs": "sealverify._internal.forensics.diff_run",
    # walk an audit chain
    "Anchor": "sealverify._internal.history.chain",
    "ChainResult": "sealverify._internal.history.chain",
    "bind_receipts": "sealverify._internal.history.chain",
    "parse_state_file": "sealverify._internal.history.chain",
    "receipt_audit": "sealverify._internal.history.chain",
    "verify_logs": "sealverify._internal.history.chain",
    "ChainOptions": "sealverify._internal.receipts.chain_report",
    "ReceiptGroup": "sealverify._internal.receipts.chain_report",
    "chain_report": "sealverify._internal.receipts.chain_report",
    # check an approval
    "TokenResult": "sealverify._internal.approvals.tokens",
    "ApprovalOptions": "sealverify._internal.approvals.report",
    "ApprovalTally": "sealverify._internal.approvals.report",
    "approval_report": "sealverify._internal.approvals.report",
    "approval_subject": "sealverify._internal.approvals.report",
    "check_token": "sealverify._internal.approvals.tokens",
    "split_tokens": "sealverify._internal.approvals.tokens",
    # check Agent Skills served over MCP (sealverify skill verify, SEP-2640)
    "DEFAULT_SKILL_BASE": "sealverify._internal.skills.report",
    "FetchedSkill": "sealverify._internal.skills.report",
    "ResourceFile": "sealverify._internal.skills.report",
    "SkillTree": "sealverify._internal.skills.report",
    "skill_report": "sealverify._internal.skills.report",
    # digest and compare tool definitions (sealverify tools, docs/tools.md)
    "DigestRun": "sealverify._internal.tools.report",
    "ToolsSource": "sealverify._internal.tools.report",
    "compare_report": "sealverify._internal.tools.report",
    "digest_report": "sealverify._internal.tools.report",
    "profile_named": "sealverify._internal.tools.report",
    # check a signed _meta partition attestation (sealverify partition verify)
    "attestation_report": "sealverify._internal.partition.verify_report",
    # make a _meta partition record or attestation (sealverify partition emit)
    "Emitted": "sealverify._internal.partition.emit_report",
    "partition_emit": "sealverify._internal.partition.emit_report",
    "select_frame": "sealverify._internal.partition.emit_report",
    # check wording about _meta (sealverify lint, docs/wording.md)
    "LINTED_SUFFIXES": "sealverify._internal.wording.lint_report",
    "LintTally": "sealverify._internal.wording.lint_report",
    "lint_report": "sealverify._internal.wording.lint_report",
    "lint_subject": "sealverify._internal.wording.lint_report",
    "RuleSet": "sealverify._internal.wording.lint_report",
    "parse_rules": "sealverify._internal.wording.lint_report",
    # re-derive a kernel decision (sealverify's model of the kernel, docs/replay.md)
    "Rederivation": "sealverify._internal.kernel.replay",
    "rederive": "sealverify._internal.kernel.replay",
    "raw_line_index": "sealverify._internal.receipts.rederivation",
    "BuildProfile": "sealverify._internal.kernel.profiles",
    "KERNEL_PROFILES": "sealverify._internal.kernel.profiles",
    "ModelLimit": "sealverify._internal.kernel.ljson",
    "HostApproval": "sealverify._internal.kernel.whatif",
    "WhatIf": "sealverify._internal.kernel.whatif",
    "what_if": "sealverify._internal.kernel.whatif",
    "what_if_report": "sealverify._internal.kernel.whatif",
    "WhatIfStream": "sealverify._internal.kernel.whatif",
    "what_if_stream": "sealverify._internal.kernel.whatif",
}

__all__ = [
    "DEFAULT_KERNEL_SHA256",
    "DEFAULT_SKILL_BASE",
    "EXIT_CODES",
    "FRAME_LIMIT_ID",
    "KERNEL_PROFILES",
    "LINTED_SUFFIXES",
    "MAX_FRAMES",
    "Anchor",
    "ApprovalOptions",
    "ApprovalTally",
    "BuildProfile",
    "ChainOptions",
    "ChainResult",
    "Check",
    "DiffInput",
    "DiffInputError",
    "DiffOptions",
    "DigestRun",
    "Effect",
    "Emitted",
    "Family",
    "FetchedSkill",
    "FrameAnalysis",
    "FrameBytes",
    "FrameOptions",
    "FrameTally",
    "HostApproval",
    "InputError",
    "InputFileError",
    "InternalError",
    "Inventory",
    "InventoryBuilder",
    "Limits",
    "LintTally",
    "ModelLimit",
    "OptionError",
    "Outcome",
    "ReceiptDocument",
    "ReceiptGroup",
    "Rederivation",
    "Report",
    "ResourceFile",
    "Role",
    "RuleSet",
    "SealverifyError",
    "Side",
    "SkillTree",
    "SourceError",
    "Status",
    "StoreError",
    "Subject",
    "TokenResult",
    "ToolsSource",
    "TrustStore",
    "Verdict",
    "VerifyOptions",
    "Vocabulary",
    "WhatIf",
    "WhatIfStream",
    "__version__",
    "analyze_frame",
    "analyze_stream",
    "approval_report",
    "approval_subject",
    "attestation_report",
    "bind_receipts",
    "build_report",
    "chain_report",
    "check_token",
    "compare_report",
    "decide",
    "diff_inputs",
    "diff_report",
    "digest_report",
    "exit_code",
    "frame_of",
    "frame_report",
    "frame_stream_report",
    "frame_subjects",
    "input_required_reply",
    "iter_stdio",
    "iter_stream",
    "lint_report",
    "lint_subject",
    "load_side",
    "load_trust_file",
    "parse_rules",
    "parse_state_file",
    "partition_emit",
    "profile_named",
    "raw_line_index",
    "read_document",
    "read_http_frame",
    "read_stdio_frames",
    "receipt_audit",
    "rederive",
    "select_frame",
    "skill_report",
    "split_stdio",
    "split_tokens",
    "stdio_frame_count",
    "trust_template",
    "verify_jsonl",
    "verify_logs",
    "verify_receipt",
    "verify_sources",
    "what_if",
    "what_if_report",
    "what_if_stream",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its layer on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sealverify' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})

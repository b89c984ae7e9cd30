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

    from sealverify.approvals.report import (
        ApprovalOptions,
        ApprovalTally,
        approval_report,
        approval_subject,
    )
    from sealverify.approvals.tokens import TokenResult, check_token, split_tokens
    from sealverify.errors import (
        InputError,
        InputFileError,
        InternalError,
        OptionError,
        SealverifyError,
        SourceError,
        StoreError,
    )
    from sealverify.forensics import (
        DiffInputError,
        Side,
        diff_report,
        input_required_reply,
        load_side,
    )
    from sealverify.forensics.diff_run import DiffInput, DiffOptions, diff_inputs
    from sealverify.history.chain import (
        Anchor,
        ChainResult,
        bind_receipts,
        parse_state_file,
        receipt_audit,
        verify_logs,
    )
    from sealverify.kernel.ljson import ModelLimit
    from sealverify.kernel.profiles import KERNEL_PROFILES, BuildProfile
    from sealverify.kernel.replay import Rederivation, rederive
    from sealverify.kernel.whatif import (
        HostApproval,
        WhatIf,
        WhatIfStream,
        what_if,
        what_if_report,
        what_if_stream,
    )
    from sealverify.mcp.frame import (
        FrameAnalysis,
        FrameOptions,
        analyze_frame,
        analyze_stream,
        iter_stream,
    )
    from sealverify.mcp.frame_report import frame_report
    from sealverify.mcp.frame_stream import (
        FRAME_LIMIT_ID,
        MAX_FRAMES,
        FrameTally,
        frame_stream_report,
        frame_subjects,
    )
    from sealverify.partition.emit_report import Emitted, partition_emit, select_frame
    from sealverify.partition.verify_report import attestation_report
    from sealverify.primitives.trust import TrustStore, load_trust_file
    from sealverify.receipts.chain_report import ChainOptions, ReceiptGroup, chain_report
    from sealverify.receipts.families import ReceiptDocument, read_document
    from sealverify.receipts.inventory import Inventory, InventoryBuilder, trust_template
    from sealverify.receipts.rederivation import raw_line_index
    from sealverify.receipts.verify import (
        DEFAULT_KERNEL_SHA256,
        VerifyOptions,
        build_report,
        verify_jsonl,
        verify_receipt,
    )
    from sealverify.results.effects import Effect
    from sealverify.results.model import Check, Report, Subject
    from sealverify.results.outcomes import (
        EXIT_CODES,
        Outcome,
        Verdict,
        Vocabulary,
        decide,
        exit_code,
    )
    from sealverify.results.vocabulary import Family, Role
    from sealverify.run.sources import verify_sources
    from sealverify.skills.report import (
        DEFAULT_SKILL_BASE,
        FetchedSkill,
        ResourceFile,
        SkillTree,
        skill_report,
    )
    from sealverify.tools.report import (
        DigestRun,
        ToolsSource,
        compare_report,
        digest_report,
        profile_named,
    )
    from sealverify.wire.framing import (
        FrameBytes,
        frame_of,
        iter_stdio,
        split_stdio,
        stdio_frame_count,
    )
    from sealverify.wire.streamed import read_http_frame, read_stdio_frames
    from sealverify.wire.strictjson import Limits
    from sealverify.wording.lint_report import (
        LINTED_SUFFIXES,
        LintTally,
        RuleSet,
        lint_report,
        lint_subject,
        parse_rules,
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
    "Check": "sealverify.results.model",
    "Report": "sealverify.results.model",
    "Subject": "sealverify.results.model",
    # outcomes, what a check does to them, the one exit-code table; families and trust roles
    "Outcome": "sealverify.results.outcomes",
    "Effect": "sealverify.results.effects",
    "EXIT_CODES": "sealverify.results.outcomes",
    "exit_code": "sealverify.results.outcomes",
    "decide": "sealverify.results.outcomes",
    "Verdict": "sealverify.results.outcomes",
    "Vocabulary": "sealverify.results.outcomes",
    "Family": "sealverify.results.vocabulary",
    "Role": "sealverify.results.vocabulary",
    # verify receipts
    "DEFAULT_KERNEL_SHA256": "sealverify.receipts.verify",
    "VerifyOptions": "sealverify.receipts.verify",
    "build_report": "sealverify.receipts.verify",
    "verify_jsonl": "sealverify.receipts.verify",
    "verify_receipt": "sealverify.receipts.verify",
    "read_document": "sealverify.receipts.families",
    "ReceiptDocument": "sealverify.receipts.families",
    "TrustStore": "sealverify.primitives.trust",
    # verify a run's sources as `sealverify verify` does: files, directories, globs, logs, URLs
    "verify_sources": "sealverify.run.sources",
    "load_trust_file": "sealverify.primitives.trust",
    # what a set of receipts carries, and a trust template to confirm (docs/inventory.md)
    "Inventory": "sealverify.receipts.inventory",
    "InventoryBuilder": "sealverify.receipts.inventory",
    "trust_template": "sealverify.receipts.inventory",
    # analyse a frame
    "FrameBytes": "sealverify.wire.framing",
    "frame_of": "sealverify.wire.framing",
    "split_stdio": "sealverify.wire.framing",
    "iter_stdio": "sealverify.wire.framing",
    "stdio_frame_count": "sealverify.wire.framing",
    "read_stdio_frames": "sealverify.wire.streamed",
    "read_http_frame": "sealverify.wire.streamed",
    "FrameAnalysis": "sealverify.mcp.frame",
    "FrameOptions": "sealverify.mcp.frame",
    "analyze_frame": "sealverify.mcp.frame",
    "analyze_stream": "sealverify.mcp.frame",
    "iter_stream": "sealverify.mcp.frame",
    "frame_report": "sealverify.mcp.frame_report",
    "FRAME_LIMIT_ID": "sealverify.mcp.frame_stream",
    "MAX_FRAMES": "sealverify.mcp.frame_stream",
    "frame_stream_report": "sealverify.mcp.frame_stream",
    "FrameTally": "sealverify.mcp.frame_stream",
    "frame_subjects": "sealverify.mcp.frame_stream",
    "Limits": "sealverify.wire.strictjson",
    # compare two frames or receipts
    "DiffInputError": "sealverify.forensics",
    "Side": "sealverify.forensics",
    "diff_report": "sealverify.forensics",
    "load_side": "sealverify.forensics",
    "input_required_reply": "sealverify.forensics",
    "DiffInput": "sealverify.forensics.diff_run",
    "DiffOptions": "sealverify.forensics.diff_run",
    "diff_inputs": "sealverify.forensics.diff_run",
    # walk an audit chain
    "Anchor": "sealverify.history.chain",
    "ChainResult": "sealverify.history.chain",
    "bind_receipts": "sealverify.history.chain",
    "parse_state_file": "sealverify.history.chain",
    "receipt_audit": "sealverify.history.chain",
    "verify_logs": "sealverify.history.chain",
    "ChainOptions": "sealverify.receipts.chain_report",
    "ReceiptGroup": "sealverify.receipts.chain_report",
    "chain_report": "sealverify.receipts.chain_report",
    # check an approval
    "TokenResult": "sealverify.approvals.tokens",
    "ApprovalOptions": "sealverify.approvals.report",
    "ApprovalTally": "sealverify.approvals.report",
    "approval_report": "sealverify.approvals.report",
    "approval_subject": "sealverify.approvals.report",
    "check_token": "sealverify.approvals.tokens",
    "split_tokens": "sealverify.approvals.tokens",
    # check Agent Skills served over MCP (sealverify skill verify, SEP-2640)
    "DEFAULT_SKILL_BASE": "sealverify.skills.report",
    "FetchedSkill": "sealverify.skills.report",
    "ResourceFile": "sealverify.skills.report",
    "SkillTree": "sealverify.skills.report",
    "skill_report": "sealverify.skills.report",
    # digest and compare tool definitions (sealverify tools, docs/tools.md)
    "DigestRun": "sealverify.tools.report",
    "ToolsSource": "sealverify.tools.report",
    "compare_report": "sealverify.tools.report",
    "digest_report": "sealverify.tools.report",
    "profile_named": "sealverify.tools.report",
    # check a signed _meta partition attestation (sealverify partition verify)
    "attestation_report": "sealverify.partition.verify_report",
    # make a _meta partition record or attestation (sealverify partition emit)
    "Emitted": "sealverify.partition.emit_report",
    "partition_emit": "sealverify.partition.emit_report",
    "select_frame": "sealverify.partition.emit_report",
    # check wording about _meta (sealverify lint, docs/wording.md)
    "LINTED_SUFFIXES": "sealverify.wording.lint_report",
    "LintTally": "sealverify.wording.lint_report",
    "lint_report": "sealverify.wording.lint_report",
    "lint_subject": "sealverify.wording.lint_report",
    "RuleSet": "sealverify.wording.lint_report",
    "parse_rules": "sealverify.wording.lint_report",
    # re-derive a kernel decision (sealverify's model of the kernel, docs/replay.md)
    "Rederivation": "sealverify.kernel.replay",
    "rederive": "sealverify.kernel.replay",
    "raw_line_index": "sealverify.receipts.rederivation",
    "BuildProfile": "sealverify.kernel.profiles",
    "KERNEL_PROFILES": "sealverify.kernel.profiles",
    "ModelLimit": "sealverify.kernel.ljson",
    "HostApproval": "sealverify.kernel.whatif",
    "WhatIf": "sealverify.kernel.whatif",
    "what_if": "sealverify.kernel.whatif",
    "what_if_report": "sealverify.kernel.whatif",
    "WhatIfStream": "sealverify.kernel.whatif",
    "what_if_stream": "sealverify.kernel.whatif",
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

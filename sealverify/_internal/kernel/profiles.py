"""Per-build profiles: what each identified kernel build does differently, keyed by wasm sha256.

A receipt names its kernel by the SHA-256 of ``seal.wasm`` (``kernel_identity.wasm_sha256``).
The decision semantics changed between builds, so the re-derivation runs the model under the
profile of the build the receipt names, and refuses to guess for a build it has no profile for.
Each profile below was read from seal-host's history (``wasm-spike/verified/PROVENANCE.txt`` at
the commit that pinned the build names its host and mcp-seal-dev sources) and is tested against
that build's real outputs (docs/replay.md lists which).
"""

from __future__ import annotations

from dataclasses import dataclass

from sealverify._internal.kernel.policy import TargetScheme

__all__ = ["ALL_GUARDS", "CURRENT", "KERNEL_PROFILES", "PROFILES", "BuildProfile", "profile_for"]

ALL_GUARDS = frozenset(
    ("numbers", "keys", "unicode-keys", "digits", "agreement", "surrogates", "depth")
)


@dataclass(frozen=True, slots=True)
class BuildProfile:
    """The semantics of one kernel build that the decision bytes depend on."""

    wasm_sha256: str
    label: str
    # The audit line carries ``request_sha256`` (seal-host 46a9e93, 2026-07-15).
    request_commitment: bool
    # ``tagged-context`` (domain tag plus the six absent-context parts) or ``untagged``.
    target_scheme: TargetScheme
    # Stage A: a guarded rule's target must be exactly ``[{"full_arguments": true}]``.
    guard_target_full_arguments: bool
    # The raw-wire guards ``classifyLine`` applies before parsing (the ``refuse`` route).
    guards: frozenset[str]
    # ``seal_decide`` runs the MCP version gate (and its revision selection) first.
    version_gate: bool
    # The policy-v2 bundle with strict keys (2026-07-17); older builds parsed a safety-only
    # config this model reproduces, and other sections there are not modelled.
    bundle_config: bool
    # The ``principals`` section and the V2.2 principal envelope.
    principals: bool

    @property
    def short(self) -> str:
        return self.wasm_sha256[:8]


def _current(wasm_sha256: str, label: str) -> BuildProfile:
    return BuildProfile(
        wasm_sha256,
        label,
        request_commitment=True,
        target_scheme="tagged-context",
        guard_target_full_arguments=True,
        guards=ALL_GUARDS,
        version_gate=True,
        bundle_config=True,
        principals=True,
    )


def _untagged(
    wasm_sha256: str,
    label: str,
    *,
    guards: frozenset[str] = frozenset(),
    bundle: bool = False,
    request_commitment: bool = True,
) -> BuildProfile:
    """A build before the tagged guard target, Stage A and the MCP version gate (2026-07-31)."""
    return BuildProfile(
        wasm_sha256,
        label,
        request_commitment=request_commitment,
        target_scheme="untagged",
        guard_target_full_arguments=False,
        guards=guards,
        version_gate=False,
        bundle_config=bundle,
        principals=bundle,  # of the builds profiled here, those with the bundle have principals
    )


PROFILES: dict[str, BuildProfile] = {
    profile.wasm_sha256: profile
    for profile in (
        _current(
            "28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657",
            "seal-host 099be66 pin (mcp-seal-dev 316d741, V2.3 with the MCP version gate)",
        ),
        _current(
            "0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec",
            "seal-host e6cc909 pin (mcp-seal-dev 316d741; the conformance-corpus build)",
        ),
        _untagged(
            "d7d81e277ba0b5e9df385129d86abf6f7469e6da2a65bb2ec35626caa44ea2be",
            "seal-host a831682 pin (mcp-seal-dev c3bea29, 2026-07-21)",
            guards=frozenset(("numbers",)),
            bundle=True,
        ),
        _untagged(
            "ff1bfd68d7be51b6a395f94dfc46b2fb27ed11dc5833af6a84675f42f9730546",
            "seal-host 457850c pin (mcp-seal-dev 6bbadbc, 2026-07-16)",
            guards=frozenset(("numbers",)),
        ),
        _untagged(
            "d3067bc07e74977dedf6bb96d79a710c4b61143f6e8db151655bc88ece8b9d66",
            "seal-host 46a9e93 pin (mcp-seal-dev 88168e1, 2026-07-15)",
        ),
        _untagged(
            "df42cbada2297741bfeab99f222b96ac02e43a4ce8695b24922b425b8d66b1e8",
            "the fleet pin before seal-host 46a9e93 (no request commitment)",
            request_commitment=False,
        ),
    )
}


def profile_for(wasm_sha256: str) -> BuildProfile | None:
    """The profile of a build by its lowercase wasm SHA-256, or None for an unknown build."""
    return PROFILES.get(wasm_sha256)


CURRENT = PROFILES["28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657"]
# The public name of the profile table (``sealverify.KERNEL_PROFILES``).
KERNEL_PROFILES = PROFILES

"""What a set of receipts carries: keys, kernel builds, families, sessions, signed times.

``sealverify inventory`` lists it so an operator can find, and confirm out of band, the keys
and builds to pin (docs/inventory.md). Nothing here verifies anything: a key is listed because
a receipt names it, never because it signed anything. :func:`trust_template` writes what was
seen as a trust file that sealverify refuses to load until each entry is confirmed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sealverify._internal.history.chain_log import LogData
from sealverify._internal.history.chain_log import log_lines as stream_lines
from sealverify._internal.kernel.profiles import profile_for
from sealverify._internal.kernel.replay import session_id
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.receipts.families import ReceiptDocument, hex64, is_uint, read_document
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    is_receipt_like,
    log_line_body,
    log_lines,
    verify_receipt,
)
from sealverify._internal.results import ids
from sealverify._internal.results.model import Status
from sealverify._internal.results.vocabulary import Family, Role
from sealverify._internal.wire.strictjson import JsonError, JsonNumber, JsonValue, parse_bytes

_FAIL = Status.FAIL

__all__ = [
    "BUILD_FLAGS",
    "FLAGS",
    "KEY_FLAGS",
    "KEY_ROLES",
    "Inventory",
    "InventoryBuilder",
    "SeenBuild",
    "SeenKey",
    "trust_template",
]

# Where each kind of key sits in a receipt (docs/claims.md): the config signer
# (signed_config.pubkey), the Object B receipt key (signature.public_key), an ed25519
# approver (only its key_id, sha256 of the key, is carried), a partition attestation signer.
KEY_ROLES = ("config", "receipt", "approver", "attestation")
# The trust file role each kind is pinned under (docs/trust.md): an attestation is checked
# against the receipt pins (receipts/verify.py), an approver's key under "approval".
_TRUST_ROLE = {"config": Role.CONFIG, "receipt": Role.RECEIPT, "attestation": Role.RECEIPT}
_WHAT = {
    "config": "config signer",
    "receipt": "Object B receipt key",
    "attestation": "partition attestation signer",
}
_EXAMPLES = 5  # names kept per problem, to show where to look
# What each flag on a key or build says (docs/inventory.md). A flag marks what to look at
# before confirming an entry, never a verdict: verify judges the receipts.
FLAGS = {
    "published": "its secret is published: anyone can sign with it",
    "minority": "named on fewer than half of the receipts that name a key in its role (for a "
    "build: any build)",
    "second-signer": "another key is named in the same role on as many receipts or more",
    "second-build": "another kernel build is named on as many receipts or more",
    "only-failing": "every receipt that names it fails a check other than its authority",
}
KEY_FLAGS = ("published", "minority", "second-signer", "only-failing")
BUILD_FLAGS = ("minority", "second-build", "only-failing")
# The checks that judge authority against pins: the inventory has none, so they say nothing
# about the receipt itself. Every other failure (a signature, a binding, a bypass, a decision
# that re-derives differently) does.
_AUTHORITY_IDS = frozenset(
    {
        ids.AUTHORITY_CONFIG_KEY,
        ids.AUTHORITY_RECEIPT_KEY,
        ids.AUTHORITY_APPROVAL_KEY,
        ids.AUTHORITY_PUBLISHED_KEY,
        "kernel.identity",
    }
)
_PROBE = VerifyOptions(allow_published_keys=True)


@dataclass(frozen=True, slots=True)
class Span:
    """First and last signed time (ms) over the receipts that carry one, and how many do."""

    first_ms: int
    last_ms: int
    receipts: int

    def to_dict(self) -> dict[str, Any]:
        return {"first_ms": self.first_ms, "last_ms": self.last_ms, "receipts": self.receipts}


@dataclass(frozen=True, slots=True)
class SeenKey:
    """A key (or, for an approver, a key id) that receipts name, on how many, and its flags.

    ``role_receipts`` is how many receipts name any key in this role (the key's share is
    ``receipts`` of it); ``flags`` are :data:`FLAGS` names, in :data:`KEY_FLAGS` order.
    """

    role: str
    value: str  # 64 lowercase hex: the public key, or for an approver the key id
    is_key_id: bool
    receipts: int
    families: tuple[str, ...]
    published: str | None  # where its secret is published, when it is a published key
    role_receipts: int = 0
    signed_time: Span | None = None
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            ("key_id" if self.is_key_id else "public_key"): self.value,
            "receipts": self.receipts,
            "role_receipts": self.role_receipts,
            "families": list(self.families),
            "published": self.published,
            "signed_time": None if self.signed_time is None else self.signed_time.to_dict(),
            "flags": list(self.flags),
        }


@dataclass(frozen=True, slots=True)
class SeenBuild:
    """A kernel wasm build that receipts name, on how many, and its :data:`FLAGS`."""

    sha256: str
    receipts: int
    always_pinned: bool  # the fleet build verify pins by default
    modelled: bool  # sealverify's kernel model has a profile for it (decisions re-derived)
    build_receipts: int = 0  # receipts that name any build
    signed_time: Span | None = None
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "receipts": self.receipts,
            "build_receipts": self.build_receipts,
            "always_pinned": self.always_pinned,
            "modelled": self.modelled,
            "signed_time": None if self.signed_time is None else self.signed_time.to_dict(),
            "flags": list(self.flags),
        }


@dataclass(frozen=True, slots=True)
class Inventory:
    """What the receipts read carry, with counts; every list sorted, so the report is stable."""

    receipts: int
    families: Mapping[str, int]
    keys: tuple[SeenKey, ...]
    builds: tuple[SeenBuild, ...]
    sessions: int
    receipts_in_sessions: int
    spine_receipts: int  # a spine receipt never names its signer (docs/spine.md)
    signed_time: tuple[int, int] | None  # first and last claimed signed time (ms)
    timed_receipts: int
    unreadable: int
    unreadable_examples: tuple[str, ...]
    skipped: int
    malformed_keys: int  # key members present but not 64 lowercase hex

    def role_keys(self, role: str) -> tuple[SeenKey, ...]:
        """The keys seen in ``role`` (one of :data:`KEY_ROLES`), most receipts first."""
        return tuple(
            sorted((k for k in self.keys if k.role == role), key=lambda k: (-k.receipts, k.value))
        )

    def roles_seen(self) -> tuple[str, ...]:
        """The roles of :data:`KEY_ROLES` that some key was seen in, in that order."""
        return tuple(role for role in KEY_ROLES if any(k.role == role for k in self.keys))

    def flags_seen(self) -> tuple[tuple[str, str], ...]:
        """Each flag some key or build carries, with what it means, in :data:`FLAGS` order."""
        carried = {f for k in self.keys for f in k.flags} | {
            f for b in self.builds for f in b.flags
        }
        return tuple((flag, text) for flag, text in FLAGS.items() if flag in carried)

    def to_dict(self) -> dict[str, Any]:
        """The json format: stable member order and values (docs/inventory.md)."""
        first, last = self.signed_time or (None, None)
        roles = {}
        for role in KEY_ROLES:
            keys = self.role_keys(role)
            if keys:
                roles[role] = {"keys": len(keys), "receipts": keys[0].role_receipts}
        return {
            "command": "inventory",
            "receipts": self.receipts,
            "families": dict(sorted(self.families.items())),
            "roles": roles,
            "keys": [key.to_dict() for key in self.keys],
            "kernel_builds": [build.to_dict() for build in self.builds],
            "sessions": {"count": self.sessions, "receipts": self.receipts_in_sessions},
            "spine_receipts": self.spine_receipts,
            "signed_time": {"first_ms": first, "last_ms": last, "receipts": self.timed_receipts},
            "unreadable": {"count": self.unreadable, "examples": list(self.unreadable_examples)},
            "skipped": self.skipped,
            "malformed_keys": self.malformed_keys,
        }


def _member(doc: object, *path: str) -> JsonValue:
    for name in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(name)
    return doc  # type: ignore[return-value]


def _uint(value: JsonValue) -> int | None:
    return int(value.lexeme) if isinstance(value, JsonNumber) and is_uint(value) else None


def _fails_other_checks(
    raw: bytes, name: str, read: ReceiptDocument, attestation: JsonValue
) -> bool:
    """Whether ``verify``, with no pins, fails the receipt on a check other than authority.

    A signature that does not verify, a binding that does not recompute, a bypass or a
    decision that re-derives differently: a key named only on such receipts is odd.
    """
    subject = verify_receipt(raw, name, _PROBE, attestation, read=read)
    return any(c.status == _FAIL and c.id not in _AUTHORITY_IDS for c in subject.checks)


@dataclass
class _Tally:
    """How many receipts name one key or build, when they were signed, and how many are sound."""

    receipts: int = 0
    sound: int = 0  # receipts that fail no check other than authority
    timed: int = 0
    first: int | None = None
    last: int | None = None
    families: set[str] = field(default_factory=set)

    def count(self, family: str, failing: bool, at: int | None) -> None:
        self.receipts += 1
        self.sound += 0 if failing else 1
        self.families.add(family)
        if at is not None:
            self.timed += 1
            self.first = at if self.first is None else min(self.first, at)
            self.last = at if self.last is None else max(self.last, at)

    def span(self) -> Span | None:
        if self.first is None or self.last is None:
            return None
        return Span(self.first, self.last, self.timed)


def _flags(tally: _Tally, others: Iterable[_Tally], total: int, second: str) -> tuple[str, ...]:
    """The flags every entry can carry: minority, a second one in its place, only failing."""
    flags = []
    if tally.receipts * 2 < total:
        flags.append("minority")
    if any(other is not tally and other.receipts >= tally.receipts for other in others):
        flags.append(second)
    if not tally.sound:
        flags.append("only-failing")
    return tuple(flags)


@dataclass
class InventoryBuilder:
    """Feed it receipts (bytes) one at a time; :meth:`inventory` gives the counts so far."""

    _receipts: int = 0
    _families: Counter[str] = field(default_factory=Counter)
    _keys: dict[tuple[str, str, bool], _Tally] = field(default_factory=dict)
    _builds: dict[str, _Tally] = field(default_factory=dict)
    _sessions: Counter[str] = field(default_factory=Counter)
    _spine: int = 0
    _first: int | None = None
    _last: int | None = None
    _timed: int = 0
    _unreadable: int = 0
    _unreadable_examples: list[str] = field(default_factory=list)
    _skipped: int = 0
    _malformed: int = 0

    def add_file(
        self, raw: bytes, name: str, attestation: bytes | None = None, walked: bool = False
    ) -> None:
        """Count a receipt file as ``verify`` reads it.

        ``attestation`` is the bytes of a partition attestation side file beside it (one that
        is not strict JSON adds no key); ``walked``: found by a directory walk, so a JSON file
        that is not receipt-like (a policy, a trust file) is skipped and counted as such.
        """
        if walked and not is_receipt_like(raw):
            self._skipped += 1
            return
        side: JsonValue = None
        if attestation is not None:
            try:
                side = parse_bytes(attestation)
            except JsonError:
                side = None  # verify names the unreadable side file; here it adds no key
        self.add(raw, name, side)

    def add_log(self, raw: LogData, name: str) -> None:
        """Count every line of a JSONL receipt log, named ``name:line`` as ``verify`` names it.

        ``raw`` is the log's bytes, or a call that opens it: it is then read a window at a
        time (``history/chain_log.py``), one line held, so memory follows its longest line.
        """
        lines = log_lines(raw) if isinstance(raw, bytes) else stream_lines(raw)
        for number, line in enumerate(lines, start=1):
            body = log_line_body(line)
            if body.strip(b" \t"):
                self.add(body, f"{name}:{number}")
            else:
                self._unread(f"{name}:{number}")

    def add(self, raw: bytes, name: str, attestation: JsonValue = None) -> None:
        """Count one receipt's bytes; ``attestation`` is a parsed partition attestation.

        A document that is not strict JSON, or no known receipt family, is counted as
        unreadable (``sealverify verify`` says why), with its name among a few examples. A
        receipt that names a key or build is also verified with no pins, to flag a key or
        build named only on receipts that fail other checks.
        """
        read = read_document(raw)
        if read.document is None or read.family is None:
            self._unread(name)
            return
        doc, family = read.document, read.family
        self._receipts += 1
        self._families[family] += 1
        if family == Family.SPINE:
            self._spine += 1
            self._time(_uint(doc.get("at")))
            return
        keys = self._named_keys(doc, attestation)
        build = _member(doc, "kernel_identity", "wasm_sha256")
        # only Object B (v3) signs `now` (receipts/verify.py signed_time)
        at = _uint(doc.get("now")) if family == Family.V3 else None
        if keys or hex64(build):
            failing = _fails_other_checks(raw, name, read, attestation)
            for key in keys:
                self._keys.setdefault(key, _Tally()).count(family, failing, at)
            if hex64(build):
                self._builds.setdefault(str(build), _Tally()).count(family, failing, at)
        session = session_id(doc)
        if session is not None:
            self._sessions[session] += 1
        self._time(at)

    def _named_keys(
        self, doc: Mapping[str, JsonValue], attestation: JsonValue
    ) -> set[tuple[str, str, bool]]:
        found = [
            ("config", _member(doc, "signed_config", "pubkey"), False),
            ("receipt", _member(doc, "signature", "public_key"), False),
            (
                "attestation",
                _member(doc, "partition_attestation", "signature", "public_key"),
                False,
            ),
            ("attestation", _member(attestation, "signature", "public_key"), False),
        ]
        if _member(doc, "approval", "approval_identity", "channel") == "ed25519":
            found.append(
                ("approver", _member(doc, "approval", "approval_identity", "key_id"), True)
            )
        seen: set[tuple[str, str, bool]] = set()
        for role, value, is_key_id in found:
            if value is None:
                continue
            if not hex64(value):
                self._malformed += 1
                continue
            seen.add((role, str(value), is_key_id))
        return seen

    def _unread(self, name: str) -> None:
        self._unreadable += 1
        if len(self._unreadable_examples) < _EXAMPLES:
            self._unreadable_examples.append(name)

    def _time(self, at: int | None) -> None:
        if at is None:
            return
        self._timed += 1
        self._first = at if self._first is None else min(self._first, at)
        self._last = at if self._last is None else max(self._last, at)

    def _seen_keys(self) -> list[SeenKey]:
        keys = []
        for (role, value, is_key_id), tally in self._keys.items():
            published = (
                publishedkeys.lookup_key_id(value) if is_key_id else publishedkeys.lookup(value)
            )
            peers = [t for (r, _, _), t in self._keys.items() if r == role]
            # a receipt names at most one key per role, but the attestation role has two places
            role_receipts = max(sum(t.receipts for t in peers), tally.receipts)
            flags: tuple[str, ...] = ("published",) if published is not None else ()
            flags += _flags(tally, peers, role_receipts, "second-signer")
            keys.append(
                SeenKey(
                    role,
                    value,
                    is_key_id,
                    tally.receipts,
                    tuple(sorted(tally.families)),
                    published.source if published is not None else None,
                    role_receipts,
                    tally.span(),
                    tuple(f for f in KEY_FLAGS if f in flags),
                )
            )
        keys.sort(key=lambda k: (KEY_ROLES.index(k.role), k.value))
        return keys

    def inventory(self) -> Inventory:
        """The counts so far, sorted by role order then key (keys), by build (builds)."""
        total = sum(t.receipts for t in self._builds.values())
        builds = tuple(
            SeenBuild(
                sha,
                tally.receipts,
                sha == DEFAULT_KERNEL_SHA256,
                profile_for(sha) is not None,
                total,
                tally.span(),
                _flags(tally, self._builds.values(), total, "second-build"),
            )
            for sha, tally in sorted(self._builds.items())
        )
        timed = None if self._first is None or self._last is None else (self._first, self._last)
        return Inventory(
            receipts=self._receipts,
            families=dict(sorted(self._families.items())),
            keys=tuple(self._seen_keys()),
            builds=builds,
            sessions=len(self._sessions),
            receipts_in_sessions=sum(self._sessions.values()),
            spine_receipts=self._spine,
            signed_time=timed,
            timed_receipts=self._timed,
            unreadable=self._unreadable,
            unreadable_examples=tuple(self._unreadable_examples),
            skipped=self._skipped,
            malformed_keys=self._malformed,
        )


def _share(receipts: int, total: int) -> str:
    """``receipts`` of ``total`` receipts, with the share in whole percent."""
    percent = receipts * 100 // total if total else 0
    return f"{receipts} of {total} receipt(s) ({percent}%)"


def _label(what: str, share: str, published: str | None) -> str:
    text = f"seen as {what} on {share}; UNCONFIRMED"
    if published is not None:
        return (
            f"PUBLISHED KEY ({published}): its secret is public, never confirm it for real "
            f"evidence; {text}"
        )
    return text


@dataclass
class _Entry:
    """One trust file key entry gathered from the roles a key was seen in."""

    roles: set[str] = field(default_factory=set)
    what: list[str] = field(default_factory=list)
    share: str = ""
    receipts: int = -1
    published: str | None = None
    flags: set[str] = field(default_factory=set)

    def add(self, key: SeenKey) -> None:
        self.roles.add(_TRUST_ROLE[key.role])
        self.what.append(_WHAT[key.role])
        if key.receipts > self.receipts:
            self.receipts, self.share = key.receipts, _share(key.receipts, key.role_receipts)
        self.published = key.published
        self.flags.update(key.flags)


def _entry(member: str, value: str, label: str, flags: Iterable[str], **more: Any) -> Any:
    out: dict[str, Any] = {member: value, **more, "label": label}
    if flags:
        out["flags"] = list(flags)
    out["confirmed"] = False
    return out


def _key_entries(inventory: Inventory, notes: list[str]) -> list[dict[str, Any]]:
    """Key entries, unflagged first; approver key ids (no public key) become notes."""
    seen: dict[str, _Entry] = {}
    for key in inventory.keys:
        if key.is_key_id:
            notes.append(
                f"An ed25519 approver with key id {key.value} (sha256 of its public key) "
                f"approved calls on {key.receipts} receipt(s): pin the approver's public key "
                'with role "approval" once its owner confirms it.'
                + (f" It is a PUBLISHED KEY ({key.published})." if key.published else "")
                + (f" Flags: {', '.join(key.flags)}." if key.flags else "")
            )
            continue
        seen.setdefault(key.value, _Entry()).add(key)
    entries = [
        _entry(
            "public_key",
            value,
            _label(" and ".join(entry.what), entry.share, entry.published),
            [f for f in KEY_FLAGS if f in entry.flags],
            roles=sorted(entry.roles),
        )
        for value, entry in sorted(seen.items())
    ]
    return sorted(entries, key=lambda e: "flags" in e)  # stable: flagged ones apart, last


def _kernel_entries(inventory: Inventory) -> list[dict[str, Any]]:
    entries = [
        _entry(
            "sha256",
            build.sha256,
            f"kernel build seen on {_share(build.receipts, build.build_receipts)}"
            + ("; the fleet build, pinned by default" if build.always_pinned else "")
            + ("" if build.modelled else "; sealverify has no model of it")
            + "; UNCONFIRMED",
            build.flags,
        )
        for build in inventory.builds
    ]
    return sorted(entries, key=lambda e: "flags" in e)


def _flag_notes(keys: list[dict[str, Any]], kernels: list[dict[str, Any]]) -> list[str]:
    """One note naming every flagged entry, what each flag means and how to confirm one."""
    flagged = [
        (f"{'/'.join(e['roles'])} {e['public_key'][:8]}", e["flags"]) for e in keys if "flags" in e
    ] + [(f"kernel {e['sha256'][:8]}", e["flags"]) for e in kernels if "flags" in e]
    if not flagged:
        return []
    used = [flag for flag in FLAGS if any(flag in flags for _, flags in flagged)]
    example = flagged[0][0].rsplit(" ", 1)[1]
    return [
        "FLAGGED, listed after the others: "
        + "; ".join(f"{name} ({', '.join(flags)})" for name, flags in flagged)
        + ". A flag is a reason to look twice before confirming ("
        + "; ".join(f"{flag}: {FLAGS[flag]}" for flag in used)
        + "). A flagged entry is confirmed only by setting its confirmed member to the first "
        f'8 hex digits of its own key or build (for example "confirmed": "{example}"), never '
        "by true: one decision for each."
    ]


def trust_template(inventory: Inventory, seen_in: Iterable[str] = ()) -> bytes:
    """A trust file (docs/trust.md) of the keys and builds ``inventory`` saw, unconfirmed.

    Every key and kernel entry carries ``"confirmed": false``, which the trust file loader
    refuses: the file verifies nothing until the operator has checked each entry out of band
    and confirmed it (or removed the entry). Published keys are marked in their label. A
    flagged entry (a key or build the inventory flags) carries its ``flags`` and is written
    after the others; the loader confirms it only by the first 8 hex digits of its own key or
    build, so confirming every entry is one decision per flagged entry, never one edit.
    Approver key ids and spine receipts name no public key, so they are notes, not entries.
    """
    notes = [
        "Written by sealverify inventory from receipts"
        + (" in " + ", ".join(seen_in) if seen_in else "")
        + ". Every entry was SEEN in the receipts, not verified: a key is listed because a "
        "receipt names it, and anyone can write a receipt that names any key.",
        "Confirm each public key and kernel build with the seal operator out of band (docs/"
        "trust.md, 'Where your keys come from'), then set its confirmed member to true (a "
        "flagged entry: to the first 8 hex digits of its key or build) or delete the entries "
        "you do not trust. sealverify refuses this file while any entry is unconfirmed.",
    ]
    keys = _key_entries(inventory, notes)
    if inventory.spine_receipts:
        notes.append(
            f"{inventory.spine_receipts} seal.spine/v1 receipt(s) name no signing key: pin the "
            'seal CLI\'s receipt signer public key with role "receipt" once confirmed.'
        )
    kernels = _kernel_entries(inventory)
    notes.extend(_flag_notes(keys, kernels))
    document: dict[str, Any] = {"sealverify_trust": 1, "notes": notes, "keys": keys}
    if kernels:
        document["kernels"] = kernels
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()

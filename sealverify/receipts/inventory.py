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

from sealverify.kernel.profiles import profile_for
from sealverify.kernel.replay import session_id
from sealverify.receipts.families import hex64, is_uint, read_document
from sealverify.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    is_receipt_like,
    log_line_body,
    log_lines,
)
from sealverify.reports.vocabulary import Family, Role
from sealverify.seal import publishedkeys
from sealverify.wire.strictjson import JsonError, JsonNumber, JsonValue, parse_bytes

__all__ = [
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


@dataclass(frozen=True, slots=True)
class SeenKey:
    """A key (or, for an approver, a key id) that receipts name, and on how many."""

    role: str
    value: str  # 64 lowercase hex: the public key, or for an approver the key id
    is_key_id: bool
    receipts: int
    families: tuple[str, ...]
    published: str | None  # where its secret is published, when it is a published key

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            ("key_id" if self.is_key_id else "public_key"): self.value,
            "receipts": self.receipts,
            "families": list(self.families),
            "published": self.published,
        }


@dataclass(frozen=True, slots=True)
class SeenBuild:
    """A kernel wasm build that receipts name, and on how many."""

    sha256: str
    receipts: int
    always_pinned: bool  # the fleet build verify pins by default
    modelled: bool  # sealverify's kernel model has a profile for it (decisions re-derived)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "receipts": self.receipts,
            "always_pinned": self.always_pinned,
            "modelled": self.modelled,
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

    def to_dict(self) -> dict[str, Any]:
        """The json format: stable member order and values (docs/inventory.md)."""
        first, last = self.signed_time or (None, None)
        return {
            "command": "inventory",
            "receipts": self.receipts,
            "families": dict(sorted(self.families.items())),
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


@dataclass
class InventoryBuilder:
    """Feed it receipts (bytes) one at a time; :meth:`inventory` gives the counts so far."""

    _receipts: int = 0
    _families: Counter[str] = field(default_factory=Counter)
    _keys: Counter[tuple[str, str, bool]] = field(default_factory=Counter)
    _key_families: dict[tuple[str, str, bool], set[str]] = field(default_factory=dict)
    _builds: Counter[str] = field(default_factory=Counter)
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

    def add_log(self, raw: bytes, name: str) -> None:
        """Count every line of a JSONL receipt log, named ``name:line`` as ``verify`` names it."""
        for number, line in enumerate(log_lines(raw), start=1):
            body = log_line_body(line)
            if body.strip(b" \t"):
                self.add(body, f"{name}:{number}")
            else:
                self._unread(f"{name}:{number}")

    def add(self, raw: bytes, name: str, attestation: JsonValue = None) -> None:
        """Count one receipt's bytes; ``attestation`` is a parsed partition attestation.

        A document that is not strict JSON, or no known receipt family, is counted as
        unreadable (``sealverify verify`` says why), with its name among a few examples.
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
        for key in seen:
            self._keys[key] += 1
            self._key_families.setdefault(key, set()).add(family)
        build = _member(doc, "kernel_identity", "wasm_sha256")
        if hex64(build):
            self._builds[str(build)] += 1
        session = session_id(doc)
        if session is not None:
            self._sessions[session] += 1
        if family == Family.V3:  # only Object B (v3) signs `now` (receipts/verify.py signed_time)
            self._time(_uint(doc.get("now")))

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

    def inventory(self) -> Inventory:
        """The counts so far, sorted by role order then key (keys), by build (builds)."""
        keys = []
        for (role, value, is_key_id), count in self._keys.items():
            published = (
                publishedkeys.lookup_key_id(value) if is_key_id else publishedkeys.lookup(value)
            )
            keys.append(
                SeenKey(
                    role,
                    value,
                    is_key_id,
                    count,
                    tuple(sorted(self._key_families[role, value, is_key_id])),
                    published.source if published is not None else None,
                )
            )
        keys.sort(key=lambda k: (KEY_ROLES.index(k.role), k.value))
        builds = tuple(
            SeenBuild(sha, count, sha == DEFAULT_KERNEL_SHA256, profile_for(sha) is not None)
            for sha, count in sorted(self._builds.items())
        )
        timed = None if self._first is None or self._last is None else (self._first, self._last)
        return Inventory(
            receipts=self._receipts,
            families=dict(sorted(self._families.items())),
            keys=tuple(keys),
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


def _label(what: str, receipts: int, published: str | None) -> str:
    text = f"seen as {what} on {receipts} receipt(s); UNCONFIRMED"
    if published is not None:
        return (
            f"PUBLISHED KEY ({published}): its secret is public, never confirm it for real "
            f"evidence; {text}"
        )
    return text


def trust_template(inventory: Inventory, seen_in: Iterable[str] = ()) -> bytes:
    """A trust file (docs/trust.md) of the keys and builds ``inventory`` saw, unconfirmed.

    Every key and kernel entry carries ``"confirmed": false``, which the trust file loader
    refuses: the file verifies nothing until the operator has checked each entry out of band
    and set it to true (or removed the entry). Published keys are marked in their label.
    Approver key ids and spine receipts name no public key, so they are notes, not entries.
    """
    notes = [
        "Written by sealverify inventory from receipts"
        + (" in " + ", ".join(seen_in) if seen_in else "")
        + ". Every entry was SEEN in the receipts, not verified: a key is listed because a "
        "receipt names it, and anyone can write a receipt that names any key.",
        "Confirm each public key and kernel build with the seal operator out of band (docs/"
        "trust.md, 'Where your keys come from'), then set its confirmed member to true or "
        "delete the entries you do not trust. sealverify refuses this file while any entry "
        "says confirmed false.",
    ]
    seen: dict[str, tuple[set[str], list[str], int, str | None]] = {}
    for key in inventory.keys:
        if key.is_key_id:
            notes.append(
                f"An ed25519 approver with key id {key.value} (sha256 of its public key) "
                f"approved calls on {key.receipts} receipt(s): pin the approver's public key "
                'with role "approval" once its owner confirms it.'
                + (f" It is a PUBLISHED KEY ({key.published})." if key.published else "")
            )
            continue
        roles, what, count, source = seen.get(key.value, (set(), [], 0, key.published))
        roles.add(_TRUST_ROLE[key.role])
        what.append(_WHAT[key.role])
        seen[key.value] = (roles, what, max(count, key.receipts), source)
    if inventory.spine_receipts:
        notes.append(
            f"{inventory.spine_receipts} seal.spine/v1 receipt(s) name no signing key: pin the "
            'seal CLI\'s receipt signer public key with role "receipt" once confirmed.'
        )
    keys = [
        {
            "public_key": value,
            "roles": sorted(roles),
            "label": _label(" and ".join(what), count, source),
            "confirmed": False,
        }
        for value, (roles, what, count, source) in sorted(seen.items())
    ]
    kernels = [
        {
            "sha256": build.sha256,
            "label": (
                f"kernel build seen on {build.receipts} receipt(s)"
                + ("; the fleet build, pinned by default" if build.always_pinned else "")
                + ("" if build.modelled else "; sealverify has no model of it")
                + "; UNCONFIRMED"
            ),
            "confirmed": False,
        }
        for build in inventory.builds
    ]
    document: dict[str, Any] = {"sealverify_trust": 1, "notes": notes, "keys": keys}
    if kernels:
        document["kernels"] = kernels
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()

"""Trust pins: which Ed25519 keys may speak for a config, a receipt or an approval, and when."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sealverify._internal.results.vocabulary import Role
from sealverify._internal.wire.spelling import HEX64, hex64_any_case
from sealverify._internal.wire.strictjson import JsonError, JsonNumber, JsonValue, parse_bytes
from sealverify.errors import InputFileError, OptionError

__all__ = [
    "ROLES",
    "TRUST_FILE_VERSION",
    "Decision",
    "PinnedKey",
    "Role",
    "TrustStore",
    "load_trust_file",
    "pin_hex",
]

# "unjudged": a matching pin has a validity window and there is no time to judge it at; the
# key is neither trusted nor refused, so its authority is not established (not evaluated).
Decision = Literal["trusted", "untrusted", "unpinned", "unjudged"]
ROLES: tuple[str, ...] = tuple(Role)
TRUST_FILE_VERSION = 1

_TOP_MEMBERS = frozenset({"sealverify_trust", "keys"})
_KEY_REQUIRED = frozenset({"public_key", "roles"})
_KEY_OPTIONAL = frozenset({"not_before", "not_after", "label", "confirmed", "flags"})
_KERNEL_REQUIRED = frozenset({"sha256"})
_KERNEL_OPTIONAL = frozenset({"label", "confirmed", "flags"})
# A flagged template entry is confirmed by the first digits of its own key or build, never by
# `true`, so confirming every entry of a template takes one decision per flagged entry.
_CONFIRM_DIGITS = 8
# Integers above 2^53 cannot be exchanged safely with the JS verifiers; ms timestamps never need it.
_MAX_MS = 2**53 - 1


def pin_hex(text: str) -> str:
    """A pin (key or kernel build) as seal writes it: 64 hex digits, read in either case.

    seal writes every key and digest in lowercase hex; a pin copied from an uppercase listing
    names the same bytes, so every pin (flags, trust file, the GitHub Action) is accepted in
    either case and normalised to lowercase here, the one rule. ValueError otherwise.
    """
    if not hex64_any_case(text):
        raise ValueError(f"expected 64 hex digits (either case), got {len(text)} characters")
    return text.lower()


@dataclass(frozen=True, slots=True)
class PinnedKey:
    """One pinned key: raw key as 64 lowercase hex, its roles, and an optional validity window.

    The window is inclusive at both ends, in milliseconds since the Unix epoch (the unit of a
    receipt's ``now``). ``source`` says where the pin came from, for reasons and reports.
    """

    public_key: str
    roles: frozenset[str]
    not_before: int | None = None
    not_after: int | None = None
    label: str | None = None
    source: str = ""

    @property
    def has_window(self) -> bool:
        """Tell whether this pin is limited in time."""
        return self.not_before is not None or self.not_after is not None

    def covers(self, at_ms: int) -> bool:
        """Tell whether ``at_ms`` lies inside the (inclusive) validity window."""
        if self.not_before is not None and at_ms < self.not_before:
            return False
        return self.not_after is None or at_ms <= self.not_after

    def describe(self) -> str:
        """Name the pin for a human: label if any, else a key prefix, plus its source."""
        name = self.label or f"{self.public_key[:16]}…"
        return f"{name} ({self.source})" if self.source else name


@dataclass(frozen=True, slots=True)
class TrustStore:
    """An immutable set of pins; empty means nothing is pinned for any role."""

    keys: tuple[PinnedKey, ...] = ()
    kernels: tuple[str, ...] = ()  # accepted kernel wasm builds (sha256 hex), beside the keys
    waive: tuple[str, ...] = ()  # legacy.* check ids the fleet waives (docs/trust.md)

    @classmethod
    def from_pins(
        cls,
        config: Iterable[str] = (),
        receipt: Iterable[str] = (),
        approval: Iterable[str] = (),
    ) -> TrustStore:
        """Build a store from ``--config-pubkey``/``--receipt-pubkey``/``--approval-pubkey``.

        Each value must be 64 hex digits in either case, kept as lowercase (ValueError
        otherwise, naming the flag). Flag pins have no validity window.
        """
        keys: list[PinnedKey] = []
        for role, values in (
            (Role.CONFIG, config),
            (Role.RECEIPT, receipt),
            (Role.APPROVAL, approval),
        ):
            flag = f"--{role}-pubkey"
            for value in values:
                try:
                    key = pin_hex(value)
                except ValueError as exc:
                    raise OptionError(f"{flag}: {value!r}: {exc}") from None
                keys.append(PinnedKey(key, frozenset({role}), source=flag))
        return cls(tuple(keys))

    def merge(self, *others: TrustStore) -> TrustStore:
        """Return a store holding the pins of ``self`` and every store in ``others``."""
        keys = list(self.keys)
        kernels = list(self.kernels)
        waive = list(self.waive)
        for other in others:
            keys.extend(other.keys)
            kernels.extend(k for k in other.kernels if k not in kernels)
            waive.extend(w for w in other.waive if w not in waive)
        return TrustStore(tuple(keys), tuple(kernels), tuple(waive))

    def pinned(self, role: str) -> tuple[PinnedKey, ...]:
        """Return every pin carrying ``role``."""
        _check_role(role)
        return tuple(key for key in self.keys if role in key.roles)

    def decide(self, role: str, public_key_hex: str, at_ms: int | None) -> Decision:
        """Decide whether ``public_key_hex`` is trusted for ``role`` at time ``at_ms``."""
        return self.decide_with_reason(role, public_key_hex, at_ms)[0]

    def decide_with_reason(
        self, role: str, public_key_hex: str, at_ms: int | None
    ) -> tuple[Decision, str]:
        """Decide, and say why in words a person can act on.

        ``unpinned``: no key carries ``role`` at all. ``untrusted``: pins exist for the role, and
        this key (compared as exact lowercase hex) is not among them, or every matching pin has
        a window that excludes ``at_ms``. ``unjudged``: every matching pin has a window and
        ``at_ms`` is None, so none can be judged (never a pass: ``verify`` reports the
        authority not evaluated, UNPINNED). ``trusted``: some matching pin has no window, or its
        window covers ``at_ms``.
        """
        pins = self.pinned(role)
        if not pins:
            return "unpinned", f"no {role} key is pinned; the embedded key proves integrity only"
        matching = [pin for pin in pins if pin.public_key == public_key_hex]
        if not matching:
            return "untrusted", (
                f"{role} key {public_key_hex[:16]}… is not one of the {len(pins)} pinned {role} "
                "key(s)"
            )
        for pin in matching:
            if not pin.has_window:
                return "trusted", f"{role} key matches pin {pin.describe()}"
        if at_ms is None:
            return "unjudged", (
                f"{role} key matches pin {matching[0].describe()}, but that pin has a validity "
                "window and the receipt carries no time (`now`) to check it against"
            )
        for pin in matching:
            if pin.covers(at_ms):
                return "trusted", (
                    f"{role} key matches pin {pin.describe()}, valid at {at_ms} "
                    f"[{_bound(pin.not_before)}, {_bound(pin.not_after)}]"
                )
        pin = matching[0]
        return "untrusted", (
            f"{role} key matches pin {pin.describe()}, but {at_ms} is outside its validity "
            f"window [{_bound(pin.not_before)}, {_bound(pin.not_after)}]"
        )


def _bound(value: int | None) -> str:
    return "-" if value is None else str(value)


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise OptionError(f"unknown trust role {role!r}; expected one of {', '.join(ROLES)}")


def _members(
    value: JsonValue, where: str, required: frozenset[str], optional: frozenset[str]
) -> dict[str, JsonValue]:
    if not isinstance(value, dict):
        raise InputFileError(f"{where}: expected an object")
    missing = sorted(required - value.keys())
    if missing:
        raise InputFileError(f"{where}: missing member(s) {', '.join(missing)}")
    unknown = sorted(value.keys() - required - optional)
    if unknown:
        raise InputFileError(f"{where}: unknown member(s) {', '.join(unknown)}")
    return value


def _unconfirmed(entry: dict[str, JsonValue], where: str, value: str, role: str) -> str | None:
    """What is left to decide about an entry a trust template wrote, or None when nothing is.

    ``sealverify inventory --trust-template`` writes every key and build it saw in receipts
    with ``"confirmed": false``: a key is there because a receipt names it, which anyone can
    write. Only the operator, having checked it out of band, may turn it into a pin: by
    ``true``, or by the first 8 hex digits of the entry's own ``value`` (key or build). An
    entry the template flagged (``flags``: a minority signer, a second signer for a role, a
    published key...) takes only the digits, so no single edit confirms a whole template.
    """
    flags = entry.get("flags", [])
    if not (isinstance(flags, list) and all(isinstance(flag, str) for flag in flags)):
        raise InputFileError(f"{where}/flags: expected an array of strings")
    if "confirmed" not in entry and not flags:
        return None  # a pin written by hand
    confirmed = entry.get("confirmed", False)
    if not isinstance(confirmed, bool | str):
        raise InputFileError(
            f"{where}/confirmed: expected true, false or the first {_CONFIRM_DIGITS} hex digits "
            "of the entry's key or build"
        )
    digits = value[:_CONFIRM_DIGITS]
    name = where.removeprefix("trust file/")
    if isinstance(confirmed, str) and confirmed.lower() != digits:
        raise InputFileError(
            f"{where}/confirmed: {confirmed!r} is not the first {_CONFIRM_DIGITS} hex digits of "
            f"this entry ({digits})"
        )
    if confirmed is True and flags:
        named = ", ".join(str(flag) for flag in flags)
        return f"{name} {role} {digits} (flagged {named}: true is not enough)"
    if confirmed is False:
        flagged = f" (flagged {', '.join(str(f) for f in flags)})" if flags else ""
        return f"{name} {role} {digits}{flagged}"
    return None


def _refuse_unconfirmed(pending: list[str]) -> None:
    """Refuse a file with unconfirmed entries, naming every one of them at once."""
    if not pending:
        return
    raise InputFileError(
        f"trust file: {len(pending)} entr{'y' if len(pending) == 1 else 'ies'} not confirmed: "
        + "; ".join(pending)
        + ". Each was seen in receipts, not checked: confirm each with the seal operator out "
        'of band, then set its "confirmed" to true (a flagged entry: to the first '
        f"{_CONFIRM_DIGITS} hex digits of its key or build, one decision each), or delete it"
    )


def _ms(value: JsonValue, where: str) -> int:
    number = value.as_uint() if isinstance(value, JsonNumber) else None
    if number is None or number > _MAX_MS:
        raise InputFileError(
            f"{where}: expected a non-negative integer of milliseconds (<= 2^53-1)"
        )
    return number


def _key(value: JsonValue, where: str, pending: list[str]) -> PinnedKey:
    """One key entry; an unconfirmed one is added to ``pending`` (refused with the others)."""
    entry = _members(value, where, _KEY_REQUIRED, _KEY_OPTIONAL)
    public_key = entry["public_key"]
    if not isinstance(public_key, str):
        raise InputFileError(f"{where}/public_key: expected a string")
    try:
        public_key = pin_hex(public_key)
    except ValueError as exc:
        raise InputFileError(f"{where}/public_key: {exc}") from None
    roles = entry["roles"]
    if not isinstance(roles, list) or not roles:
        raise InputFileError(f"{where}/roles: expected a non-empty array of role names")
    for index, role in enumerate(roles):
        if not isinstance(role, str) or role not in ROLES:
            raise InputFileError(f"{where}/roles/{index}: expected one of {', '.join(ROLES)}")
    if len(set(roles)) != len(roles):
        raise InputFileError(f"{where}/roles: a role is listed twice")
    left = _unconfirmed(entry, where, public_key, "/".join(str(role) for role in roles))
    if left is not None:
        pending.append(left)
    not_before = _ms(entry["not_before"], f"{where}/not_before") if "not_before" in entry else None
    not_after = _ms(entry["not_after"], f"{where}/not_after") if "not_after" in entry else None
    if not_before is not None and not_after is not None and not_before > not_after:
        raise InputFileError(f"{where}: not_before {not_before} is after not_after {not_after}")
    label = entry.get("label")
    if label is not None and not isinstance(label, str):
        raise InputFileError(f"{where}/label: expected a string")
    return PinnedKey(
        public_key,
        frozenset(str(role) for role in roles),
        not_before,
        not_after,
        label,
        source="trust file",
    )


def load_trust_file(data: bytes) -> TrustStore:
    """Parse a trust file (docs/trust.md) from its bytes; ValueError with a reason otherwise.

    The document is strict JSON (duplicate members refused); both levels have exact member
    sets; a public key may appear in only one entry, so its roles and window are unambiguous.
    """
    try:
        document = parse_bytes(data)
    except JsonError as exc:
        raise InputFileError(f"trust file is not strict JSON: {exc}") from None
    top = _members(document, "trust file", _TOP_MEMBERS, frozenset({"kernels", "waive", "notes"}))
    notes = top.get("notes", [])
    if not (isinstance(notes, list) and all(isinstance(note, str) for note in notes)):
        raise InputFileError("trust file/notes: expected an array of strings (for people; unread)")
    version = top["sealverify_trust"]
    if not (isinstance(version, JsonNumber) and version.lexeme == str(TRUST_FILE_VERSION)):
        raise InputFileError(
            f"trust file: sealverify_trust must be {TRUST_FILE_VERSION} (the only format version)"
        )
    entries = top["keys"]
    if not isinstance(entries, list):
        raise InputFileError("trust file/keys: expected an array")
    pending: list[str] = []
    keys = [_key(entry, f"trust file/keys/{index}", pending) for index, entry in enumerate(entries)]
    seen: set[str] = set()
    for index, key in enumerate(keys):
        if key.public_key in seen:
            raise InputFileError(
                f"trust file/keys/{index}: public key {key.public_key[:16]}… is listed twice; "
                "give one entry all its roles"
            )
        seen.add(key.public_key)
    kernels = _kernels(top.get("kernels", []), pending)
    _refuse_unconfirmed(pending)
    return TrustStore(tuple(keys), kernels, _waive(top.get("waive", [])))


def _waive(value: JsonValue) -> tuple[str, ...]:
    """The optional ``waive`` member: distinct ``legacy.*`` check ids the fleet waives."""
    if not isinstance(value, list):
        raise InputFileError("trust file/waive: expected an array of check ids")
    for index, item in enumerate(value):
        if not (isinstance(item, str) and item.startswith("legacy.")):
            raise InputFileError(
                f"trust file/waive/{index}: only legacy.* checks can be waived (signature and "
                "binding checks never are)"
            )
    if len(set(value)) != len(value):
        raise InputFileError("trust file/waive: a check id is listed twice")
    return tuple(str(item) for item in value)


def _build(item: JsonValue, where: str) -> str:
    if not (isinstance(item, str) and item.isascii() and HEX64.fullmatch(item.lower())):
        raise InputFileError(f"{where}: expected 64 hex digits (either case)")
    return item.lower()


def _kernels(value: JsonValue, pending: list[str]) -> tuple[str, ...]:
    """The optional ``kernels`` member: accepted kernel wasm builds, 64 hex each (any case).

    An item is the hex string, or an object ``{"sha256": HEX, "label": ..., "confirmed": ...}``
    (the form a trust template writes); an unconfirmed one is added to ``pending``.
    """
    if not isinstance(value, list):
        raise InputFileError("trust file/kernels: expected an array of sha256 hex strings")
    builds: list[str] = []
    for index, item in enumerate(value):
        where = f"trust file/kernels/{index}"
        if isinstance(item, dict):  # {"sha256": HEX, "label"?, "confirmed"?}
            entry = _members(item, where, _KERNEL_REQUIRED, _KERNEL_OPTIONAL)
            if "label" in entry and not isinstance(entry["label"], str):
                raise InputFileError(f"{where}/label: expected a string")
            build = _build(entry["sha256"], where + "/sha256")
            left = _unconfirmed(entry, where, build, "kernel")
            if left is not None:
                pending.append(left)
        else:
            build = _build(item, where)
        builds.append(build)
    if len(set(builds)) != len(builds):
        raise InputFileError("trust file/kernels: a build is listed twice")
    return tuple(builds)

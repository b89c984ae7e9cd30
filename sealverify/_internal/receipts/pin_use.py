"""Which pins a verify run used: a pinned key or kernel build no receipt names is a run note.

A wrong pin reads as forgery: pin a valid key that signed nothing, and every receipt FAILs its
authority check with the same reason as a forged one. So ``verify`` keeps, as the receipts
pass, which config and receipt pins and which kernel builds given on top of the fleet build
some receipt names, and the keys and builds the receipts do name (a bounded count), and ends
the run with one ``authority.pin-unmatched`` note per pin that matched nothing while some
receipt named a value no pin matched, naming what the receipts carry instead
(docs/verify.md#pins-that-matched-no-receipt).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TypeVar

from sealverify._internal.receipts.verify import DEFAULT_KERNEL_SHA256, VerifyOptions
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Status, Subject, info
from sealverify._internal.results.vocabulary import Family, Role
from sealverify._internal.wire.spelling import HEX64

_FAIL = Status.FAIL

__all__ = ["PinUse", "carry"]

# What the receipts name, per kind: the fact a receipt's subject carries it in.
_FACT = {"config": "config_key", "receipt": "receipt_key", "kernel": "kernel_wasm_sha256"}
_WHAT = {"config": "config key", "receipt": "receipt key", "kernel": "kernel build"}
_DISTINCT = 1_000  # distinct values counted per kind: hostile evidence cannot grow it further
_NAMED = 5  # values a note names, most receipts first


def _pin_facts(subject: Subject) -> dict[str, object]:
    """What :class:`PinUse` reads of a receipt: the keys and build it names, a spine signer."""
    kept: dict[str, object] = {
        fact: subject.facts[fact] for fact in _FACT.values() if fact in subject.facts
    }
    if subject.facts.get("spine_signed") or (
        subject.facts.get("family") == Family.SPINE
        and any(c.id == ids.AUTHORITY_RECEIPT_KEY and c.status != _FAIL for c in subject.checks)
    ):
        # a spine receipt names its signer by key id only: its seal verified under one of the
        # receipt pins, so none of them is said to have matched nothing
        kept["spine_signed"] = True
    return kept


def carry(full: Subject | Check, slim: _Sent) -> _Sent:
    """``slim`` (what a worker sends the parent of ``full``) with what :class:`PinUse` reads."""
    if not (isinstance(full, Subject) and isinstance(slim, Subject)) or full is slim:
        return slim
    facts = _pin_facts(full)
    if not facts:
        return slim
    # Built field by field: ``dataclasses.replace`` would look every field up again per receipt.
    return Subject(  # type: ignore[return-value]
        slim.name, slim.outcome, slim.checks, {**slim.facts, **facts}, slim.label, slim.display
    )


# What a worker sends the parent in place of a result: a subject, a check, or what stopped it.
_Sent = TypeVar("_Sent")


@dataclass
class PinUse:
    """Feed it each receipt's subject (:meth:`add`); :meth:`notes` names the unused pins."""

    pins: dict[str, dict[str, str]]  # kind -> pin -> where it came from (a label or flag)
    used: set[tuple[str, str]] = field(default_factory=set)
    seen: dict[str, Counter[str]] = field(default_factory=lambda: {k: Counter() for k in _FACT})
    others: Counter[str] = field(default_factory=Counter)  # receipts past the distinct cap
    unmatched: Counter[str] = field(default_factory=Counter)  # receipts no pin of a kind matched
    spine_signed: bool = False  # a spine seal verified under one of the receipt pins

    @classmethod
    def of(cls, options: VerifyOptions) -> PinUse:
        """The pins of a run: config and receipt keys, and the kernel builds given."""
        pins: dict[str, dict[str, str]] = {kind: {} for kind in _FACT}
        for role in (Role.CONFIG, Role.RECEIPT):
            for pin in options.trust.pinned(role):
                where = pin.source + (f", {pin.label}" if pin.label else "")
                pins[str(role)].setdefault(pin.public_key, where)
        for builds, where in (
            (options.kernel_pins, "--kernel-sha256"),
            (options.trust.kernels, "trust file"),
        ):
            for build in builds:
                if build != DEFAULT_KERNEL_SHA256:  # pinned always: never a choice to question
                    pins["kernel"].setdefault(build, where)
        return cls(pins)

    def add(self, subject: Subject) -> None:
        """Count what one receipt names, and which pins it matched (``subject`` may be slim)."""
        facts = _pin_facts(subject)
        for kind, fact in _FACT.items():
            value = facts.get(fact)
            if not (isinstance(value, str) and HEX64.fullmatch(value)):
                continue
            if value in self.pins[kind]:
                self.used.add((kind, value))
            elif kind != "kernel" or value != DEFAULT_KERNEL_SHA256:
                self.unmatched[kind] += 1
            counter = self.seen[kind]
            if value in counter or len(counter) < _DISTINCT:
                counter[value] += 1
            else:
                self.others[kind] += 1
        if facts.get("spine_signed"):
            self.spine_signed = True

    def notes(self) -> list[Check]:
        """One ``authority.pin-unmatched`` info check per pin no receipt named, in pin order.

        Only where it matters: for a kind (config key, receipt key, kernel build) some receipt
        names a value no pin matches, so that receipt fails its pin. A pin left over beside
        ones that match every receipt (a key rotated out, a subset of a fleet's receipts)
        fails nothing and says nothing.
        """
        out = []
        for kind, pins in self.pins.items():
            if not self.unmatched[kind] or (kind == "receipt" and self.spine_signed):
                continue
            for pin, source in pins.items():
                if (kind, pin) not in self.used:
                    out.append(self._note(kind, pin, source))
        return out

    def _note(self, kind: str, pin: str, source: str) -> Check:
        counter = self.seen[kind]
        named = counter.most_common(_NAMED)
        carried = ", ".join(f"{value[:16]}… ({n} receipt(s))" for value, n in named)
        rest = sum(counter.values()) - sum(n for _, n in named) + self.others[kind]
        if rest:
            carried += f" and {rest} receipt(s) naming others"
        what = _WHAT[kind]
        return info(
            "authority.pin-unmatched",
            f"pinned {what} {pin[:16]}… ({source}) matched no receipt: the receipts name "
            + (f"the {what}(s) {carried}" if carried else f"no {what}")
            + "; a pin that matches nothing makes every receipt fail as a forgery would, so "
            "check the pin with the seal operator (sealverify inventory lists what the "
            "receipts carry)",
            "",
            kind=kind,
            pin=pin,
            carried=[{"value": value, "receipts": n} for value, n in named],
        )

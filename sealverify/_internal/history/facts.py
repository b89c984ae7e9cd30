"""What history keeps of a verified receipt or audit log: plain facts, no database.

The verifier extracts these for every receipt (``--state`` or not, in workers too), so they
live apart from :mod:`sealverify._internal.history.state`, which opens the database.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sealverify._internal import fastpath
from sealverify._internal.results import ids
from sealverify._internal.results.model import Subject
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_text, uint_value

__all__ = ["ChainFacts", "ReceiptFacts", "established", "receipt_facts"]


@dataclass(frozen=True, slots=True)
class ReceiptFacts:
    """What history needs from one verified receipt.

    ``established`` says the receipt was VERIFIED under pinned keys none of which is
    published: only then may what it says be recorded for later runs (its nonce spent, its
    operation and config epoch remembered). Any other receipt is checked against history,
    never written into it: an UNPINNED copy under a published key or a REDUCED receipt whose
    nonce nothing signs would otherwise spend an honest approval's nonce.
    """

    location: str
    operation_id: str | None = None
    release_status: str | None = None
    identity: str = ""
    nonce: str | None = None
    config_signer: str | None = None
    config_epoch: int | None = None
    established: bool = True


@dataclass(frozen=True, slots=True)
class ChainFacts:
    """The heads a verified audit log reached: where it started and where it ended."""

    location: str
    first_prev_head: str
    heads: tuple[str, ...]
    final_session: str
    final_entry: int
    chain: str = "default"
    # The number of records, when ``heads`` holds only those a check asks about (the head an
    # earlier run recorded, when the log holds it, then the final one): a streamed walk.
    records: int | None = None


def established(subject: Subject) -> bool:
    """VERIFIED under pinned keys none of which is published: what history may learn from.

    An UNPINNED receipt (no pin, or a published key), a REDUCED one (a claim nothing binds,
    such as a fleet approval's nonce) and one verified only under ``--allow-published-keys``
    are checked against history but teach it nothing (a batch run and a follower alike).
    """
    return subject.outcome == Outcome.VERIFIED and not any(
        c.id == ids.AUTHORITY_PUBLISHED_KEY and c.status != "pass" for c in subject.checks
    )


def _identity(doc: dict[str, JsonValue]) -> str:
    """sha256 of the receipt without ``signature`` and ``release_status``, keys sorted.

    Those two members are all that the host's in-place re-signing changes.
    """
    rest = {k: v for k, v in doc.items() if k not in ("signature", "release_status")}
    try:  # the text of compacting identities.sort_keys(rest), without the sorted copy
        data = serdejson.compact_bytes(rest, sort_keys=True)
    except ValueError:
        data = repr(sorted(rest)).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@fastpath.cache(maxsize=16)  # a host signs few configs: its receipts carry the same payload
def _signed_epoch(payload: str) -> int | None:
    """The ``epoch`` of a signed config's payload text, or None (not JSON, or no count)."""
    try:
        parsed = parse_text(payload)
    except JsonError:
        return None
    return uint_value(parsed.get("epoch")) if isinstance(parsed, dict) else None


def receipt_facts(
    doc: dict[str, JsonValue], location: str, *, established: bool = True
) -> ReceiptFacts:
    """Extract history facts from a parsed receipt (strictjson value).

    The config epoch is read from the signed ``signed_config.payload`` text (what the signer
    vouched for), falling back to ``kernel_config.epoch`` only when the receipt carries no
    signed config (then it names no signer, and no epoch is checked or recorded); the signer
    is ``signed_config.pubkey``. ``established``: see :class:`ReceiptFacts` (the verifier
    passes False for a receipt that is not VERIFIED under unpublished pinned keys).
    """
    approval = doc.get("approval")
    nonce = approval.get("nonce") if isinstance(approval, dict) else None
    signer: str | None = None
    epoch: int | None = None
    signed = doc.get("signed_config")
    if isinstance(signed, dict):
        pubkey = signed.get("pubkey")
        signer = pubkey if isinstance(pubkey, str) else None
        payload = signed.get("payload")
        if isinstance(payload, str):
            epoch = _signed_epoch(payload)
    if epoch is None and not isinstance(signed, dict):
        config = doc.get("kernel_config")
        if isinstance(config, dict):
            epoch = uint_value(config.get("epoch"))
    op = doc.get("operation_id")
    status = doc.get("release_status")
    return ReceiptFacts(
        location=location,
        operation_id=op if isinstance(op, str) else None,
        release_status=status if isinstance(status, str) else None,
        identity=_identity(doc),
        nonce=nonce if isinstance(nonce, str) else None,
        config_signer=signer,
        config_epoch=epoch,
        established=established,
    )

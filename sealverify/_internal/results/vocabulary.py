"""Receipt families and trust roles, declared once: each a ``str`` enum whose members are the words.

A member is its word (``Family.V3 == "v3"``; JSON and ``str()`` give the word), so the facts a
report holds keep their bytes, and a mapping keyed by members is found by the plain word too.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Family", "Role"]


class Family(StrEnum):
    """The receipt shapes sealverify reads (docs/receipts.md), as ``receipt_family`` names them.

    seal-host Object B v2 (``v3``, its ``version`` 3, and ``v2-host``, version 2), the fleet
    receipts (``v2``, ``v1``), the live demo's ``v0-live``, and the seal CLI's ``spine``.
    """

    V0_LIVE = "v0-live"
    V1 = "v1"
    V2 = "v2"
    V2_HOST = "v2-host"
    V3 = "v3"
    SPINE = "spine"

    def __repr__(self) -> str:
        return repr(self.value)


class Role(StrEnum):
    """What a pinned key may speak for (docs/trust.md): a config, a receipt or an approval."""

    CONFIG = "config"
    RECEIPT = "receipt"
    APPROVAL = "approval"

    def __repr__(self) -> str:
        return repr(self.value)

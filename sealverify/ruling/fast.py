"""The ruling layer's fast paths, each beside the reference it must equal.

Importing this module (the package ``__init__`` does) binds them into the wording rules, or,
under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`): every member
name's role in the wording walk worked out afresh.
"""

from __future__ import annotations

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.ruling import wording

__all__ = ["PAIRS"]

PAIRS = (
    # The roles kept per member name: a table that is never filled and so never read.
    Pair(wording, "_KEY_ROLES", wording._KEY_ROLES, {}),
    Pair(wording, "_KEY_ROLES_LIMIT", wording._KEY_ROLES_LIMIT, 0),
)
fastpath.register(*PAIRS)

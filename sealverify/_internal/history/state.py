"""Cross-run history: spent nonces, operations, config epochs and the chain head.

A single receipt cannot say whether its approval nonce was already spent, whether its
``operation_id`` was reused, whether an older signed config came back, or whether the audit log
was cut since the last look. :class:`HistoryStore` remembers what earlier runs verified. Checks
only read the database; everything a run learnt is staged in memory and written by
:meth:`HistoryStore.commit` in ONE transaction after the whole run completed, so a run that dies
midway leaves the previous state intact. The database is a SQLite file or a PostgreSQL URL
(``history/databases.py``). The schema carries its version (SQLite: ``PRAGMA user_version``)
and is migrated forward step by step, inside the commit; a newer schema is refused.

Operation identity follows seal-host@099be66 ``rust/src/release.rs``: an ALLOW receipt is
rewritten and re-signed in place as ``release_status`` moves PENDING -> UNKNOWN -> RELEASED, so
the same ``operation_id`` legitimately reappears with the same decision and a later status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sealverify._internal.history.databases import (
    Database,
    HistoryError,
    PostgresDatabase,
    SqliteDatabase,
    is_database_url,
)
from sealverify._internal.history.facts import ChainFacts, ReceiptFacts, receipt_facts
from sealverify._internal.results.model import Check, fail, info, passed

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ChainFacts",
    "HistoryError",
    "HistoryStore",
    "ReceiptFacts",
    "open_store",
    "receipt_facts",
]

# Each entry upgrades the schema from version i to i+1. Never edit a shipped step; add one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE runs (run INTEGER PRIMARY KEY, tool_version TEXT NOT NULL,"
        " subjects INTEGER NOT NULL)",
        "CREATE TABLE nonces (nonce TEXT PRIMARY KEY, operation_id TEXT NOT NULL,"
        " run INTEGER NOT NULL, location TEXT NOT NULL)",
        "CREATE TABLE operations (operation_id TEXT PRIMARY KEY, identity TEXT NOT NULL,"
        " status TEXT NOT NULL, run INTEGER NOT NULL, location TEXT NOT NULL)",
        "CREATE TABLE config_epochs (signer TEXT PRIMARY KEY, epoch INTEGER NOT NULL,"
        " run INTEGER NOT NULL, location TEXT NOT NULL)",
    ),
    (
        "CREATE TABLE chain_heads (chain TEXT PRIMARY KEY, head TEXT NOT NULL,"
        " session TEXT NOT NULL, entry INTEGER NOT NULL, records INTEGER NOT NULL,"
        " run INTEGER NOT NULL)",
    ),
    # A spent nonce is tied to the decision that spent it (its identity), never to where the
    # receipt was stored: rows written before this step keep an empty identity.
    ("ALTER TABLE nonces ADD COLUMN identity TEXT NOT NULL DEFAULT ''",),
    # A head is recorded only from a walk whose start is anchored; a row written before this
    # step does not say how its walk started, so it keeps 0 and is never trusted.
    ("ALTER TABLE chain_heads ADD COLUMN anchored INTEGER NOT NULL DEFAULT 0",),
)
SCHEMA_VERSION = len(MIGRATIONS)

# seal-host ``ReleaseStatus`` (SCREAMING_SNAKE_CASE): the forward order of re-signing.
_RELEASE_ORDER = {"PENDING": 0, "UNKNOWN": 1, "RELEASED": 2}


# One run's writes; the run number is appended to every row (the last column of each).
_WRITE_NONCES = (
    "INSERT INTO nonces (nonce, operation_id, location, identity, run) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT DO NOTHING"
)
_WRITE_OPERATIONS = (
    "INSERT INTO operations (operation_id, identity, status, location, run)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT(operation_id) DO UPDATE SET status = excluded.status,"
    " run = excluded.run, location = excluded.location"
)
_WRITE_EPOCHS = (
    "INSERT INTO config_epochs (signer, epoch, location, run) VALUES (?, ?, ?, ?)"
    " ON CONFLICT(signer) DO UPDATE SET epoch = excluded.epoch, run = excluded.run,"
    " location = excluded.location WHERE excluded.epoch > config_epochs.epoch"
)
_WRITE_CHAINS = (
    "INSERT INTO chain_heads (chain, head, session, entry, records, anchored, run)"
    " VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT(chain) DO UPDATE SET head = excluded.head,"
    " session = excluded.session, entry = excluded.entry, records = excluded.records,"
    " anchored = 1, run = excluded.run"
)


@dataclass
class _Staged:
    nonces: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    operations: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    epochs: dict[str, tuple[int, str]] = field(default_factory=dict)
    chains: dict[str, tuple[str, str, int, int]] = field(default_factory=dict)
    subjects: int = 0


def _other_decision(earlier: tuple[str, str, str], identity: str, operation_id: str) -> bool:
    """Whether the decision that spent a nonce (``earlier``) is not this one."""
    spent_identity, spent_operation, _ = earlier
    if spent_identity:
        return spent_identity != identity
    # A row from before nonces kept identities: its operation id is all there is to compare
    # (older rows without one named a location, which is never the same decision's proof).
    return not operation_id or spent_operation != operation_id


class HistoryStore:
    """One history database. Check (read-only), stage, then :meth:`commit` once per run."""

    def __init__(self, path: Path | str, tool_version: str = "") -> None:
        self.tool_version = tool_version
        self._db: Database
        if isinstance(path, str) and is_database_url(path):
            self._db = PostgresDatabase(path, SCHEMA_VERSION)
        else:
            self._db = SqliteDatabase(Path(path), MIGRATIONS)
        self.path = path
        self._staged = _Staged()
        # Each signer's stored high-water mark as read by the checks in progress: receipts
        # share few signers, and nothing is written before the commit.
        self._epochs_read: dict[str, tuple[int, str] | None] = {}

    @property
    def where(self) -> str:
        """The database as a report names it (a URL without its password)."""
        return self._db.where

    @property
    def schema_version(self) -> int:
        return self._db.schema_version

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def runs(self) -> int:
        row = self._db.one("SELECT COUNT(*) FROM runs")
        return int(row[0]) if row else 0

    # -- receipts -----------------------------------------------------------------------------

    def check_and_stage(self, subjects: Sequence[ReceiptFacts]) -> list[Check]:
        """History checks for verified receipts; stages what they teach for :meth:`commit`.

        Every receipt is checked; only an established one (``ReceiptFacts.established``:
        VERIFIED under pinned keys none of which is published) teaches later runs.
        """
        self._db.begin()
        self._epochs_read = {}
        checks: list[Check] = []
        for facts in subjects:
            self._staged.subjects += 1
            checks.extend(self._check_nonce(facts))
            checks.extend(self._check_operation(facts))
            checks.extend(self._check_epoch(facts))
        return checks

    def _check_nonce(self, facts: ReceiptFacts) -> list[Check]:
        """A nonce is spent by one decision: the same decision may come back, anywhere.

        The decision is its identity (the record less ``signature`` and ``release_status``),
        never a file path or a line number: a different decision reusing the nonce is a
        replay wherever it is stored, and the same receipt under another name is not.
        """
        nonce = facts.nonce
        if nonce is None:
            return []
        op = facts.operation_id or ""
        earlier = self._staged.nonces.get(nonce)
        if earlier is None:
            row = self._db.one(
                "SELECT identity, operation_id, location FROM nonces WHERE nonce = ?", (nonce,)
            )
            earlier = (str(row[0]), str(row[1]), str(row[2])) if row else None
        if earlier is not None and _other_decision(earlier, facts.identity, op):
            return [
                fail(
                    "history.nonce-replayed",
                    f"approval nonce {nonce!r} was already spent by another decision "
                    f"({earlier[2]})",
                    facts.location,
                    nonce=nonce,
                )
            ]
        if earlier is None and facts.established:
            self._staged.nonces[nonce] = (facts.identity, op, facts.location)
        return [
            passed(
                "history.nonce",
                f"approval nonce {nonce!r} not spent by any other decision",
                facts.location,
            )
        ]

    def _check_operation(self, facts: ReceiptFacts) -> list[Check]:
        op = facts.operation_id
        if op is None:
            return []
        status = facts.release_status or ""
        earlier = self._staged.operations.get(op)
        if earlier is None:
            row = self._db.one(
                "SELECT identity, status, location FROM operations WHERE operation_id = ?", (op,)
            )
            earlier = (str(row[0]), str(row[1]), str(row[2])) if row else None
        if earlier is None:
            if facts.established:
                self._staged.operations[op] = (facts.identity, status, facts.location)
            return [passed("history.operation", f"operation_id {op} is new", facts.location)]
        identity, seen_status, where = earlier
        if identity != facts.identity:
            return [
                fail(
                    "history.operation-reused",
                    f"operation_id {op} already names a different decision ({where})",
                    facts.location,
                )
            ]
        old, new = _RELEASE_ORDER.get(seen_status), _RELEASE_ORDER.get(status)
        if old is not None and new is not None and new < old:
            return [
                fail(
                    "history.release-regressed",
                    f"operation {op} was seen {seen_status} ({where}); this copy says {status}: "
                    "an older receipt came back",
                    facts.location,
                )
            ]
        if status != seen_status and (old is None or new is None):
            return [
                fail(
                    "history.operation-reused",
                    f"operation {op} changed release_status {seen_status} -> {status}, which "
                    "is not the PENDING -> UNKNOWN -> RELEASED re-signing",
                    facts.location,
                )
            ]
        if new is not None and old is not None and new > old:
            if facts.established:
                self._staged.operations[op] = (identity, status, facts.location)
            return [
                passed(
                    "history.operation",
                    f"operation {op} re-signed {seen_status} -> "
                    f"{status}, the documented release progression",
                    facts.location,
                )
            ]
        return [
            passed(
                "history.operation",
                f"operation {op} seen before as the same decision ({where})",
                facts.location,
            )
        ]

    def _check_epoch(self, facts: ReceiptFacts) -> list[Check]:
        signer, epoch = facts.config_signer, facts.config_epoch
        if signer is None or epoch is None:
            return []
        high = self._staged.epochs.get(signer)
        if high is None and signer in self._epochs_read:
            high = self._epochs_read[signer]
        elif high is None:
            row = self._db.one(
                "SELECT epoch, location FROM config_epochs WHERE signer = ?", (signer,)
            )
            high = self._epochs_read[signer] = (int(row[0]), str(row[1])) if row else None
        if high is not None and epoch < high[0]:
            return [
                fail(
                    "history.config-rollback",
                    f"signed config epoch {epoch} from signer {signer} is lower than epoch "
                    f"{high[0]} seen before ({high[1]}): an older config came back",
                    facts.location,
                    epoch=epoch,
                    high_water=high[0],
                )
            ]
        if (high is None or epoch > high[0]) and facts.established:
            self._staged.epochs[signer] = (epoch, facts.location)
        return [
            passed(
                "history.config-epoch",
                f"config epoch {epoch} is not below the signer's high-water mark",
                facts.location,
            )
        ]

    # -- audit chain --------------------------------------------------------------------------

    def check_chain(self, facts: ChainFacts, record: bool = True) -> list[Check]:
        """Continuity of the audit chain with the head an earlier run recorded.

        The new log must either contain the recorded head or start right after it; otherwise
        it was truncated, or the history forked. Stages the new final head when ``record``
        (the caller's walk started from an anchor: genesis, a given head, a recorded head).
        """
        if not facts.heads:
            return []
        self._db.begin()
        staged = self._staged.chains.get(facts.chain)
        untrusted = ""  # a recorded head that does not say its walk was anchored
        if staged is not None:
            recorded: tuple[str, int] | None = (staged[0], staged[3])
        else:
            row = self._db.one(
                "SELECT head, records, anchored FROM chain_heads WHERE chain = ?", (facts.chain,)
            )
            recorded = (str(row[0]), int(row[1])) if row and int(row[2]) else None
            if row and recorded is None:
                untrusted = str(row[0])
        checks: list[Check]
        if recorded is None and untrusted:
            checks = [_untrusted_head(untrusted, facts.location, record)]
        elif recorded is None:
            checks = [
                info(
                    "history.chain",
                    "no earlier head recorded for this chain"
                    + ("; this run records the first" if record else ""),
                    facts.location,
                )
            ]
        elif recorded[0] == facts.first_prev_head:
            checks = [
                passed(
                    "history.chain",
                    "the log continues from the head recorded by an earlier run",
                    facts.location,
                )
            ]
        elif recorded[0] in facts.heads:
            checks = [
                passed(
                    "history.chain",
                    "the log still holds the head recorded by an earlier run",
                    facts.location,
                )
            ]
        else:
            return [
                fail(
                    "history.chain-discontinuity",
                    f"the head {recorded[0]} recorded by an earlier run is not in this log and "
                    "the log does not continue from it: the log was truncated or forked",
                    facts.location,
                )
            ]
        if record:
            self._staged.chains[facts.chain] = (
                facts.heads[-1],
                facts.final_session,
                facts.final_entry,
                len(facts.heads) if facts.records is None else facts.records,
            )
        return checks

    def recorded_head(self, chain: str = "default") -> str | None:
        """The committed chain head for ``chain`` (None before any run).

        Only a head recorded from an anchored walk: a row written before the store kept that
        (``anchored`` 0) is never a start (docs/chain.md).
        """
        row = self._db.one(
            "SELECT head FROM chain_heads WHERE chain = ? AND anchored = 1", (chain,)
        )
        return str(row[0]) if row else None

    # -- commit -------------------------------------------------------------------------------

    def commit(self) -> None:
        """Write everything staged in one transaction; call once, after the run completed."""
        staged = self._staged
        self._db.commit(
            (self.tool_version, staged.subjects),
            (
                (
                    _WRITE_NONCES,
                    [(n, op, loc, i) for n, (i, op, loc) in sorted(staged.nonces.items())],
                ),
                (
                    _WRITE_OPERATIONS,
                    [(op, i, s, loc) for op, (i, s, loc) in sorted(staged.operations.items())],
                ),
                (_WRITE_EPOCHS, [(s, e, loc) for s, (e, loc) in sorted(staged.epochs.items())]),
                (
                    _WRITE_CHAINS,
                    [(c, h, s, e, n) for c, (h, s, e, n) in sorted(staged.chains.items())],
                ),
            ),
        )
        self._staged = _Staged()
        self._epochs_read = {}


def _untrusted_head(head: str, location: str, record: bool) -> Check:
    """The finding for a recorded head whose row does not say its walk started anchored."""
    return info(
        "history.chain-head-untrusted",
        f"the head {head} recorded for this chain does not say that the walk it came from "
        "started at an anchor (a row written before heads were recorded only from anchored "
        "walks): it is used neither as this log's start nor to check its continuity"
        + ("; this run records its own head" if record else ""),
        location,
    )


def open_store(where: str, tool_version: str = "") -> HistoryStore:
    """The history store a ``--state`` value names: a PostgreSQL URL or a SQLite path."""
    return HistoryStore(where if is_database_url(where) else Path(where), tool_version)

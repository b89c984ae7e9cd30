"""Prometheus metrics of a follower (``--metrics-port``), served by ``prometheus-client``.

Every name starts with ``sealverify_``: receipts by outcome, findings by check id, the lag
of each followed file in bytes (written, not yet read) and seconds (since the unread bytes
were written), and the time of the last committed checkpoint. The metrics live in a registry
of their own, so a follower embedded in a larger program adds nothing to its default one.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from sealverify._internal.follow.events import Event
from sealverify._internal.follow.tail import Position
from sealverify.errors import InputError

__all__ = ["Metrics", "MetricsError", "file_lag"]


class MetricsError(InputError):
    """The metrics endpoint cannot listen where it was asked to (a port in use, an address)."""


def file_lag(position: Position, now: float) -> tuple[int, float]:
    """Bytes written under a followed name and not yet read, and for how many seconds."""
    try:
        import os

        st = os.stat(position.path)
    except OSError:
        return 0, 0.0
    fp = position.fingerprint
    same = fp is not None and (st.st_dev, st.st_ino) == (fp.dev, fp.ino)
    behind = st.st_size - position.offset if same else st.st_size
    if behind <= 0:
        return 0, 0.0
    return behind, max(0.0, now - (position.mtime if same and position.mtime else st.st_mtime))


class Metrics:
    """The follower's metrics; :meth:`serve` starts the HTTP endpoint."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge

        self.registry: Any = CollectorRegistry()
        self.receipts: Any = Counter(
            "sealverify_follow_receipts",
            "Receipts verified, by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        self.findings: Any = Counter(
            "sealverify_follow_findings",
            "Findings reported, by check id.",
            ["id"],
            registry=self.registry,
        )
        self.lag_bytes: Any = Gauge(
            "sealverify_follow_lag_bytes",
            "Bytes written to a followed file and not yet verified.",
            ["input"],
            registry=self.registry,
        )
        self.lag_seconds: Any = Gauge(
            "sealverify_follow_lag_seconds",
            "Seconds since the oldest unverified write to a followed file (0 when caught up).",
            ["input"],
            registry=self.registry,
        )
        self.checkpoint: Any = Gauge(
            "sealverify_follow_last_checkpoint_timestamp_seconds",
            "When the last checkpoint was committed (Unix time).",
            registry=self.registry,
        )

    def serve(self, port: int, host: str) -> None:
        """Serve ``/metrics`` on ``host:port`` in a daemon thread."""
        from prometheus_client import start_http_server

        try:
            start_http_server(port, addr=host, registry=self.registry)
        except OSError as exc:
            raise MetricsError(f"--metrics-port {port}: cannot listen on {host}: {exc}") from None

    def count(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.outcome is not None:
                self.receipts.labels(outcome=event.outcome).inc()
            if event.finding is not None:
                self.findings.labels(id=event.finding).inc()

    def observe(self, positions: Mapping[str, Position], committed: float | None) -> None:
        now = time.time()
        for path, position in positions.items():
            behind, seconds = file_lag(position, now)
            self.lag_bytes.labels(input=path).set(behind)
            self.lag_seconds.labels(input=path).set(seconds)
        if committed is not None:
            self.checkpoint.set(committed)

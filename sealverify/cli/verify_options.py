"""Options of ``verify`` that say how a run is done: ``--cluster`` and its neighbours."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from sealverify.run.cluster import DEFAULT_PARTITION

__all__ = ["cluster_options"]

_F = TypeVar("_F", bound=Callable[..., Any])


def cluster_options(command: _F) -> _F:
    """``--cluster``, ``--partition-size`` and ``--storage-option`` (docs/scale.md)."""
    for option in reversed(
        (
            click.option(
                "--cluster",
                "cluster_text",
                default=None,
                metavar="ADDRESS",
                help="Verify on a Dask cluster: a scheduler address (tcp://host:8786) or "
                "local[:N] (N worker processes here); the report is identical "
                "(needs the dask extra: pip install 'sealverify[dask]').",
            ),
            click.option(
                "--partition-size",
                "partition_size",
                type=click.IntRange(min=1),
                default=DEFAULT_PARTITION,
                show_default=True,
                metavar="N",
                help="With --cluster: about N receipts per cluster task.",
            ),
            click.option(
                "--storage-option",
                "storage_pairs",
                multiple=True,
                metavar="KEY=VALUE",
                help="An fsspec storage option for s3://, gs://, az://, https:// inputs, e.g. "
                "endpoint_url=http://127.0.0.1:9000 or anon=true (repeatable; VALUE may be "
                "JSON). The environment's credentials (AWS_*, FSSPEC_S3_*) apply too.",
            ),
        )
    ):
        command = option(command)
    return command

"""``verify --follow``: the options that follow a live host, and the call into ``follow/``.

The options are added to ``verify`` by :func:`follow_options`, which hands them to the
command as one value (``follow``: None unless ``--follow`` was given), so the command keeps
one branch for follow mode. The follower itself (tailing, checkpoints, the loop) is the
library package ``sealverify._internal.follow`` (docs/follow.md).
"""

from __future__ import annotations

import errno
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from sealverify import SourceError, StoreError, VerifyOptions, __version__
from sealverify._internal.cli.common import max_input_bytes
from sealverify._internal.reports.formats import jsonl
from sealverify._internal.run import storage
from sealverify.formats import STREAMS

__all__ = ["FollowArgs", "follow_options", "run_follow"]

_F = TypeVar("_F", bound=Callable[..., Any])
HINT = "--metrics-port needs the follow extra: pip install 'sealverify[follow]'"


@dataclass(frozen=True, slots=True)
class FollowArgs:
    """What ``--follow`` and the options beside it asked for."""

    chains: tuple[str, ...]
    on_fail: str | None
    exit_on_fail: bool
    metrics_port: int | None
    metrics_host: str
    poll: bool
    interval: float
    name: str


_NAMES = (
    "follow_flag",
    "chain_path",
    "on_fail",
    "exit_on_fail",
    "metrics_port",
    "metrics_host",
    "poll",
    "poll_interval",
    "follow_name",
)


def _options() -> tuple[Callable[[_F], _F], ...]:
    return (
        click.option(
            "--follow",
            "follow_flag",
            is_flag=True,
            help="Keep following PATH... (JSONL logs, receipt directories, object-storage "
            "prefixes) and --chain: "
            "verify each receipt and chain record as it lands, one JSON event per receipt "
            "and finding on stdout, checkpointed in --state (required).",
        ),
        click.option(
            "--chain",
            "chain_path",
            default=None,
            metavar="LOG",
            help="With --follow: the host's stderr audit chain log to follow too.",
        ),
        click.option(
            "--on-fail",
            "on_fail",
            default=None,
            metavar="CMD",
            help="With --follow: run CMD for each failed receipt or finding, the event on its "
            "stdin.",
        ),
        click.option(
            "--exit-on-fail",
            "exit_on_fail",
            is_flag=True,
            help="With --follow: commit and exit 1 at the first failed receipt or finding.",
        ),
        click.option(
            "--metrics-port",
            "metrics_port",
            type=click.IntRange(0, 65535),
            default=None,
            metavar="PORT",
            help="With --follow: serve Prometheus metrics on PORT (the follow extra).",
        ),
        click.option(
            "--metrics-host",
            "metrics_host",
            default="127.0.0.1",
            show_default=True,
            metavar="HOST",
            help="With --metrics-port: the address to bind.",
        ),
        click.option(
            "--poll",
            "poll",
            is_flag=True,
            help="With --follow: poll the inputs instead of waiting for file events.",
        ),
        click.option(
            "--poll-interval",
            "poll_interval",
            type=click.FloatRange(min=0.01),
            default=1.0,
            show_default=True,
            metavar="SECONDS",
            help="With --follow: look at the inputs at least this often.",
        ),
        click.option(
            "--follow-name",
            "follow_name",
            default="",
            metavar="NAME",
            help="With --follow: the checkpoint's name in --state [default: from the inputs].",
        ),
    )


def follow_options(command: _F) -> _F:
    """Add the follow options to ``command``, handed over as one ``follow`` argument."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in _NAMES}
        follow = None
        if values["follow_flag"]:
            follow = FollowArgs(
                chains=(values["chain_path"],) if values["chain_path"] else (),
                on_fail=values["on_fail"],
                exit_on_fail=values["exit_on_fail"],
                metrics_port=values["metrics_port"],
                metrics_host=values["metrics_host"],
                poll=values["poll"],
                interval=values["poll_interval"],
                name=values["follow_name"],
            )
        elif values["chain_path"] or values["on_fail"] or values["exit_on_fail"]:
            raise click.UsageError("--chain, --on-fail and --exit-on-fail need --follow")
        return command(*args, follow=follow, **kwargs)

    decorated: Any = wrapper
    for option in reversed(_options()):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


# What only a batch run does: --follow writes one JSON event per line to stdout, in this process.
_BATCH_ONLY = {
    "output": "--output",
    "cluster_text": "--cluster",
    "jobs_text": "--jobs",
    "fmt": "--format",
    "attest_key": "--attest-key",  # a summary signs a finished run's verdict (attestation.md)
    "attestation_path": "--attestation",
}


def _refuse_batch_options() -> None:
    context = click.get_current_context(silent=True)
    if context is None:
        return
    for name, flag in _BATCH_ONLY.items():
        source = context.get_parameter_source(name)
        given = source is not None and source != click.core.ParameterSource.DEFAULT
        if given and not (name == "fmt" and _events(context.params.get(name))):
            raise click.UsageError(
                f"{flag} is for a batch run: --follow writes one JSON event per line to stdout"
            )


def _events(fmt: object) -> bool:
    """Whether ``fmt`` names the format --follow writes its events in: JSON Lines."""
    return STREAMS.get(str(fmt)) is jsonl.FORMAT


def run_follow(
    paths: tuple[str, ...], options: VerifyOptions, state: str | None, args: FollowArgs
) -> int:
    """Follow ``paths`` until stopped; the exit code (0 stopped, 1 ``--exit-on-fail``)."""
    if state is None:
        raise click.UsageError("--follow needs --state PATH|URL, where its checkpoints are kept")
    _refuse_batch_options()
    logs: list[str] = []
    folders: list[str] = []
    remote: list[str] = []
    for path in paths:
        if storage.is_url(path):
            remote.append(path)  # a prefix, polled (follow/remote.py)
            continue
        target = Path(path)
        if target.is_dir():
            folders.append(path)
        elif target.is_file() or target.parent.is_dir():
            logs.append(path)  # a log that does not exist yet is followed from its creation
        else:
            raise SourceError(errno.ENOENT, "no such file or directory", path)
    for chain in args.chains:
        if Path(chain).is_dir() or not (Path(chain).is_file() or Path(chain).parent.is_dir()):
            raise click.UsageError(f"--chain {chain}: not a file, nor a name in a folder")
    if args.metrics_port is not None:
        try:
            import prometheus_client  # noqa: F401
        except ImportError:
            raise click.UsageError(HINT) from None
    from sealverify._internal.follow.engine import FollowConfig
    from sealverify._internal.follow.loop import LoopOptions, run
    from sealverify._internal.history.state import HistoryError

    config = FollowConfig(
        tuple(logs),
        tuple(folders),
        args.chains,
        options,
        state,
        args.name,
        max_input=max_input_bytes(),
        tool_version=__version__,
        remote=tuple(remote),
        storage_options=storage.storage_options(),
    )
    loop = LoopOptions(
        args.on_fail,
        args.exit_on_fail,
        args.metrics_port,
        args.metrics_host,
        args.poll,
        args.interval,
    )
    try:
        return run(config, loop, sys.stdout.buffer)
    except HistoryError as exc:  # a StoreError: one line, exit 2, no usage banner
        raise StoreError(f"--state: {exc}") from None

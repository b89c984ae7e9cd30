"""Inputs in object storage: a real S3-compatible server (moto) read through s3fs, and file://.

A tree copied to a bucket is verified as the local tree is (same order, same results; only the
names differ), JSONL logs are read by byte ranges, on one process and on a real local cluster;
globs match as locally; a missing bucket, refused credentials and an unreadable object are
named as their local counterparts are.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sealverify import SourceError
from sealverify._internal.cli.main import cli
from sealverify._internal.cli.verify_options import parse_storage_options
from sealverify._internal.run import engine, storage
from tests.helpers.fleet_services import S3, s3_server
from tests.helpers.verify_perf import DEMO, TRUST, mixed_log

__all__ = ["s3_server"]  # the fixture, imported for its tests


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo receipts and a mixed log (more than two slices), as a local tree."""
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(DEMO / "receipts", root / "receipts")
    mixed_log(root / "receipts")
    return root


@pytest.fixture(scope="module")
def bucket(s3_server: S3, tree: Path) -> str:
    s3_server.client().create_bucket(Bucket="fleet")
    s3_server.upload("fleet", tree, "day-1")
    return "s3://fleet/day-1"


def test_a_bucket_is_verified_as_the_local_tree(s3_server: S3, tree: Path, bucket: str) -> None:
    local = run(str(tree / "receipts"), "--trust", str(TRUST), "--format", "json")
    remote = run(
        f"{bucket}/receipts", "--trust", str(TRUST), "--format", "json", *s3_server.options()
    )
    assert remote.exit_code == local.exit_code == 1
    here, there = (tree / "receipts").as_posix(), f"{bucket}/receipts"
    assert remote.stdout == local.stdout.replace(here, there)
    names = [s["name"] for s in json.loads(remote.stdout)["subjects"]]
    assert sum(n.startswith(f"{there}/mixed.jsonl:") for n in names) > 2 * engine._CHUNK


def test_a_bucket_on_a_local_cluster_is_the_one_process_report(s3_server: S3, bucket: str) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    args = [f"{bucket}/receipts", "--trust", str(TRUST), "--format", "sarif", *s3_server.options()]
    one = run(*args)
    many = run(*args, "--cluster", "local:2", "--partition-size", "64")
    assert many.stdout == one.stdout and many.exit_code == one.exit_code == 1


def test_globs_match_in_a_bucket_as_locally(s3_server: S3, tree: Path, bucket: str) -> None:
    local = run(str(tree / "receipts" / "*.jsonl"), "--trust", str(TRUST), "--format", "json")
    remote = run(
        f"{bucket}/receipts/*.jsonl",
        "--trust",
        str(TRUST),
        "--format",
        "json",
        *s3_server.options(),
    )
    assert remote.stdout == local.stdout.replace(
        (tree / "receipts").as_posix(), f"{bucket}/receipts"
    )
    missing = run(f"{bucket}/receipts/*.nothing", *s3_server.options())
    assert missing.exit_code == 2 and "no file matches this pattern" in missing.output


def test_file_urls_are_local_paths(tree: Path) -> None:
    pytest.importorskip("fsspec", reason="fsspec is not installed")
    local = run(str(tree / "receipts"), "--trust", str(TRUST), "--format", "json")
    url = (tree / "receipts").as_uri()
    remote = run(url, "--trust", str(TRUST), "--format", "json")
    assert remote.exit_code == local.exit_code
    assert remote.stdout == local.stdout.replace((tree / "receipts").as_posix(), url)


def test_a_missing_bucket_exits_2_and_writes_nothing(s3_server: S3, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run("s3://no-such-bucket/x", "--output", str(out), *s3_server.options())
    assert result.exit_code == 2
    assert "s3://no-such-bucket/x: no such file or directory" in result.output
    assert not out.exists()


def test_refused_credentials_exit_2(
    s3_server: S3, bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moto import settings

    monkeypatch.setattr(settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)  # the server checks keys
    result = run(f"{bucket}/receipts", *s3_server.options())
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.startswith("sealverify:")]
    assert len(error) == 1 and bucket in error[0], result.output


def test_an_unreadable_object_is_named_like_an_unreadable_file(
    s3_server: S3, bucket: str, tmp_path: Path
) -> None:
    storage.configure(parse_storage_options(tuple(s3_server.options()[1::2])))
    settings = engine.Settings(engine.VerifyOptions(), False, "json")
    try:
        remote = engine._verify_file(storage.Remote(f"{bucket}/gone.json"), False, settings)
    finally:
        storage.configure({})
    local = engine._verify_file(tmp_path / "gone.json", False, settings)
    # Handed back as the error value the run raises (one line, exit 2), not as a string.
    assert isinstance(local[0], SourceError) and isinstance(remote[0], SourceError)
    assert str(local[0]) == f"cannot read {tmp_path / 'gone.json'}: No such file or directory"
    assert str(remote[0]) == f"cannot read {bucket}/gone.json: No such file or directory"


def test_a_missing_s3_extra_is_a_one_line_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "s3fs", None)
    pytest.importorskip("fsspec", reason="fsspec is not installed")
    registry = sys.modules["fsspec.registry"]
    monkeypatch.delitem(registry._registry, "s3", raising=False)  # forget a loaded s3 class
    result = CliRunner().invoke(cli, ["verify", "s3://bucket/receipts"])
    assert result.exit_code == 2
    assert "pip install 'sealverify[s3]'" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("pair", ["novalue", "=x"])
def test_storage_options_are_checked(pair: str) -> None:
    result = CliRunner().invoke(cli, ["verify", str(DEMO / "receipts"), "--storage-option", pair])
    assert result.exit_code == 2 and "--storage-option" in result.output


def test_storage_option_values_read_as_json() -> None:
    parsed = parse_storage_options(("anon=true", "n=3", 'c={"a": 1}', "u=http://h:1"))
    assert parsed == {"anon": True, "n": 3, "c": {"a": 1}, "u": "http://h:1"}


def test_a_bucket_with_local_workers_is_the_one_process_report(s3_server: S3, bucket: str) -> None:
    args = [f"{bucket}/receipts", "--trust", str(TRUST), "--format", "junit", *s3_server.options()]
    assert run(*args, "--jobs", "2").stdout == run(*args).stdout


def test_an_https_style_url_is_read_like_a_file(tree: Path) -> None:
    pytest.importorskip("aiohttp", reason="aiohttp (fsspec's http) is not installed")
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tree))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        name = "receipts/receipts.jsonl"
        url = f"http://127.0.0.1:{server.server_address[1]}/{name}"
        local = run(str(tree / name), "--trust", str(TRUST), "--format", "json")
        remote = run(url, "--trust", str(TRUST), "--format", "json")
        assert remote.exit_code == local.exit_code
        assert remote.stdout == local.stdout.replace((tree / name).as_posix(), url)
    finally:
        server.shutdown()
        server.server_close()


# --- a store that fails mid-run: exit 2 naming what could not be read, never a skipped input ---


def _attested_tree(root: Path) -> Path:
    """A receipt whose partition attestation beside it fails it (its raw line is not bound)."""
    from sealverify_testkit import mint

    from sealverify._internal.partition import records as partition
    from sealverify._internal.wire.framing import frame_of
    from tests.helpers.verify_wiring import block_with_meta

    raw, frame = block_with_meta()
    (root / "x.receipt.json").write_bytes(raw)
    record = partition.partition_frame(frame_of(frame)).record
    assert record is not None
    attestation = partition.sign_record(record, mint.RECEIPT_KEY.seed)
    attestation["record"]["raw_line_sha256"] = "0" * 64
    (root / "x.receipt.json.partition.json").write_text(json.dumps(attestation))
    return root


@pytest.mark.parametrize("named", ["day-2", "day-2/x.receipt.json"], ids=["walked", "named"])
def test_a_store_that_stops_mid_run_is_exit_2_not_a_skipped_attestation(
    named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server of its own: this test stops it half way through the run. The receipt named
    # directly is the case a swallowed error skipped: its side file is looked up by a request
    # of its own (a walk has it from the listing already, and then fails reading it).
    pytest.importorskip("s3fs", reason="the s3 extra is not installed")
    server_module = pytest.importorskip("moto.server", reason="moto[server] is not installed")
    from tests.helpers.fleet_services import free_port, wait_for_port
    from tests.helpers.verify_wiring import PINS

    port = free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    running = True
    try:
        wait_for_port(port)
        s3 = S3(f"http://127.0.0.1:{port}")
        s3.client().create_bucket(Bucket="attested")
        s3.upload("attested", _attested_tree(tmp_path), "day-2")
        # Few retries against the stopped server: the run ends in seconds, not minutes.
        quick = [*s3.options(), "--storage-option", 'config_kwargs={"retries":{"max_attempts":1}}']
        args = [f"s3://attested/{named}", *PINS, "--format", "json", *quick]
        read = storage.Remote.read_bytes
        reads = 0  # the receipt is read once to group sessions, once to verify it

        def count(self: storage.Remote) -> bytes:
            nonlocal reads
            reads += self.name == "x.receipt.json"
            return read(self)

        monkeypatch.setattr(storage.Remote, "read_bytes", count)
        whole = run(*args)
        assert whole.exit_code == 1, whole.output  # the attestation fails the receipt
        failed = [c for c in json.loads(whole.stdout)["subjects"][0]["checks"]]
        assert any(c["id"].startswith("partition.") and c["status"] == "fail" for c in failed)
        assert reads >= 1
        left = reads

        def read_then_stop(self: storage.Remote) -> bytes:
            nonlocal running, left
            data = read(self)
            left -= self.name == "x.receipt.json"
            if not left and running:
                server.stop()  # the receipt was read; the store goes away before its side file
                running = False
            return data

        monkeypatch.setattr(storage.Remote, "read_bytes", read_then_stop)
        cut = run(*args)
        assert not running
        assert cut.exit_code == 2, cut.output
        assert "cannot read partition attestation s3://attested/day-2/x.receipt.json." in cut.output
        assert '"VERIFIED"' not in cut.stdout
    finally:
        if running:
            server.stop()


class _Store:
    """A filesystem whose lookups fail the way a throttled or unreachable store does."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def info(self, path: str) -> dict[str, str]:
        raise self.error

    def isdir(self, path: str) -> bool:
        raise self.error


@pytest.mark.parametrize(
    "error", [TimeoutError("read timed out"), PermissionError("denied"), RuntimeError("503")]
)
def test_a_store_that_cannot_answer_is_never_no_such_object(
    error: BaseException, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sealverify import SealverifyError, SourceError

    monkeypatch.setattr(storage, "_filesystem", lambda url: (_Store(error), url))
    remote = storage.Remote("s3://b/x.receipt.json.partition.json")
    for look in (remote.is_file, remote.is_dir):
        with pytest.raises(SourceError) as raised:
            look()
        assert isinstance(raised.value, OSError) and isinstance(raised.value, SealverifyError)
        assert str(raised.value).startswith("cannot read s3://b/x.receipt.json.partition.json: ")
    attestation, problem = engine._side_attestation(storage.Remote("s3://b/x.receipt.json"))
    assert attestation is None
    assert isinstance(problem, SourceError)
    assert str(problem).startswith(
        "cannot read partition attestation s3://b/x.receipt.json.partition"
    )


def test_an_absent_object_is_just_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "_filesystem", lambda url: (_Store(FileNotFoundError(url)), url))
    remote = storage.Remote("s3://b/x.receipt.json.partition.json")
    assert remote.is_file() is False and remote.is_dir() is False
    assert engine._side_attestation(storage.Remote("s3://b/x.receipt.json")) == (None, None)

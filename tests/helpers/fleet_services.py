"""Real services for the fleet tests on loopback: Dask scheduler and workers, S3, PostgreSQL.

Each starts for real (never a mock) and skips its tests with a clear message when the package
or binary it needs is absent. PostgreSQL comes from ``SEALVERIFY_TEST_PG_URL`` when set (CI's
``.ci/run`` may start one), else from Debian's binaries in a throwaway data directory.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(
    port: int, proc: subprocess.Popen[bytes] | None = None, limit: float = 60
) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"service exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    return out


@dataclass
class DaskCluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: subprocess.Popen[bytes]

    def worker_pids(self) -> list[int]:
        import psutil

        tree = psutil.Process(self.workers.pid).children(recursive=True)
        return [p.pid for p in tree if "nanny" not in " ".join(p.cmdline()).lower()]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[DaskCluster]:
    """A real ``dask scheduler`` and two single-threaded worker processes, on loopback."""
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    dask = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env()}
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )
    workers: subprocess.Popen[bytes] | None = None
    try:
        wait_for_port(port, scheduler)
        workers = subprocess.Popen(
            [dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
            **quiet,  # type: ignore[call-overload]
        )
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield DaskCluster(address, scheduler, workers)
    finally:
        if workers is not None:
            _stop(workers)
        _stop(scheduler)


@dataclass
class S3:
    endpoint: str

    def options(self) -> list[str]:
        return [
            "--storage-option",
            f"endpoint_url={self.endpoint}",
            "--storage-option",
            "key=testing",
            "--storage-option",
            "secret=testing",
        ]

    def client(self):  # type: ignore[no-untyped-def]
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )

    def upload(self, bucket: str, tree: Path, prefix: str) -> None:
        client = self.client()
        for path in sorted(tree.rglob("*")):
            if path.is_file():
                key = f"{prefix}/{path.relative_to(tree).as_posix()}"
                client.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3]:
    """moto's standalone S3-compatible server, in this process, on a loopback port."""
    pytest.importorskip("s3fs", reason="the s3 extra is not installed")
    server_module = pytest.importorskip("moto.server", reason="moto[server] is not installed")
    port = free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        wait_for_port(port)
        yield S3(f"http://127.0.0.1:{port}")
    finally:
        server.stop()


def _pg_bin() -> Path | None:
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    found = shutil.which("initdb")
    return Path(found).parent if found else None


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL server for the tests: ``SEALVERIFY_TEST_PG_URL``, or one started here."""
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    given = os.environ.get("SEALVERIFY_TEST_PG_URL")
    if given:
        yield given
        return
    binaries = _pg_bin()
    if binaries is None:
        pytest.skip("no PostgreSQL server: set SEALVERIFY_TEST_PG_URL or install postgresql")
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run the server as the postgres account
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start PostgreSQL")
        as_user = ["runuser", "-u", "postgres", "--"]
    base = Path(tempfile.mkdtemp(prefix="sealverify-pg-"))
    data = base / "data"
    if as_user:
        shutil.chown(base, "postgres")
    port = free_port()
    run = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    try:
        subprocess.run(
            [*as_user, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
            **run,  # type: ignore[call-overload]
        )
        subprocess.run(
            [
                *as_user,
                str(binaries / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(base / "log"),
                "-w",
                "-o",
                f"-p {port} -h 127.0.0.1 -k {base}",
                "start",
            ],
            **run,  # type: ignore[call-overload]
        )
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"could not start PostgreSQL: {exc.stderr.decode(errors='replace')[:200]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_url: str) -> Iterator[str]:
    """A fresh database on the test server, dropped afterwards."""
    import psycopg

    name = f"sv_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield pg_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

"""Shared with other test modules by tests/reports/test_terminal_injection.py."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_on_pty(
    args: list[str],
    *,
    env: dict[str, str] | None = None,
    columns: int = 120,
    stderr_on_pty: bool = False,
) -> tuple[str, str, int]:
    """Run ``sealverify args`` with stdout on a pty ``columns`` wide; (out, err, code).

    With ``stderr_on_pty`` stderr goes to the pty too (its text is then in ``out``).

    ``args`` starting with ``-m`` or ``-c`` are given to Python as they are.

    The pty turns each line end into CR LF (ONLCR); it is turned back, and any other CR left
    is the program's own.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")},
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)),
        "TERM": "xterm-256color",
        "NO_COLOR": "1",  # colour is the renderer's own escape sequence, not evidence's
        **(env or {}),
    }
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                *(args if args[:1] in (["-m"], ["-c"]) else ["-m", "sealverify", *args]),
            ],
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave if stderr_on_pty else err,
            cwd=ROOT,
            env=environment,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        code = proc.wait(timeout=300)
        err.seek(0)
        stderr = err.read()
    out = b"".join(chunks).replace(b"\r\n", b"\n").decode("utf-8")
    return out, stderr.decode("utf-8"), code

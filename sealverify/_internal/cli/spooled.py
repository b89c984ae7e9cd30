"""Every command's report, written with flat memory: each subject's fragment spooled as it comes.

The one spooler: a command adds each subject as it is made (``approval``: a token per line;
``lint``: a file each; ``verify``: a receipt's fragment, made where it was verified) and no
subject is held once its fragment is spooled: the fragment goes to a temporary file and only
the format's small state stays (SARIF rule ids, JUnit counts, a table's notes). The report is
then the format's head, the spool and its tail (``reports/formats/protocol.py``): byte for
byte what ``render`` gives for the whole report (tests/perf/test_flat_memory.py holds that for
every format). A format that needs the whole report (a table of rows fitted to their widths,
an html page's charts) keeps the subjects instead.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from types import TracebackType
from typing import IO, Literal

from sealverify import SealverifyError
from sealverify._internal.reports.formats.protocol import Context, Ending, Piece
from sealverify._internal.results.model import Report, Subject
from sealverify.formats import View, format_named

__all__ = ["Ending", "SubjectSpool"]

# Bytes of fragments ``verify`` spools in memory before a temporary file takes them: a few
# receipts' worth, small beside a run's own memory, so its memory stays flat past them.
IN_MEMORY = 1 << 16


def _spool_error(error: OSError) -> SealverifyError:
    """Why the report could not be spooled, in one line (exit 2, not an internal error)."""
    return SealverifyError(
        f"cannot spool the report to a temporary file (TMPDIR): {error.strerror or error}"
    )


class SubjectSpool:
    """Subjects of one report in ``fmt``, spooled as added; :meth:`pieces` writes the report."""

    def __init__(
        self,
        fmt: str,
        command: str,
        layout: Literal["rows", "detail", "receipts"] = "detail",
        view: View | None = None,
        in_memory: int = 0,
    ) -> None:
        self.format = format_named(fmt)
        self.context = Context(command, layout, view or View())
        self.stream = self.format.stream(self.context)
        self.count = 0  # subjects added
        self._kept: list[Subject] = []  # the subjects a format keeps whole
        # in memory up to ``in_memory`` bytes, then a temporary file (the bound keeps memory
        # flat): a verify run of a few receipts never loads tempfile (11 M instructions)
        self._in_memory = in_memory
        self._memory: io.BytesIO | None = io.BytesIO()  # None once rolled over
        self._file: IO[bytes] = self._memory

    def __enter__(self) -> SubjectSpool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._file.close()

    def _roll_over(self) -> None:
        """The spool moved from memory to a temporary file, before it holds ``in_memory``."""
        import tempfile

        try:
            spilled = tempfile.TemporaryFile("w+b")  # noqa: SIM115 (closed on exit)
        except OSError as error:
            raise _spool_error(error) from None
        assert self._memory is not None
        with self._memory.getbuffer() as held:  # written without a copy
            self._write(spilled, held)
        self._memory.close()
        self._file, self._memory = spilled, None

    def add(self, subject: Subject) -> None:
        """One subject, its fragment made here."""
        self.take(*self.format.fragment(subject, self.context))

    def take(self, subject: Subject, piece: Piece) -> None:
        """One subject whose fragment ``piece`` was made elsewhere (a worker, ``fragment``)."""
        self.count += 1
        data = self.stream.take(subject, piece)
        if data is None:
            self._kept.append(subject)
        elif data:  # b"": the subject shows nothing here (a SARIF subject without results)
            separator = self.stream.separator if self.stream.spooled else b""
            memory = self._memory
            if memory is not None and memory.tell() + len(separator) + len(data) > self._in_memory:
                self._roll_over()  # before the write: memory never holds more than the bound
            self._write(self._file, separator)
            self._write(self._file, data)
            self.stream.spooled += 1

    @staticmethod
    def _write(file: IO[bytes], data: bytes | memoryview) -> None:
        try:
            file.write(data)
        except OSError as error:  # the temporary file's disk filled up
            raise _spool_error(error) from None

    def pieces(self, report: Report, ending: Ending | None = None) -> Iterator[str | bytes]:
        """The whole report: ``report`` (its subjects left out) around the spooled ones."""
        bare = dataclasses.replace(report, subjects=())
        return self.stream.pieces(bare, tuple(self._kept), self._file, ending or Ending())

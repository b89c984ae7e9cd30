"""``python -m fuzz complexity``: every parser, scanner and command on growing hostile inputs.

Each case builds a hostile input of 1, 2, 4 and 8 units and runs it (the least CPU time of
five runs, every cache of ``sealverify`` emptied before each, and of five or ten more when
the fit is past the line), then runs each size once more under
tracemalloc for its peak Python allocation. A linear case takes about twice as long (and twice
the memory) per doubling and a quadratic one four times: a case fails when its time or its
peak memory grows faster than :data:`MAX_GROWTH` per doubling (the fit over all four sizes, so
one noisy cell does not decide), or when the peak of its 8-unit run passes its bound. The
inputs are the shapes that once took quadratic time or held more than their input: a literal
that never closes, escapes that a search retried from every backslash, a list searched for
every member, a rescan per hit or per break, a copy of the whole trace per step, an object
built for every line of a stream. This is a benchmark-style figure for ``nox -s fuzz``, not a
test: the suite has no timed tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fuzz.harnesses import _listing_for, run_cli
from fuzz.harnesses import workspace_file as _write
from fuzz.seeds import FIXTURES

__all__ = [
    "CASES",
    "MAX_GROWTH",
    "UNITS",
    "Case",
    "Figure",
    "measure",
    "per_doubling",
    "run_complexity",
]

UNITS = (1, 2, 4, 8)
MAX_GROWTH = 2.5  # per doubling of the input: linear is 2, quadratic 4
_FIXED_BYTES = 48 * 1024 * 1024  # allowance of every case's peak, over its per-byte bound
_REPEATS = 5
_AGAIN = 2  # rounds of _REPEATS more for a case whose time fits past MAX_GROWTH


@dataclass(frozen=True, slots=True)
class Case:
    """One hostile shape: ``make(n)`` is the input of ``n`` units, ``run`` handles it."""

    name: str
    covers: str
    make: Callable[[int], bytes]
    run: Callable[[bytes], int | None]
    expect: frozenset[int] | None = None  # the exit codes the input must give (a command)
    bytes_factor: int = 64  # peak allocation bound: this many bytes per input byte, plus fixed
    fixed: int = _FIXED_BYTES  # the peak allocation bound's fixed part


def per_doubling(sizes: tuple[int, ...], values: tuple[float, ...]) -> float:
    """The ratio of ``values`` per doubling of ``sizes``: 2 to the slope of log over log.

    The slope is the least-squares fit through all the sizes, so one cell moved by other work
    on the machine moves it less than a ratio of two cells would.
    """
    xs = [math.log2(size) for size in sizes]
    ys = [math.log2(max(v, 1e-6)) for v in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return float(2**slope)


@dataclass(frozen=True, slots=True)
class Figure:
    """What one case measured: seconds and peak bytes per size, and their growth."""

    case: Case
    sizes: tuple[int, ...]
    seconds: tuple[float, ...]
    peaks: tuple[int, ...]  # the peak Python allocation (tracemalloc) of one run per size

    @property
    def growth(self) -> float:
        """The time ratio per doubling of the input (:func:`per_doubling`)."""
        return per_doubling(self.sizes, self.seconds)

    @property
    def memory_growth(self) -> float:
        """The peak memory ratio per doubling of the input (:func:`per_doubling`)."""
        return per_doubling(self.sizes, tuple(float(p) for p in self.peaks))

    @property
    def peak(self) -> int:
        """The peak of the largest input."""
        return self.peaks[-1]

    @property
    def peak_bound(self) -> int:
        return self.case.fixed + self.case.bytes_factor * self.sizes[-1]

    @property
    def failures(self) -> list[str]:
        out = []
        if self.growth > MAX_GROWTH:
            out.append(f"time grows {self.growth:.2f}x per doubling (bound {MAX_GROWTH}x)")
        if self.memory_growth > MAX_GROWTH:
            out.append(f"memory grows {self.memory_growth:.2f}x per doubling (bound {MAX_GROWTH}x)")
        if self.peak > self.peak_bound:
            out.append(f"peak {self.peak / 2**20:.0f} MiB (bound {self.peak_bound / 2**20:.0f})")
        return out


def _fresh() -> None:
    """Empty every cache in ``sealverify``, so no run reuses what an earlier one computed."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("sealverify"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type):
                continue
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", "").startswith("sealverify"):
                clear()


def cpu_seconds() -> float:
    """CPU seconds this process and its reaped children have used.

    Not the wall clock: on a shared machine a run is also timed while it waits for a core, and
    that wait (other work, not the case) once made linear cases fit 2.8x and 3.2x per doubling.
    A slope in the work itself is CPU time, so it is still measured.
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(case: Case, inputs: list[bytes], best: list[float] | None = None) -> tuple[float, ...]:
    """The least CPU time of :data:`_REPEATS` runs of each input (and of ``best``, if given).

    The sizes take turns (1, 2, 4, 8, then again), so a stretch of other work on the machine
    slows every size alike rather than one.
    """
    best = list(best) if best is not None else [float("inf")] * len(inputs)
    for _ in range(_REPEATS):
        for index, data in enumerate(inputs):
            _fresh()
            start = cpu_seconds()
            case.run(data)
            best[index] = min(best[index], cpu_seconds() - start)
    return tuple(best)


def _peak(case: Case, data: bytes) -> int:
    _fresh()
    tracemalloc.start()
    try:
        case.run(data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(case: Case, units: tuple[int, ...] = UNITS) -> Figure:
    """Time ``case`` at each size in ``units`` and measure the peak allocation of each.

    A fit past :data:`MAX_GROWTH` is measured again (up to :data:`_AGAIN` rounds more), each
    size keeping its least time: load on the machine only adds time, so a slope that stays
    is the work's own. A command must give one of the exit codes the case expects on every
    input, so that an input refused at its first byte does not pass for a fast one.
    """
    inputs = [case.make(n) for n in units]
    for data in inputs:  # also the first run, which pays for imports and first-use set-up
        code = case.run(data)
        if case.expect is not None and code not in case.expect:
            raise AssertionError(f"exit {code}, expected {sorted(case.expect)}")
    sizes = tuple(len(d) for d in inputs)
    seconds = _timed(case, inputs)
    for _ in range(_AGAIN):  # near the line: more runs, each size's least kept
        if per_doubling(sizes, seconds) <= MAX_GROWTH:
            break
        seconds = _timed(case, inputs, list(seconds))
    peaks = tuple(_peak(case, data) for data in inputs)
    return Figure(case, sizes, seconds, peaks)


# --- the hostile shapes ----------------------------------------------------------------------


def _escaped_quotes(n: int) -> str:
    return '\\"' * n


def _tools_call(argument: str, tool: str = "search_notes", request_id: int = 1) -> str:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{{"q":"{argument}"}}}}}}'
    )


_TEMPORAL_CONFIG = json.dumps(
    {
        "epoch": 1,
        "safety": {
            "approval": {"control_file": "/approvals", "ttl_seconds": 120},
            "tools": [{"name": t, "mode": "allow"} for t in ("search_notes", "x", "y")],
        },
        "temporal": {
            "policies": [
                {"name": "no-x-after-y", "type": "no_after", "trigger": ["y"], "forbidden": ["x"]}
            ]
        },
    },
    separators=(",", ":"),
).encode()


def _decide(lines: bytes, config: bytes = _TEMPORAL_CONFIG) -> int:
    return run_cli(
        ["decide", _write("lines.jsonl", lines), "--config", _write("config.json", config)]
    )


def _decide_config(config: bytes) -> int:
    return _decide(_tools_call("a").encode() + b"\n", config)


def _session(n: int) -> bytes:
    tools = ("search_notes", "y", "search_notes", "x")
    return "\n".join(_tools_call("a", tools[i % 4], i) for i in range(n)).encode() + b"\n"


# --- each kernel's held state, and decide's lines: a step costs what it changes ---------------


def _payload(**sections: object) -> dict[str, object]:
    tools: list[dict[str, object]] = [
        {"name": n, "mode": "allow"} for n in ("read", "key", "t", "pay")
    ]
    tools.append({"name": "db", "mode": "guarded", "target": [{"full_arguments": True}]})
    approval = {"control_file": "/approvals", "ttl_seconds": 120}
    return {"epoch": 1, "safety": {"approval": approval, "tools": tools}, **sections}


def _envelope(tool: str, args: object = None, **evidence: object) -> bytes:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": args or {}}})  # fmt: skip
    step: dict[str, object] = {"line": line, "now": 1000, "approvals": []}
    step.update(votes="", grants="", forecasts="")
    step.update(evidence)
    return json.dumps(step, separators=(",", ":")).encode()


def _steps(data: bytes) -> None:
    """A session: the first line is the config payload (and authority), each other a step."""
    from sealverify._internal.kernel.profiles import CURRENT
    from sealverify._internal.kernel.session import KernelSession

    head, *steps = data.split(b"\n")
    config = json.loads(head)
    init = KernelSession.init_trusted(config["payload"], CURRENT, config.get("authority", ""))
    assert init.session is not None, init.output
    for step in steps:
        init.session.decide(step.decode())


def _session_of(payload: dict[str, object], steps: list[bytes], authority: str = "") -> bytes:
    head = {"payload": json.dumps(payload, separators=(",", ":")), "authority": authority}
    return b"\n".join([json.dumps(head).encode(), *steps])


def _held_approvals(n: int) -> bytes:
    """``n`` approvals held, then ``n`` calls that use none of them."""
    approvals = [{"target": hashlib.sha256(b"%d" % i).hexdigest()} for i in range(n)]
    steps = [_envelope("read", approvals=approvals)] + [_envelope("read")] * n
    return _session_of(_payload(), steps)


def _held_grants(n: int) -> bytes:
    """``n`` capabilities granted, then ``n`` calls that spend one other."""
    grants = "".join(f'{{"cap":"c{i}","uses":1}}\n' for i in range(n)) + (
        f'{{"cap":"spent","uses":{n}}}\n'
    )
    linear = {"grants_file": "/g", "tools": [{"tool": "key", "cap_arg": "k"}]}
    steps = [_envelope("key", {"k": "spent"}, grants=grants)]
    steps += [_envelope("key", {"k": "spent"})] * n
    return _session_of(_payload(linear=linear), steps)


def _principals(n: int) -> bytes:
    """A registry of ``n`` principals, each making one signed call: ``n`` counters held."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from sealverify._internal.kernel.principal import ENVELOPE_TAG

    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"principal").digest())
    pubkey, authority, nonce = key.public_key().public_bytes_raw().hex(), bytes(32), bytes(32)
    keys = [{"id": f"p{i}", "pubkey": pubkey} for i in range(n)]
    budgets = [{"name": "calls", "cap": 1, "tools": ["t"]}]
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "t", "arguments": {}}})  # fmt: skip
    steps = []
    for i in range(n):
        key_id = f"p{i}".encode()
        message = (ENVELOPE_TAG + authority + len(key_id).to_bytes(8, "big") + key_id + nonce
                   + (1).to_bytes(8, "big") + line.encode())  # fmt: skip
        envelope = {"key_id": key_id.decode(), "sig": key.sign(message).hex(),
                    "nonce": nonce.hex(), "issued_at": 1}  # fmt: skip
        steps.append(_envelope("t", envelope=envelope))
    payload = _payload(principals={"keys": keys, "budgets": budgets})
    return _session_of(payload, steps, authority.hex())


def _quorum(n: int) -> bytes:
    """A roster of ``n`` acceptors and one call with a vote from each."""
    consensus = {"roster": list(range(n)), "votes_file": "/v", "high_stakes": ["pay"]}
    votes = "".join(f'{{"acceptor":{i},"value":"pay"}}\n' for i in range(n))
    return _session_of(_payload(consensus=consensus), [_envelope("pay", votes=votes)])


def _decide_approvals(data: bytes) -> int:
    """Run ``decide`` with one ``--approval`` per line of the input, none of them used."""
    approvals = [hashlib.sha256(b"%d" % i).hexdigest() for i in range(data.count(b"\n"))]
    config = json.dumps(_payload(), separators=(",", ":")).encode()
    args = ["decide", _write("lines.jsonl", data), "--config", _write("config.json", config)]
    return run_cli([*args, *(f"--approval={a}" for a in approvals)])


def _decide_lines(data: bytes) -> int:
    """Run ``decide`` over many lines, its report written to the null device (not held)."""
    args = [
        "decide",
        _write("lines.jsonl", data),
        "--config",
        _write("config.json", _TEMPORAL_CONFIG),
    ]
    return run_cli([*args, "--format", "json", "--max-frames", "1000000", "--output", os.devnull])


def _guards(data: bytes) -> None:
    from sealverify._internal.kernel import guards, ljson

    text = data.decode()
    guards.first_failed_guard(text)
    guards.keys_safe(text)
    guards.unicode_keys_safe(text + "\u00e9")
    with suppress(ljson.LeanError, ljson.ModelLimit):
        ljson.parse(text)


def _wirecue(data: bytes) -> None:
    from sealverify._internal.kernel import wirecue

    wirecue.proven_request(data.decode())


def _broken_chain(n: int) -> bytes:
    """A log whose every record links to a head no record holds (every link breaks)."""
    from sealverify_testkit import auditlog

    lines: list[bytes] = []
    for entry in range(1, n + 1):
        payload = f'{{"tool":"t","entry":{entry}}}'.encode()
        prev = hashlib.sha256(b"elsewhere %d" % entry).hexdigest()
        head = auditlog.step(prev, payload)
        lines += [payload, auditlog.record_line(entry, "s1", prev, head, None)]
    return b"\n".join(lines) + b"\n"


def _tools_list(n: int) -> bytes:
    """A tools/list result of ``n`` tools, every name twice."""
    tools = [
        {"name": f"tool-{i // 2}", "description": "d" * 40, "inputSchema": {"type": "object"}}
        for i in range(n)
    ]
    return json.dumps({"tools": tools}).encode()


def _skill(frontmatter: bytes) -> int:
    skill = _write("skills/demo/SKILL.md", frontmatter)
    listing = _write("skills.json", _listing_for(frontmatter))
    return run_cli(["skill", "verify", "--listing", listing, skill, "--format", "json"])


def _many_keys(n: int) -> bytes:
    keys = "".join(f"k{i}: v\n" for i in range(n))
    return f"---\nname: demo\ndescription: d\n{keys}k0: again\n---\n".encode()


def _long_sentence(n: int) -> bytes:
    """One sentence (no sentence end) with ``n`` hits of a phrase rule, about metadata."""
    return ("The _meta key is inert, " * n).encode() + b"\n"


def _lint(data: bytes) -> int:
    return run_cli(["lint", _write("doc.md", data), "--format", "json"])


@cache
def _receipt() -> dict[str, object]:
    raw = (FIXTURES / "demo" / "receipts" / "verified-allow.receipt.json").read_bytes()
    value = json.loads(raw)
    assert isinstance(value, dict)
    return value


def _receipt_with_reason(n: int) -> bytes:
    """The demo receipt with a human-readable note of one long sentence of ``n`` hits."""
    receipt = dict(_receipt())
    receipt["note"] = "the _meta key is inert, and " * n
    return json.dumps(receipt).encode()


def _receipt_log(n: int) -> bytes:
    """A JSON Lines log of ``n`` copies of the demo receipt."""
    line = json.dumps(_receipt(), separators=(",", ":")).encode()
    return b"\n".join([line] * n) + b"\n"


def _verify(data: bytes) -> int:
    name = "receipts.jsonl" if data.count(b"\n") > 1 else "r.receipt.json"
    return run_cli(["verify", _write(name, data), "--format", "json"])


def _verify_html(data: bytes) -> int:
    return run_cli(["verify", _write("r.receipt.json", data), "--format", "html"])


def _periodic_receipt(n: int) -> bytes:
    """The demo receipt whose request_sha256 is a periodic text of ``n`` characters (not hex).

    Its failed binding checks carry the comparison the html drill-down shows side by side.
    """
    receipt = dict(_receipt())
    receipt["request_sha256"] = ("ghj" * n)[:n]
    return json.dumps(receipt).encode()


def _periodic_pair(n: int) -> bytes:
    """Two texts (halves of the input) that differ in a periodic middle of ``n`` characters."""
    a = "p" * n + ("aab" * n)[:n] + "s" * n
    b = "p" * n + ("abb" * n)[:n] + "s" * n
    return (a + b).encode()


def _spans(data: bytes) -> None:
    from sealverify._internal.reports.formats.html import spans

    half = len(data) // 2
    spans.compare(data[:half].decode(), data[half:].decode())


def _approval_tokens(n: int) -> bytes:
    from sealverify_testkit.mint import DEMO_KERNEL_CONFIG, approval_token

    token = approval_token((FIXTURES / "frames" / "call.bin").read_bytes(), DEMO_KERNEL_CONFIG)
    return (token.rstrip(b"\n") + b"\n") * n


def _approval(data: bytes) -> int:
    from sealverify_testkit import keys

    return run_cli(["approval", _write("tokens.ndjson", data), "--approval-pubkey",
             keys.APPROVER_KEY.public_hex, "--frame", str(FIXTURES / "frames" / "call.bin"),
             "--format", "json"])  # fmt: skip


def _frame(data: bytes) -> int:
    return run_cli(["frame", _write("frame.bin", data), "--era", "auto", "--format", "json"])


def _diff(data: bytes) -> int:
    other = _tools_call(_escaped_quotes(len(data) // 2 + 1)).encode() + b"\n"
    a, b = _write("a.bin", data), _write("b.bin", other)
    return run_cli(["diff", a, b, "--era", "auto", "--format", "json"])


def _unit(size: int, make: Callable[[int], bytes]) -> Callable[[int], bytes]:
    return lambda n: make(size * n)


def _chain(data: bytes) -> int:
    return run_cli(["chain", _write("audit.log", data), "--format", "json"])


def _tools_digest(data: bytes) -> int:
    return run_cli(["tools", "digest", _write("tools.json", data), "--format", "json"])


# --- streams of many lines: one line (or frame) held at a time -------------------------------

_CALL = FIXTURES / "frames" / "call.bin"
_LINES = b"{}\n"  # a short line: an object per line is what these cases would show


def _line_feeds(n: int) -> bytes:
    return b"\n" * n


def _intact_log(n: int) -> bytes:
    """A log of ``n`` records, each committing to its payload and linking to the last."""
    from sealverify_testkit import auditlog

    lines: list[bytes] = []
    head = auditlog.GENESIS
    for entry in range(n):
        payload = f'{{"tool":"t","entry":{entry}}}'.encode()
        prev, head = head, auditlog.step(head, payload)
        lines += [payload, auditlog.record_line(entry, "s1", prev, head, None)]
    return b"\n".join(lines) + b"\n"


def _call_then_lines(n: int) -> bytes:
    """The fixture tools/call, then ``n`` short lines: frame 0 is all a command needs."""
    return _CALL.read_bytes() + _LINES * n


def _lines_then_call(n: int) -> bytes:
    """``n`` short lines, then the fixture tools/call: the first tools/call comes last."""
    return _LINES * n + _CALL.read_bytes()


def _partition_emit(data: bytes) -> int:
    return run_cli(["partition", "emit", _write("stream.bin", data), "--era", "auto"])


def _partition_verify(data: bytes) -> int:
    from fuzz.harnesses import _attestation

    att = _write("att.json", _attestation()[0])
    return run_cli(["partition", "verify", att, "--frame", _write("stream.bin", data),
                    "--pubkey", _receipt_key(), "--format", "json"])  # fmt: skip


def _receipt_key() -> str:
    from sealverify_testkit import keys

    return keys.RECEIPT_KEY.public_hex


def _approval_frame(data: bytes) -> int:
    from sealverify_testkit import keys

    tokens = _write("tokens.ndjson", _approval_tokens(1))
    return run_cli(["approval", tokens, "--approval-pubkey", keys.APPROVER_KEY.public_hex,
                    "--frame", _write("frame.bin", data), "--format", "json"])  # fmt: skip


def _frames(data: bytes) -> int:
    # To a file: output captured in memory would count the report's size against the command.
    out = _write("frames.jsonl", b"")
    return run_cli(["frame", _write("stream.bin", data), "--format", "jsonl", "--output", out])


def _diff_capture(data: bytes) -> int:
    return run_cli(["diff", _write("a.bin", data), str(_CALL), "--format", "json"])


def _long_lines_then_call(n: int) -> bytes:
    """``n`` lines of 64 KiB, then the fixture tools/call: much input, few frames."""
    return (b'{"a":"' + b"x" * (_LONG_LINE - 9) + b'"}\n') * n + _CALL.read_bytes()


_LONG_LINE = 64 * 1024


def _diff_sides(data: bytes) -> int:
    # Both sides long (B the same bytes, so the report is short): each read a block at a time.
    a = _write("a.bin", data)
    out = _write("diff.json", b"")
    return run_cli(["diff", a, a, "--format", "json", "--output", out])


def _nested_pairs(n: int) -> bytes:
    """An object past one block: ``n`` runs of brackets nested 250 deep, then escaped quotes."""
    pairs = (b"[" * 250 + b"]" * 250 + b",") * n
    return b'{"record_type":[' + pairs + b'"' + b'\\"' * (200 * n) + b'"]}\n'


_TOOLS_REPLY = (
    b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}\n'
)


def _transcript(n: int) -> bytes:
    """A server-to-client capture of ``n`` notifications, then one tools/list reply."""
    return b'{"jsonrpc":"2.0","method":"notifications/message"}\n' * n + _TOOLS_REPLY


def _tools_compare(data: bytes) -> int:
    listing = _write("listing.json", b'{"tools":[{"name":"a","inputSchema":{}}]}')
    return run_cli(["tools", "compare", "--capture-a", _write("capture.json", data), listing,
                    listing, "--format", "json"])  # fmt: skip


def _long_notes_then_listing(n: int) -> bytes:
    """``n`` notifications of 64 KiB, then one tools/list reply: much input, few frames."""
    note = b'{"jsonrpc":"2.0","method":"n","params":{"d":"' + b"x" * (_LONG_LINE - 49) + b'"}}\n'
    return note * n + _TOOLS_REPLY


def _tools_digest_streams(data: bytes) -> int:
    # The input as both captures (the client's: notifications, and a reply, no request).
    stream, out = _write("s2c.bin", data), _write("digest.json", b"")
    return run_cli(["tools", "digest", stream, "--requests", stream, "--format", "json",
                    "--output", out])  # fmt: skip


def _tools_compare_streams(data: bytes) -> int:
    stream, out = _write("s2c.bin", data), _write("compare.json", b"")
    return run_cli(["tools", "compare", stream, stream, "--requests-a", stream, "--requests-b",
                    stream, "--format", "json", "--output", out])  # fmt: skip


def _capture(n: int) -> bytes:
    """A capture file whose one reading carries ``n`` notes of the client's."""
    notes = [{"note": f"n{i}"} for i in range(n)]
    return json.dumps({"observedAt": 1, "notes": notes}).encode()


def _many_lines_doc(n: int) -> bytes:
    return b"A line of plain text, one sentence.\n" * n


def _blank_lines_doc(n: int) -> bytes:
    return b"A line of plain text, one sentence.\n" + b"\n" * n


def _tab_run_doc(n: int) -> bytes:
    """A run of ``n`` tabs and spaces after "not" and before blank lines: no cut is taken."""
    return b"not" + b"\t " * n + b"\n\nnot present\n"


def _list_doc(n: int) -> bytes:
    """A list of ``n`` items, each a hit: no blank line, no sentence end at a line's end."""
    return b"- the value is inert\n" * n


def _inventory(data: bytes) -> int:
    return run_cli(["inventory", _write("receipts.jsonl", data), "--format", "json"])


def _state_file(n: int) -> bytes:
    """A history store written by sealverify holding ``n`` spent nonces (its size)."""
    import sqlite3

    from sealverify._internal.history.state import HistoryStore

    path = _write("made.sqlite", b"")
    Path(path).unlink()
    with HistoryStore(path) as store:
        store.commit()
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO nonces (nonce, operation_id, run, location, identity) VALUES (?, ?, 1, ?, ?)",
        ((f"nonce-{i}", f"op-{i}", f"r{i}.json", f"decision-{i}") for i in range(n)),
    )
    db.commit()
    db.close()
    return Path(path).read_bytes()


def _verify_state(data: bytes) -> int:
    receipt = str(FIXTURES / "demo" / "receipts" / "verified-allow.receipt.json")
    return run_cli(["verify", receipt, "--state", _write("state.sqlite", data), "--format",
                    "json"])  # fmt: skip


def _chain_state(data: bytes) -> int:
    log = _write("audit.log", _intact_log(4))
    return run_cli(["chain", log, "--state", _write("state.sqlite", data), "--format", "json"])


# A streaming command holds the input once (as read) and one line: a bound with no slack for
# an object per line (chain took 110 bytes per line feed, diff 275 per input byte).
_STREAMED_BYTES, _STREAMED_FIXED = 8, 8 * 1024 * 1024

_FAIL = frozenset({1})
_PASS = frozenset({0})
_REFUSED = frozenset({2})

CASES: tuple[Case, ...] = (
    Case(
        "ljson depth scan",
        'kernel/ljson.py _peak_depth: 600 brackets, then a literal of \\" that never closes',
        _unit(64000, lambda n: ("[" * 600 + '"' + _escaped_quotes(n)).encode()),
        _guards,
    ),
    Case(
        "guards string cut",
        'kernel/guards.py _segments: an object whose value literal of \\" never closes',
        _unit(64000, lambda n: ('{"a":"' + _escaped_quotes(n)).encode()),
        _guards,
    ),
    Case(
        "guards key scan",
        "kernel/guards.py _keys_safe: an unterminated object of distinct keys",
        _unit(8000, lambda n: ("{" + ",".join(f'"k{i}":1' for i in range(n))).encode()),
        _guards,
    ),
    Case(
        "wire cue",
        'kernel/wirecue.py: a valid tools/call whose argument holds \\" escapes',
        _unit(256000, lambda n: _tools_call(_escaped_quotes(n)).encode()),
        _wirecue,
    ),
    Case(
        "decide: escaped quotes",
        'sealverify decide: the tools/call with an argument of \\" escapes',
        _unit(32000, lambda n: _tools_call(_escaped_quotes(n)).encode() + b"\n"),
        _decide,
        _PASS,
    ),
    Case(
        "decide: long session",
        "sealverify decide, temporal kernel: a session of n tools/call lines",
        _unit(1000, _session),
        _decide,
        _FAIL,
    ),
    Case(
        "decide --config",
        'sealverify decide --config: brackets, then a literal of \\" that never closes',
        _unit(32000, lambda n: ("[" * 600 + '"' + _escaped_quotes(n)).encode()),
        _decide_config,
        _REFUSED,
    ),
    Case(
        "kernel: held approvals",
        "kernel/kernels.py SafetyState: n approvals held, then n calls that use none",
        _unit(500, _held_approvals),
        _steps,
    ),
    Case(
        "kernel: held grants",
        "kernel/kernels.py LinearState: n capabilities granted, then n calls spending another",
        _unit(500, _held_grants),
        _steps,
    ),
    Case(
        "kernel: principal budgets",
        "kernel/kernels.py principal budgets, principal.py registry: n principals, a call each",
        _unit(150, _principals),
        _steps,
    ),
    Case(
        "kernel: consensus quorum",
        "kernel/kernels.py consensus_decide: a roster of n acceptors, a vote from each",
        _unit(600, _quorum),
        _steps,
    ),
    Case(
        "decide: many --approval",
        "sealverify decide: n --approval records held, n lines that use none of them",
        _unit(
            250, lambda n: b"".join(_tools_call("a", "read", i).encode() + b"\n" for i in range(n))
        ),
        _decide_approvals,
        _PASS,
    ),
    Case(
        "decide: many lines",
        "sealverify decide --format json: n lines of {} (streamed: one line held at a time)",
        _unit(1500, lambda n: b"{}\n" * n),
        _decide_lines,
        _PASS,
    ),
    Case(
        "frame",
        'sealverify frame: the tools/call with an argument of \\" escapes',
        _unit(16000, lambda n: _tools_call(_escaped_quotes(n)).encode() + b"\n"),
        _frame,
        _PASS,
    ),
    Case(
        "diff",
        'sealverify diff: two tools/calls with arguments of \\" escapes',
        _unit(8000, lambda n: _tools_call(_escaped_quotes(n)).encode() + b"\n"),
        _diff,
        _FAIL,
    ),
    Case(
        "chain: every record breaks",
        "history/chain.py _classify: a log whose every record links nowhere",
        _unit(200, _broken_chain),
        _chain,
        _FAIL,
    ),
    Case(
        "tools digest",
        "tools/digests.py duplicate names: a tools/list whose every name occurs twice",
        _unit(1000, _tools_list),
        _tools_digest,
        _FAIL,
    ),
    Case(
        "skill verify",
        "skills/identity.py duplicate keys: SKILL.md frontmatter of n keys, one repeated",
        _unit(250, _many_keys),
        _skill,
        _FAIL,
    ),
    Case(
        "lint: one long sentence",
        "wording/rules.py: one sentence with n hits of the inert rule",
        _unit(1500, _long_sentence),
        _lint,
        _FAIL,
    ),
    Case(
        "verify: wording in a receipt",
        "sealverify verify: a receipt whose note is one sentence of n hits",
        _unit(300, _receipt_with_reason),
        _verify,
        _FAIL,
    ),
    Case(
        "verify: receipt log",
        "sealverify verify: a JSON Lines log of n receipts",
        _unit(8, _receipt_log),
        _verify,
        frozenset({0, 1, 3, 4}),
        bytes_factor=256,
    ),
    Case(
        "verify --format html",
        "reports/formats/html: failed checks comparing a periodic stored value",
        _unit(64000, _periodic_receipt),
        _verify_html,
        _FAIL,
    ),
    Case(
        "html compare",
        "reports/formats/html/spans.py compare: periodic texts inside a long common prefix, suffix",
        _unit(64000, _periodic_pair),
        _spans,
    ),
    Case(
        "approval",
        "sealverify approval: n token lines",
        _unit(20, _approval_tokens),
        _approval,
        frozenset({0, 1, 3}),
        bytes_factor=256,
    ),
)


# Every command on a stream of many lines, and the history store's size: memory must grow
# with the input at most linearly, and time too (docs/fuzzing.md lists them).
CASES += (
    Case(
        "chain: line feeds",
        "history/chain.py _split_lines: a log of nothing but line feeds",
        _unit(262144, _line_feeds),
        _chain,
        _FAIL,
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "chain: intact log",
        "sealverify chain: a log of n records that all link (walked as read); streamed bound",
        _unit(250, _intact_log),
        _chain,
        frozenset({3}),
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "partition emit: long stream",
        "wire/framing.py iter_stdio: frame 0 of a stream of many lines",
        _unit(40000, _call_then_lines),
        _partition_emit,
        _PASS,
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "partition verify: long stream",
        "sealverify partition verify --frame: frame 0 of a stream of many lines",
        _unit(40000, _call_then_lines),
        _partition_verify,
        frozenset({0, 3}),  # 3: the testkit's key is published, not pinned
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "approval --frame: many lines",
        "sealverify approval: a --frame file of many lines (refused, counted)",
        _unit(40000, _call_then_lines),
        _approval_frame,
        _REFUSED,
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "frame: many frames",
        "sealverify frame: a stream of many short frames, each reported",
        _unit(1000, lambda n: _LINES * n),
        _frames,
        _FAIL,
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "diff: long capture",
        "forensics/sides.py: the first tools/call after many frames",
        _unit(2000, _lines_then_call),
        _diff_capture,
        _PASS,
        bytes_factor=_STREAMED_BYTES,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "diff: held memory",
        "forensics/inputs.py: each side read a block at a time, one line held, never the side",
        _unit(16, _long_lines_then_call),
        _diff_sides,
        _PASS,
        bytes_factor=1,  # not even the input once: it was held whole and copied (3x)
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "diff: bracket scan",
        "forensics/inputs.py _Scan: whether a side past one block is one JSON object",
        _unit(64, _nested_pairs),
        _diff_sides,
        frozenset({0, 1}),
    ),
    Case(
        "tools digest: transcript",
        "tools/digests.py: a stdio transcript of many notifications, then the listing",
        _unit(2000, _transcript),
        _tools_digest,
        frozenset({0, 1, 3}),
    ),
    Case(
        "tools digest: held memory",
        "tools/digests.py: each capture read a block at a time, one frame held, never the stream",
        _unit(16, _long_notes_then_listing),
        _tools_digest_streams,
        frozenset({0}),
        bytes_factor=1,  # not even the input once: both captures were held whole
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "tools compare: held memory",
        "sealverify tools compare: both readings' captures read a block at a time",
        _unit(16, _long_notes_then_listing),
        _tools_compare_streams,
        frozenset({0}),
        bytes_factor=1,
        fixed=_STREAMED_FIXED,
    ),
    Case(
        "tools compare --capture-a",
        "sealverify tools compare: a capture file of many notes",
        _unit(2000, _capture),
        _tools_compare,
        frozenset({0, 1, 2, 3}),
    ),
    Case(
        "lint: many lines",
        "sealverify lint: a document of many short sentences",
        _unit(2000, _many_lines_doc),
        _lint,
        _PASS,
    ),
    Case(
        "lint: blank lines",
        "sealverify lint: one sentence, then a run of blank lines longer than a window",
        _unit(70000, _blank_lines_doc),
        _lint,
        _PASS,
    ),
    Case(
        "lint: a run of tabs",
        "wording/paragraphs.py: a run of tabs and spaces, then blank lines after a word a "
        "phrase may start with, longer than a window",
        _unit(40000, _tab_run_doc),
        _lint,
        _PASS,
    ),
    Case(
        "lint: a long list",
        "wording/paragraphs.py: a window cut at list markers; streamed bound",
        _unit(4000, _list_doc),
        _lint,
        _FAIL,
        bytes_factor=_STREAMED_BYTES,
        # A window of 64 KiB whose every line is a hit keeps each sentence's quotes and clause
        # breaks located (wording/sentences.py): about 9 MiB, whatever the text's length.
        fixed=2 * _STREAMED_FIXED,
    ),
    Case(
        "inventory: receipt log",
        "sealverify inventory: a JSON Lines log of n receipts",
        _unit(8, _receipt_log),
        _inventory,
        frozenset({0}),
        bytes_factor=256,
    ),
    Case(
        "verify --state: store size",
        "history/databases.py: opening and checking a store of n spent nonces",
        _unit(4000, _state_file),
        _verify_state,
        frozenset({0, 1, 3, 4}),
    ),
    Case(
        "chain --state: store size",
        "history/databases.py: chain --state on a store of n spent nonces",
        _unit(4000, _state_file),
        _chain_state,
        frozenset({0, 1, 3}),
    ),
)


# --- the kernels' held state not covered above, a config's size, and the last command --------


def _temporal_trace(n: int) -> bytes:
    """A temporal policy and a session of ``n`` calls, each moving the trace."""
    policy = {"name": "no-pay-after-t", "type": "no_after", "trigger": ["t"], "forbidden": ["pay"]}
    steps = [_envelope(("read", "t")[i % 2]) for i in range(n)]
    return _session_of(_payload(temporal={"policies": [policy]}), steps)


def _convergence(n: int) -> bytes:
    """A replicated tool and ``n`` calls of it, each naming its operation."""
    convergence = {"tools": [{"tool": "key", "op_arg": "op"}]}
    steps = [_envelope("key", {"op": f"o{i}"}) for i in range(n)]
    return _session_of(_payload(convergence=convergence), steps)


def _many_tools(n: int) -> bytes:
    """A config of ``n`` tool rules (a budget naming them all), then ``n`` calls of another."""
    names = [f"tool{i}" for i in range(n)]
    payload = _payload(budget={"budgets": [{"name": "b", "cap": 1, "tools": names}]})
    safety = payload["safety"]
    assert isinstance(safety, dict)
    safety["tools"] = [*safety["tools"], *({"name": name, "mode": "allow"} for name in names)]
    return _session_of(payload, [_envelope("read")] * n)


def _attestation_lines(n: int) -> bytes:
    """``n`` copies of the demo attestation file's lines (signed verification summaries)."""
    return (FIXTURES / "attest" / "demo.intoto.jsonl").read_bytes() * n


def _attestation_verify(data: bytes) -> int:
    key = str(FIXTURES / "attest" / "key.pub.pem")
    return run_cli(["attestation", "verify", _write("gate.intoto.jsonl", data), "--pubkey", key,
                    "--format", "json"])  # fmt: skip


CASES += (
    Case(
        "kernel: temporal trace",
        "kernel/kernels.py temporal_decide: a session of n calls under a temporal policy",
        _unit(500, _temporal_trace),
        _steps,
    ),
    Case(
        "kernel: convergence",
        "kernel/kernels.py convergence_decide: n calls of a replicated tool",
        _unit(500, _convergence),
        _steps,
    ),
    Case(
        "kernel: config of many tools",
        "kernel/config.py, policy.py: n tool rules and a budget of them, n calls of another",
        _unit(500, _many_tools),
        _steps,
    ),
    Case(
        "attestation verify",
        "sealverify attestation verify: a file of many signed verification summaries",
        _unit(4, _attestation_lines),
        _attestation_verify,
        frozenset({0, 1, 3}),
        bytes_factor=256,
    ),
)


def run_complexity(names: list[str] | None = None) -> int:
    """Measure every case (or those named), print the table; 1 when any case fails."""
    chosen = [c for c in CASES if not names or c.name in names]
    failed = 0
    print(f"{'case':30} {'8-unit KiB':>10} " + " ".join(f"{f'{u}x ms':>9}" for u in UNITS)
          + f" {'x/doubling':>10} {'peak MiB':>8} {'mem x/dbl':>9}  result")  # fmt: skip
    for case in chosen:
        try:
            figure = measure(case)
        except AssertionError as exc:
            failed += 1
            print(f"{case.name:30} {exc}")
            continue
        failures = figure.failures
        failed += bool(failures)
        cells = " ".join(f"{s * 1000:>9.1f}" for s in figure.seconds)
        result = "; ".join(failures) if failures else "ok"
        print(f"{case.name:30} {figure.sizes[-1] / 1024:>10.0f} {cells} {figure.growth:>10.2f}"
              f" {figure.peak / 2**20:>8.1f} {figure.memory_growth:>9.2f}  {result}")  # fmt: skip
        sys.stdout.flush()
    return 1 if failed else 0

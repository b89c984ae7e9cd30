"""``python -m fuzz complexity``: every parser, scanner and command on growing hostile inputs.

Each case builds a hostile input of 1, 2, 4 and 8 units and runs it (the fastest of three
runs, every cache of ``sealverify`` emptied before each). A linear case takes about twice as
long per doubling and a quadratic one four times: a case fails when its time grows faster than
:data:`MAX_GROWTH` per doubling (the geometric mean over the three doublings, so one noisy cell
does not decide), or when the peak Python allocation of its 8-unit run (tracemalloc) passes
its bound. The inputs are the shapes that once took quadratic or cubic time: a literal that
never closes, escapes that a search retried from every backslash, a list searched for every
member, a rescan per hit or per break, a copy of the whole trace per step. This is a
benchmark-style figure for ``nox -s fuzz``, not a test: the suite has no timed tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import cache

from fuzz.harnesses import _listing_for, run_cli
from fuzz.harnesses import workspace_file as _write
from fuzz.seeds import FIXTURES

__all__ = ["CASES", "MAX_GROWTH", "UNITS", "Case", "Figure", "measure", "run_complexity"]

UNITS = (1, 2, 4, 8)
MAX_GROWTH = 2.5  # per doubling of the input: linear is 2, quadratic 4
_FIXED_BYTES = 48 * 1024 * 1024  # allowance of every case's peak, over its per-byte bound
_REPEATS = 5


@dataclass(frozen=True, slots=True)
class Case:
    """One hostile shape: ``make(n)`` is the input of ``n`` units, ``run`` handles it."""

    name: str
    covers: str
    make: Callable[[int], bytes]
    run: Callable[[bytes], int | None]
    expect: frozenset[int] | None = None  # the exit codes the input must give (a command)
    bytes_factor: int = 64  # peak allocation bound: this many bytes per input byte, plus fixed


@dataclass(frozen=True, slots=True)
class Figure:
    """What one case measured: seconds per size, the growth per doubling, the peak."""

    case: Case
    sizes: tuple[int, ...]
    seconds: tuple[float, ...]
    peak: int

    @property
    def growth(self) -> float:
        """The time ratio per doubling of the input: 2 to the slope of log time over log size.

        The slope is the least-squares fit through all four sizes, so one cell slowed by other
        work on the machine moves it less than a ratio of two cells would.
        """
        xs = [math.log2(size) for size in self.sizes]
        ys = [math.log2(max(s, 1e-6)) for s in self.seconds]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
            (x - mx) ** 2 for x in xs
        )
        return float(2**slope)

    @property
    def peak_bound(self) -> int:
        return _FIXED_BYTES + self.case.bytes_factor * self.sizes[-1]

    @property
    def failures(self) -> list[str]:
        out = []
        if self.growth > MAX_GROWTH:
            out.append(f"time grows {self.growth:.2f}x per doubling (bound {MAX_GROWTH}x)")
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


def _timed(case: Case, inputs: list[bytes]) -> tuple[float, ...]:
    """The fastest of :data:`_REPEATS` runs of each input.

    The sizes take turns (1, 2, 4, 8, then again), so a stretch of other work on the machine
    slows every size alike rather than one.
    """
    best = [float("inf")] * len(inputs)
    for _ in range(_REPEATS):
        for index, data in enumerate(inputs):
            _fresh()
            start = time.perf_counter()
            case.run(data)
            best[index] = min(best[index], time.perf_counter() - start)
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
    """Time ``case`` at each size in ``units`` and measure the peak of the largest.

    A command must give one of the exit codes the case expects on every input, so that an
    input refused at its first byte does not pass for a fast one.
    """
    inputs = [case.make(n) for n in units]
    for data in inputs:  # also the first run, which pays for imports and first-use set-up
        code = case.run(data)
        if case.expect is not None and code not in case.expect:
            raise AssertionError(f"exit {code}, expected {sorted(case.expect)}")
    seconds = _timed(case, inputs)
    return Figure(case, tuple(len(d) for d in inputs), seconds, _peak(case, inputs[-1]))


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
    from sealverify.kernel.profiles import CURRENT
    from sealverify.kernel.session import KernelSession

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

    from sealverify.kernel.principal import ENVELOPE_TAG

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
    from sealverify.kernel import guards, ljson

    text = data.decode()
    guards.first_failed_guard(text)
    guards.keys_safe(text)
    guards.unicode_keys_safe(text + "\u00e9")
    with suppress(ljson.LeanError, ljson.ModelLimit):
        ljson.parse(text)


def _wirecue(data: bytes) -> None:
    from sealverify.kernel import wirecue

    wirecue.proven_request(data.decode())


def _broken_chain(n: int) -> bytes:
    """A log whose every record links to a head no record holds (every link breaks)."""
    from sealverify.testkit import auditlog

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
    from sealverify.reports.formats.html import spans

    half = len(data) // 2
    spans.compare(data[:half].decode(), data[half:].decode())


def _approval_tokens(n: int) -> bytes:
    from sealverify.testkit.mint import DEMO_KERNEL_CONFIG, approval_token

    token = approval_token((FIXTURES / "frames" / "call.bin").read_bytes(), DEMO_KERNEL_CONFIG)
    return (token.rstrip(b"\n") + b"\n") * n


def _approval(data: bytes) -> int:
    from sealverify.testkit import keys

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
        "definitions/digests.py duplicate names: a tools/list whose every name occurs twice",
        _unit(1000, _tools_list),
        _tools_digest,
        _FAIL,
    ),
    Case(
        "skill verify",
        "definitions/skills.py duplicate keys: SKILL.md frontmatter of n keys, one repeated",
        _unit(250, _many_keys),
        _skill,
        _FAIL,
    ),
    Case(
        "lint: one long sentence",
        "ruling/wording.py: one sentence with n hits of the inert rule",
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


def run_complexity(names: list[str] | None = None) -> int:
    """Measure every case (or those named), print the table; 1 when any case fails."""
    chosen = [c for c in CASES if not names or c.name in names]
    failed = 0
    print(f"{'case':30} {'8-unit KiB':>10} " + " ".join(f"{f'{u}x ms':>9}" for u in UNITS)
          + f" {'x/doubling':>10} {'peak MiB':>8}  result")  # fmt: skip
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
              f" {figure.peak / 2**20:>8.1f}  {result}")  # fmt: skip
        sys.stdout.flush()
    return 1 if failed else 0

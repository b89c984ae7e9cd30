"""Every scanner is linear by construction: counted work, one-token literals, hostile sizes.

A hostile file once made these scanners quadratic or worse: regular expressions that needed a
closing quote and were tried again from every later quote or backslash, duplicates found by
searching a list, a rescan of the text or of all records per hit or per break, a copy of the
whole trace, of the held approvals, grants or budget counters per kernel step, a roster searched
for every vote, and a cubic text comparison in the html report. No test here is timed (``nox -s
fuzz`` runs the timed complexity check, fuzz/complexity.py). They count the work instead:
comparisons made by a key whose equality is counted, keys whose hashing is counted (a map copied
per step rehashes every key), records visited through a sequence that counts its reads, trigger
lookups of a temporal policy, the lengths handed to the html matcher, the characters handed to
the sentence scan, the peak allocation. Where the work is inside the regular expression engine,
they check the token the scan takes (a literal that never closes is one token, to the end of the
text) and run the hostile input from the report at its size, which took tens of seconds before
and takes milliseconds now.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, SupportsIndex

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import auditlog

from sealverify._internal.cli.main import cli
from sealverify._internal.history import chain
from sealverify._internal.kernel import guards, kernels, ljson, wirecue
from sealverify._internal.kernel import session as session_module
from sealverify._internal.kernel.config import TemporalPolicy, TrustedConfig
from sealverify._internal.kernel.evidence import Approval
from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.kernel.session import KernelSession
from sealverify._internal.receipts import spine
from sealverify._internal.reports.formats.html import spans
from sealverify._internal.skills import identity as skills
from sealverify._internal.skills import listing as skill_listing
from sealverify._internal.tools import digests
from sealverify._internal.wire import guards as wire_guards
from sealverify._internal.wire import strictjson
from sealverify._internal.wording import rules as wording
from sealverify._internal.wording import sentences


class _Counted(str):
    """A string whose equality tests are counted (a set or dict compares only on a collision)."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)


@pytest.fixture
def counted() -> Iterator[type[_Counted]]:
    _Counted.compared = 0
    yield _Counted


def _escaped_quotes(n: int) -> str:
    return '\\"' * n


def _tools_call(argument: str) -> str:
    return (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_notes",'
        f'"arguments":{{"q":"{argument}"}}}}}}'
    )


# --- literals that never close: one token, to the end of the text ----------------------------


def test_the_depth_scan_reads_a_literal_that_never_closes_as_one_token() -> None:
    # decide --config: 600 brackets, then a quote whose literal of \" escapes never closes.
    text = "[" * 600 + '"' + _escaped_quotes(48_000)
    token = ljson._BRACKET_OR_STRING.match(text, 600)
    assert token is not None and token.end() == len(text)  # not retried from every quote
    with pytest.raises(ljson.ModelLimit, match="nesting deeper than 512"):
        ljson.parse(text)
    # The brackets after a quote that never closes still count, as they did.
    assert ljson._peak_depth('"' + "[" * 3) == 3
    assert ljson._peak_depth('"\\"' + "[" * 2) == 2
    assert ljson._peak_depth('"\\"[["{') == 1
    assert ljson._peak_depth('"[[["' + "[") == 1


# The depth scan's token as first written: a literal needed its closing quote.
_DEPTH_TOKEN_REFERENCE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _peak_depth_reference(text: str) -> int:
    depth = peak = 0
    for match in _DEPTH_TOKEN_REFERENCE.finditer(text):
        if match.group() in "[{":
            depth += 1
            peak = max(peak, depth)
        elif match.group() in "]}":
            depth -= 1
    return peak


@settings(max_examples=3000)
@given(st.text(alphabet='"\\[]{}a', max_size=30))
def test_the_depth_scan_counts_as_first_written(text: str) -> None:
    assert ljson._peak_depth(text) == _peak_depth_reference(text)


def test_the_guards_cut_a_literal_that_never_closes_in_one_split() -> None:
    # The report's input: an object whose value literal of 48,000 \" escapes never closes.
    text = '{"a":"' + _escaped_quotes(48_000)
    quotes = _escaped_quotes(48_000)
    assert guards._segments(text) == (("{", "a", True), (":", quotes, False))
    assert guards._segments(text + "\\") == (("{", "a", True), (":", quotes + "\\", False))
    assert guards.first_failed_guard(text) is None  # the scans decide nothing past it


def test_the_escaped_name_cue_reads_each_literal_once() -> None:
    # The report's input: a valid tools/call whose argument holds 48,000 escaped quotes (64 kB
    # took 35 s in decide: a search from every backslash scanned on to the closing quote).
    line = _tools_call(_escaped_quotes(48_000))
    walked = wirecue._UP_TO_AN_ESCAPED_NAME.match(line)
    assert walked is not None and walked.end() == len(line)
    proven = wirecue.proven_request(line)
    assert proven == ljson.parse(line)
    assert guards.first_failed_guard(line) is None
    # An escaped member name anywhere still sends the line to the scans.
    escaped = line.replace('"search_notes"', '"search_notes","n\\u0061me":1', 1)
    assert wirecue.proven_request(escaped) is wirecue.UNPROVEN
    assert guards.first_failed_guard(escaped) == "keys"


_ALLOW_SEARCH = {"name": "search_notes", "mode": "allow"}


def test_decide_forwards_the_escaped_quotes_call_at_its_size(tmp_path: Path) -> None:
    # The report's input through the command: 64 kB took 35 s in decide (and in verify's
    # re-derivation of the same line). The route and the bytes are the kernel's.
    line = _tools_call(_escaped_quotes(48_000))
    frame = tmp_path / "lines.jsonl"
    frame.write_text(line + "\n")
    config = tmp_path / "config.json"
    safety = {"approval": {"control_file": "/a", "ttl_seconds": 60}, "tools": [_ALLOW_SEARCH]}
    config.write_text(json.dumps({"epoch": 1, "safety": safety}, separators=(",", ":")))
    args = ["decide", "--config", str(config), str(frame), "--format", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert '"route": "forward"' in result.output


@pytest.mark.parametrize(
    ("name", "scan"),
    [
        ("strict JSON literal", lambda text: strictjson._STRING_TOKEN.sub("", text)),
        ("kernel guards literal", guards._segments),
        ("kernel depth scan", lambda text: ljson._peak_depth("[" + text)),
        ("wire escaped keys", wire_guards.escaped_keys),
    ],
)
def test_a_literal_of_escapes_is_read_in_flat_memory(
    name: str, scan: Callable[[str], object]
) -> None:
    # A greedy repeat kept backtracking state for every escape: about 150 bytes each, so a
    # 2 MB literal of escapes took 146 MiB. The repeats are possessive now.
    text = '{"a":"' + _escaped_quotes(1_000_000) + '"}'
    tracemalloc.start()
    try:
        scan(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(text), (name, peak)


# --- duplicates found with sets and dicts ------------------------------------------------------


def test_the_key_scan_finds_duplicates_without_a_list(counted: type[_Counted]) -> None:
    # An unterminated object of many keys: a list of seen keys cost n*n/2 comparisons.
    keys = 5_000
    text = "{" + ",".join(f'"k{i}":1' for i in range(keys))
    assert guards._keys_safe(text, counted)
    assert counted.compared < keys
    assert not guards._keys_safe(text + ',"k7":2', counted)  # a duplicate is still found


def test_tool_names_are_counted_once(
    counted: type[_Counted], monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = 4_000
    listing = {"tools": [{"name": f"t{i % (tools - 1)}", "inputSchema": {}} for i in range(tools)]}
    name_of = digests._name

    def counted_name(tool: Any) -> str | None:
        name = name_of(tool)
        return counted(name) if name is not None else None

    monkeypatch.setattr(digests, "_name", counted_name)
    found = digests.listing_findings(digests.read_listing(json.dumps(listing).encode()))
    duplicates = [c for c in found if c.id == "tools.list.duplicate-name"]
    assert [c.reason for c in duplicates] == [
        "tool name 't0' occurs more than once; no tool-set digest is computed"
    ]
    assert counted.compared < 4 * tools  # names.count(n) for every name made n*n


def test_frontmatter_keys_are_checked_for_duplicates_with_a_set(
    counted: type[_Counted], monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = 2_000
    text = "".join(f"k{i}: v\n" for i in range(keys)) + "k5: again\n"
    data = f"---\nname: demo\ndescription: d\n{text}---\n".encode()
    compose = yaml.compose

    def counted_compose(stream: str, Loader: Any) -> Any:
        root = compose(stream, Loader=Loader)
        for key, _value in root.value:
            key.value = counted(key.value)
        return root

    monkeypatch.setattr(yaml, "compose", counted_compose)  # the module skills.py calls
    frontmatter = skills.parse_frontmatter(data)
    assert frontmatter.duplicate_keys == ("/k5",)
    assert counted.compared < 4 * keys


@settings(max_examples=500)
@given(
    st.from_regex(r"(/[ab]{1,2}){1,4}", fullmatch=True),
    st.sets(st.from_regex(r"(/[ab]{1,2}){0,3}", fullmatch=True), max_size=6),
)
def test_the_enclosing_listed_directory_is_looked_up_by_ancestor(
    directory: str, listed: set[str]
) -> None:
    # Each skill directory scanned every listed directory (sorted) before.
    entries = dict.fromkeys(listed, "")
    first = next(
        (d for d in sorted(entries, key=len, reverse=True) if directory.startswith(d + "/")),
        None,
    )
    assert skill_listing._enclosing(directory, entries) == first


def test_spine_member_lines_are_counted_once_in_text_order() -> None:
    members = [f'"m{i}": {i}' for i in range(3_000)]
    raw = ("{\n" + ",\n\n".join(members) + "\n}").encode()
    lines = spine._field_lines(raw)
    assert lines["m0"] == 2 and lines["m1"] == 4 and lines["m2999"] == 2 + 2 * 2_999


# --- no rescan per hit, per break or per step ------------------------------------------------


class _CountedRecords(list[chain.ChainRecord]):
    """Records whose reads (iteration and slices) are counted."""

    read = 0

    def __iter__(self) -> Iterator[chain.ChainRecord]:
        for record in super().__iter__():
            _CountedRecords.read += 1
            yield record

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        found = super().__getitem__(index)
        _CountedRecords.read += len(found) if isinstance(found, list) else 1
        return found


def test_chain_breaks_are_classified_without_a_rescan_per_break() -> None:
    # A log whose every record breaks: maps of all records rebuilt per break were n*n.
    count = 2_000
    log = b""
    for entry in range(1, count + 1):
        payload = b'{"entry":%d}' % entry
        prev = chain.commit(chain.genesis(), b"elsewhere %d" % entry)
        head = chain.commit(prev, payload)
        log += payload + b"\n" + auditlog.record_line(entry, "s1", prev, head, None) + b"\n"
    records, _checks, _other = chain.parse_log([("log", log)])
    assert len(records) == count
    counted = _CountedRecords(records)
    _CountedRecords.read = 0
    result = chain.verify_chain(counted)
    kinds = [c.data["kind"] for c in result.checks if c.id == "chain.break"]
    assert kinds == ["mutation"] * (count - 1)
    # A few reads per record (each break looks at its record and the one before); the maps
    # rebuilt per break read every record for every break (about 2 * count * count reads).
    assert _CountedRecords.read < 10 * count


class _CountedNames(tuple[str, ...]):
    """A policy's trigger or forbidden names, whose membership tests are counted."""

    asked = 0

    def __contains__(self, name: object) -> bool:
        _CountedNames.asked += 1
        return tuple.__contains__(self, name)


def test_the_temporal_kernel_folds_one_tool_per_step(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long session: the trace copied and folded whole at every step was n*n.
    policy = {"name": "no-x-after-y", "type": "no_after", "trigger": ["y"], "forbidden": ["x"]}
    payload = {
        "epoch": 1,
        "safety": {
            "approval": {"control_file": "/a", "ttl_seconds": 120},
            "tools": [{"name": n, "mode": "allow"} for n in ("x", "y", "z")],
        },
        "temporal": {"policies": [policy]},
    }
    init = KernelSession.init_trusted(json.dumps(payload, separators=(",", ":")), CURRENT, "")
    assert init.session is not None
    decide = kernels.temporal_decide
    counted: dict[int, tuple[TemporalPolicy, ...]] = {}

    def counted_decide(act: kernels.Action, policies: Any, state: Any) -> Any:
        key = id(policies)
        if key not in counted:
            counted[key] = tuple(
                TemporalPolicy(p.name, _CountedNames(p.trigger), _CountedNames(p.forbidden))
                for p in policies
            )
        return decide(act, counted[key], state)

    monkeypatch.setattr(kernels, "temporal_decide", counted_decide)
    monkeypatch.setattr("sealverify._internal.kernel.session.K.temporal_decide", counted_decide)
    _CountedNames.asked = 0
    steps = 1_500
    reasons = []
    for index in range(steps):
        tool = "z" if index < steps - 2 else ("y", "x")[index - steps + 2]
        line = json.dumps(
            {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {"name": tool}}
        )
        envelope = {"line": line, "now": 1000, "approvals": []}
        envelope.update(votes="", grants="", forecasts="")
        result = init.session.decide(json.dumps(envelope))
        reasons.append(result.verdicts[1].reason)
    assert reasons[0] == "trace ok (1 events)"
    assert reasons[steps - 2] == f"trace ok ({steps - 1} events)"
    assert reasons[-1] == "temporal policy violated: no-x-after-y"
    assert _CountedNames.asked < 4 * steps


def test_the_trace_refolds_under_other_policies() -> None:
    act = kernels.Action("x", {}, "1")
    y = kernels.Action("y", {}, "2")
    first = (TemporalPolicy("p", ("q",), ("x",)),)
    other = (TemporalPolicy("o", ("y",), ("x",)),)
    verdict, state = kernels.temporal_decide(y, first, kernels.EMPTY_TRACE)
    assert verdict.allows and state.tools() == ("y",)
    verdict, held = kernels.temporal_decide(act, first, state)
    assert verdict.allows and held.length == 2
    verdict, _ = kernels.temporal_decide(act, other, state)  # folded afresh: y came first
    assert not verdict.allows and verdict.reason == "temporal policy violated: o"


# --- kernel state held across a session: a step touches what it changes -----------------------


class _Hashed(str):
    """A string whose hashing is counted: a copy of a map rehashes every key it holds."""

    hashed = 0

    def __hash__(self) -> int:
        _Hashed.hashed += 1
        return str.__hash__(self)


class _CountedVoter(int):
    """An acceptor number whose equality tests are counted."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountedVoter.compared += 1
        return int.__eq__(self, other)

    def __hash__(self) -> int:
        return int.__hash__(self)


def _session(payload: dict[str, object]) -> KernelSession:
    init = KernelSession.init_trusted(json.dumps(payload, separators=(",", ":")), CURRENT, "")
    assert init.session is not None, init.output
    return init.session


def _step(tool: str, args: object, now: int = 1000, **evidence: object) -> str:
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }
    )
    envelope: dict[str, object] = {"line": line, "now": now, "approvals": []}
    envelope.update(votes="", grants="", forecasts="")
    envelope.update(evidence)
    return json.dumps(envelope)


_GUARDED = [{"name": "read", "mode": "allow"}, {"name": "y", "mode": "allow"},
            {"name": "wipe", "mode": "deny"},
            {"name": "db", "mode": "guarded", "target": [{"full_arguments": True}]}]  # fmt: skip
_APPROVALS = {"control_file": "/a", "ttl_seconds": 120}


def test_a_step_reads_no_approval_it_does_not_touch(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many approvals held, then calls that use none of them: the approval map rebuilt (twice)
    # at every step cost approvals x calls (60 s for a signed session of grants no call used).
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": _GUARDED}})
    target = s.decide(_step("db", {"q": 1})).verdicts[0].reason
    held, calls = 2_000, 1_000
    approvals = [{"target": hashlib.sha256(b"%d" % i).hexdigest()} for i in range(held)]
    events = session_module.approval_events

    def counted_events(value: Any, now: int, ttl: int) -> Any:
        return [Approval(_Hashed(e.target), e.deadline) for e in events(value, now, ttl)]

    monkeypatch.setattr(session_module, "approval_events", counted_events)
    _Hashed.hashed = 0
    assert s.decide(_step("read", {}, approvals=[*approvals, {"target": target}])).route == (
        "forward"
    )
    for _ in range(calls):
        assert s.decide(_step("read", {})).route == "forward"
    assert _Hashed.hashed < 4 * (held + calls)
    # The approval is still held, spent once, and the others still pruned when due.
    assert s.decide(_step("db", {"q": 1})).route == "forward"
    assert s.decide(_step("db", {"q": 1})).route == "block"
    assert len(s.state.safety.items()) == held
    assert s.decide(_step("read", {}, now=1000 + 120_000)).route == "forward"
    assert s.state.safety.items() == ()


def test_a_step_reads_no_grant_it_does_not_spend(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many capabilities granted, one spent per call: the grant map was copied twice per step.
    tools = [{"name": "key", "mode": "allow"}]
    linear = {"grants_file": "/g", "tools": [{"tool": "key", "cap_arg": "k"}]}
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": tools},
                  "linear": linear})  # fmt: skip
    held, calls = 2_000, 1_000
    grants = "".join(f'{{"cap":"c{i}","uses":1}}\n' for i in range(held))
    grants += f'{{"cap":"spent","uses":{calls}}}\n'
    parse = session_module.parse_grants

    def counted_grants(text: str) -> list[tuple[str, int]]:
        return [(_Hashed(cap), uses) for cap, uses in parse(text)]

    monkeypatch.setattr(session_module, "parse_grants", counted_grants)
    _Hashed.hashed = 0
    first = s.decide(_step("key", {"k": "spent"}, grants=grants))
    assert first.verdicts[-1].reason == f"capability spent ({calls - 1} uses left): spent"
    for _ in range(calls - 1):
        assert s.decide(_step("key", {"k": "spent"})).route == "forward"
    assert _Hashed.hashed < 4 * (held + calls)
    denied = s.decide(_step("key", {"k": "spent"})).verdicts[-1].reason
    assert denied == "capability exhausted, double-spend denied: spent"
    assert s.decide(_step("key", {"k": "c7"})).verdicts[-1].reason == (
        "capability spent (0 uses left): c7"
    )


def test_a_principal_step_reads_only_its_own_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many principals, one call each: every principal's counters were copied at every step.
    tools = [{"name": "t", "mode": "allow"}]
    principals = {"keys": [{"id": "p", "pubkey": "00" * 32}],
                  "budgets": [{"name": "calls", "cap": 2, "tools": ["t"]}]}  # fmt: skip
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": tools},
                  "principals": principals})  # fmt: skip

    def verified(*args: Any) -> str:
        return _Hashed(args[2])  # the key id: each call is its own principal here

    monkeypatch.setattr(session_module, "verify_envelope", verified)
    envelope = {"sig": "", "nonce": "", "issued_at": 1}
    _Hashed.hashed = 0
    count = 2_000
    for index in range(count):
        result = s.decide(_step("t", {}, envelope={**envelope, "key_id": f"p{index}"}))
        assert result.route == "forward" and result.principal == f"p{index}"
    assert _Hashed.hashed < 10 * count
    again = s.decide(_step("t", {}, envelope={**envelope, "key_id": "p7"}))
    assert again.route == "forward"
    over = s.decide(_step("t", {}, envelope={**envelope, "key_id": "p7"})).verdicts[-1]
    assert over.reason == "over principal budget calls (2+1>2): t"


def test_a_principal_key_is_looked_up_not_searched(
    counted: type[_Counted], monkeypatch: pytest.MonkeyPatch
) -> None:
    # verifyEnvelope takes the first registry entry with the claimed id: a search of the
    # registry per call cost its size times the calls.
    keys = [{"id": f"p{i}", "pubkey": "00" * 32} for i in range(2_000)]
    principals = {"keys": keys, "budgets": [{"name": "calls", "cap": 9, "tools": ["t"]}]}
    tools = [{"name": "t", "mode": "allow"}]
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": tools},
                  "principals": principals})  # fmt: skip
    get_str = session_module._get_str

    def counted_key_id(value: Any, key: str) -> str:
        text = get_str(value, key)
        return counted(text) if key == "key_id" else text

    monkeypatch.setattr(session_module, "_get_str", counted_key_id)
    envelope = {"key_id": "p1999", "sig": "00" * 64, "nonce": "00" * 32, "issued_at": 1}
    calls = 200
    for _ in range(calls):
        result = s.decide(_step("t", {}, envelope=envelope))  # a signature of zeros: nobody
        assert result.verdicts[-1].reason == "principal envelope required: t"
    assert counted.compared < 4 * calls


class _Name(str):
    """A tool name in a config, whose equality and inequality tests are counted."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Name.compared += 1
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        _Name.compared += 1
        return str.__ne__(self, other)

    def __hash__(self) -> int:
        return str.__hash__(self)


def _named(config: TrustedConfig) -> TrustedConfig:
    """``config`` with every tool name a section holds counted (its indexes built again)."""
    rules = tuple(dataclasses.replace(r, name=_Name(r.name)) for r in config.safety.tools)
    budget = tuple(
        dataclasses.replace(b, tools=tuple(_Name(t) for t in b.tools)) for b in config.budget
    )
    linear = config.linear
    assert linear is not None
    principals = config.principals
    if principals is not None:
        counted = tuple(
            dataclasses.replace(b, tools=tuple(_Name(t) for t in b.tools))
            for b in principals.budgets
        )
        principals = dataclasses.replace(principals, budgets=counted)
    return dataclasses.replace(
        config,
        safety=dataclasses.replace(config.safety, tools=rules),
        budget=budget,
        principals=principals,
        linear=dataclasses.replace(
            linear, tools=tuple(dataclasses.replace(t, tool=_Name(t.tool)) for t in linear.tools)
        ),
        convergence=tuple(dataclasses.replace(r, tool=_Name(r.tool)) for r in config.convergence),
    )


@pytest.mark.parametrize("sections", [100, 2_000])
def test_a_call_looks_its_tool_up_not_through_the_config(sections: int) -> None:
    # Each call scanned every safety rule, every budget's, linear and convergence tool name
    # for its own: a config's size times the calls. Indexed once per config, a call's lookups
    # are a few, whatever the config holds; the decisions are the same.
    names = [f"t{i}" for i in range(sections)]
    tools = [{"name": n, "mode": "allow"} for n in names] + [{"name": "call", "mode": "allow"}]
    s = _session({
        "epoch": 1,
        "safety": {"approval": _APPROVALS, "tools": tools},
        "budget": {"budgets": [{"name": "b", "cap": 9, "tools": names}]},
        "linear": {"grants_file": "/g", "tools": [{"tool": n, "cap_arg": "k"} for n in names]},
        "convergence": {"tools": [{"tool": n, "op_arg": "op"} for n in names]},
    })  # fmt: skip
    s.config = _named(s.config)
    calls = 300
    _Name.compared = 0
    for _ in range(calls):
        result = s.decide(_step("call", {}))
        assert result.route == "forward"
        assert [v.kernel for v in result.verdicts] == ["safety", "temporal"]
    assert _Name.compared < 4 * calls
    gated = s.decide(_step("t7", {"k": "c", "op": "o"}))
    assert [v.kernel for v in gated.verdicts][2:] == ["convergence", "linear", "budget"]
    assert s.decide(_step("nothing", {})).verdicts[0].reason == "no matching policy rule"


@pytest.mark.parametrize("sections", [100, 2_000])
def test_a_gated_call_looks_its_rules_up_not_through_its_sections(
    sections: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The call's own rule was searched for in each section it is gated by: the convergence
    # rules, the linear tools, every budget's and principal budget's tool names. A call of
    # the last tool named cost the sections' size; the rules are looked up once indexed.
    names = [f"t{i}" for i in range(sections)]
    tools = [{"name": n, "mode": "allow"} for n in names]
    budgets = [{"name": "b", "cap": 9, "tools": names}, {"name": "c", "cap": 1, "tools": ["t0"]}]
    principals = {"keys": [{"id": "p", "pubkey": "00" * 32}], "budgets": budgets}
    s = _session({
        "epoch": 1,
        "safety": {"approval": _APPROVALS, "tools": tools},
        "budget": {"budgets": budgets},
        "linear": {"grants_file": "/g", "tools": [{"tool": n, "cap_arg": "k"} for n in names]},
        "convergence": {"tools": [{"tool": n, "op_arg": "op"} for n in names]},
        "principals": principals,
    })  # fmt: skip
    s.config = _named(s.config)
    monkeypatch.setattr(session_module, "verify_envelope", lambda *args: "p")
    envelope = {"key_id": "p", "sig": "", "nonce": "", "issued_at": 1}
    last = names[-1]
    calls = 300
    _Name.compared = 0
    for _ in range(calls):
        result = s.decide(_step(last, {"k": "c", "op": "o"}, envelope=envelope))
        kernels_run = [v.kernel for v in result.verdicts][2:]
        assert kernels_run == ["convergence", "linear", "budget", "principal_budget"]
        assert [v.reason for v in result.verdicts][2:] == [
            "op not in the proven-convergent set: o",
            "capability exhausted, double-spend denied: c",
            f"within budget: {last}",
            f"within principal budget (p): {last}",
        ]
    assert _Name.compared < 12 * calls
    # The budgets gating a tool are folded in config order, as before.
    step = _step("t0", {"k": "c", "op": "gset.add"}, grants='{"cap":"c","uses":9}\n',
                 envelope=envelope)  # fmt: skip
    assert s.decide(step).route == "forward"
    over = s.decide(step)
    assert [v.reason for v in over.verdicts][4:] == [
        "over budget c (1+1>1): t0",
        "over principal budget c (1+1>1): t0",
    ]


def test_a_quorum_is_counted_without_a_roster_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each vote was looked up in the roster, a list: votes x roster comparisons per call.
    roster = list(range(1, 4_001))
    tools = [{"name": "pay", "mode": "allow"}]
    consensus = {"roster": roster, "votes_file": "/v", "high_stakes": ["pay"]}
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": tools},
                  "consensus": consensus})  # fmt: skip
    parse = session_module.parse_votes

    def counted_votes(text: str) -> list[tuple[int, str]]:
        return [(_CountedVoter(acceptor), value) for acceptor, value in parse(text)]

    monkeypatch.setattr(session_module, "parse_votes", counted_votes)
    votes = "".join(f'{{"acceptor":{a},"value":"pay"}}\n' for a in roster[-2_001:])
    _CountedVoter.compared = 0
    cert = s.decide(_step("pay", {}, votes=votes)).verdicts[-1]
    assert cert.reason == "quorum ok (2001/4000): pay"
    assert _CountedVoter.compared < 8 * len(roster)
    votes += '{"acceptor":4001,"value":"pay"}\n'  # one voter off the roster refuses the quorum
    assert s.decide(_step("pay", {}, votes=votes)).verdicts[-1].reason == (
        "quorum missing (2002/4000): pay"
    )


# One step: the tool (read, y, wipe or db with one of three arguments), the clock, and the
# approvals it brings (which db argument, and an issuedAt or none).
_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["read", "y", "wipe", "db0", "db1", "db2"]),
        st.sampled_from([0, 999, 1000, 60_000, 121_000, 250_000]),
        st.lists(st.tuples(st.integers(0, 2), st.sampled_from([None, 0, 900, 100_000]))),
    ),
    max_size=14,
)


@settings(max_examples=300, deadline=None)
@given(_STEPS)
def test_approvals_held_in_place_decide_as_the_map_copied_per_step(
    steps: list[tuple[str, int, list[tuple[int, int | None]]]],
) -> None:
    # The Lean kernel (SealCore.Automaton; Host/Registry.lean dispatch): the approvals are
    # ingested at once; a call that executes spends its approval and prunes every one due
    # at or before its clock, which a later step with an earlier clock can observe. A
    # temporal policy (no db after y) denies calls the safety kernel allows.
    policy = {"name": "no-db-after-y", "type": "no_after", "trigger": ["y"], "forbidden": ["db"]}
    s = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": _GUARDED},
                  "temporal": {"policies": [policy]}})  # fmt: skip
    fresh = _session({"epoch": 1, "safety": {"approval": _APPROVALS, "tools": _GUARDED}})
    targets = [fresh.decide(_step("db", {"q": k})).verdicts[0].reason for k in range(3)]
    approved: dict[str, int] = {}
    after_y = False
    for tool, now, records in steps:
        for k, issued in records:
            approved[targets[k]] = min(now if issued is None else issued, now) + 120_000
        target = targets[int(tool[2])] if tool.startswith("db") else None
        safe = now < approved.get(target, -1) if target is not None else tool != "wipe"
        allow = safe and not (after_y and target is not None)
        if allow:
            approved.pop(target or "", None)
            approved = {t: due for t, due in approved.items() if now < due}
            after_y = after_y or tool == "y"
        wire = [{"target": targets[k]} | ({} if i is None else {"issuedAt": i}) for k, i in records]
        args = {"q": int(tool[2])} if target is not None else {}
        result = s.decide(_step(tool[:2] if target else tool, args, now, approvals=wire))
        assert result.route == ("forward" if allow else "block")


def _sentence_of_hits(hits: int) -> str:
    return "The _meta key is inert, " * hits + "\n"


def test_one_long_sentence_of_hits_keeps_one_copy_of_it() -> None:
    # One sentence with many hits: each hit kept its own copy of the sentence (and rescanned
    # it), so 6,000 hits in 184 kB took 111 s and a gigabyte.
    hits = 2_000
    text = _sentence_of_hits(hits)
    tracemalloc.start()
    try:
        checks = wording.lint_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(checks) == hits
    assert {c.location for c in checks} == {"line 1"}
    assert checks[0].data["excerpt"] == " ".join(text.split())[:200]
    assert peak < 40 * len(text), peak  # a copy per hit was 2,000 copies


class _CountedScan:
    """The sentence-end pattern, with the characters each scan may read summed."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.read = 0

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        self.read += (len(text) if endpos is None else endpos) - pos
        return self.pattern.finditer(text, pos, len(text) if endpos is None else endpos)

    def search(self, text: str, pos: int = 0) -> Any:
        self.read += len(text) - pos
        return self.pattern.search(text, pos)


def test_sentences_are_cut_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many short sentences, each with a hit: every hit's sentence was found by a scan from the
    # start of the text.
    text = "The _meta key is inert. " * 3_000
    scan = _CountedScan(sentences.SENTENCE_END)
    monkeypatch.setattr(sentences, "SENTENCE_END", scan)
    checks = wording.lint_text(text)
    assert len(checks) == 3_000
    assert checks[-1].data["excerpt"] == "The _meta key is inert."
    assert scan.read < 3 * len(text)


# --- the html comparison -----------------------------------------------------------------------


def test_the_html_comparison_matches_only_a_short_middle(monkeypatch: pytest.MonkeyPatch) -> None:
    # Periodic texts made SequenceMatcher cubic: 1,536 characters took 49 s per failed check.
    matcher = difflib.SequenceMatcher
    sizes: list[int] = []

    def bounded(junk: None, a: str, b: str, autojunk: bool) -> Any:
        sizes.append(max(len(a), len(b)))
        if max(len(a), len(b)) > 256:
            raise AssertionError(f"the matcher was handed {max(len(a), len(b))} characters")
        return matcher(junk, a, b, autojunk=autojunk)

    monkeypatch.setattr(f"{spans.__name__}.SequenceMatcher", bounded)
    a, b = ("aab" * 512)[:1536], ("abb" * 512)[:1536]
    left, right = spans.compare(a, b)
    assert "".join(s.text for s in left) == a and "".join(s.text for s in right) == b
    # the common prefix and suffix ("a", "b"), and the differing middle shown as one span
    assert [(s.text, s.differs) for s in left] == [("a", False), (a[1:-1], True), ("b", False)]
    # A short difference inside long equal text is still matched finely.
    left, right = spans.compare("x" * 3000 + "abc-XYZ-def", "x" * 3000 + "abc-Q-def")
    assert [s.text for s in left if s.differs] == ["XYZ"]
    assert [s.text for s in right if s.differs] == ["Q"]
    assert sizes and max(sizes) <= 64

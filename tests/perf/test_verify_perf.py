"""Issue 8 optimisations change no result: workers, spooled JSON, slim rows, caches, fast paths."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mint import HostContext, mint_many, parse_record

from sealverify._internal.cli.main import cli
from sealverify._internal.primitives.trust import TrustStore, load_trust_file
from sealverify._internal.receipts.bindings import signatures as bindings_signatures
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.verify import (
    VerifyOptions,
    build_report,
    verify_jsonl,
    verify_receipt,
)
from sealverify._internal.reports.formats import jsonfmt
from sealverify._internal.reports.formats.table import receipt_row_subject
from sealverify._internal.results.model import Subject
from sealverify._internal.run import engine
from sealverify._internal.wire import serdejson, strictjson
from sealverify._internal.wire.strictjson import JsonError, JsonNumber, JsonValue, parse_text
from sealverify.formats import render
from tests.helpers.verify_perf import DEMO, TRUST, mixed_log


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


@pytest.mark.parametrize("fmt", ["json", "table", "sarif", "junit"])
def test_two_workers_give_the_identical_report(fmt: str, tmp_path: Path) -> None:
    log = mixed_log(tmp_path)
    args = [str(DEMO / "receipts"), str(log), "--trust", str(TRUST), "--format", fmt]
    args += ["--kernel-sha256", HostContext().wasm_sha256]
    one, two = run(*args, "--jobs", "1"), run(*args, "-j", "2")
    assert one.exit_code == two.exit_code == 1  # the demo holds FAIL receipts
    assert one.stdout == two.stdout
    assert one.stderr == two.stderr
    if fmt == "json":
        report = json.loads(one.stdout)
        demo_log = (DEMO / "receipts" / "receipts.jsonl").read_bytes().count(b"\n")
        demo_files = len(list((DEMO / "receipts").glob("*.json")))
        # The demo log's line 3 is a truncated record (docs: fixtures/demo/README.md). Count:
        # the demo directory (its files, its log), then the mixed log less its blank line,
        # its broken line and the demo's broken line appended to it.
        good_demo_lines = demo_log - 1
        assert report["summary"]["receipts"] == demo_files + good_demo_lines + 138 + good_demo_lines
        names = [s["name"] for s in report["subjects"]]
        assert names[-1] == f"{log.as_posix()}:{140 + demo_log}"  # a last line without "\n"
        assert [f["id"] for f in report["findings"]] == [
            "log.broken-line",
            "log.blank-line",
            "log.broken-line",
            "log.broken-line",
        ]
        assert report["findings"][1]["location"] == f"{log.as_posix()}:6"


def test_spooled_json_equals_rendering_the_whole_report(tmp_path: Path) -> None:
    """The CLI writes JSON subjects as they complete; the bytes equal ``render(report)``."""
    log = mixed_log(tmp_path)
    out = run(str(log), "--trust", str(TRUST), "--format", "json")
    options = VerifyOptions(trust=TrustStore().merge(load_trust_file(TRUST.read_bytes())))
    subjects, findings = verify_jsonl(log.read_bytes(), log.as_posix(), options)
    assert out.stdout == render(build_report(subjects, findings), "json")
    assert out.stdout.count('"name": ') == len(subjects) > 64


def test_json_pieces_rebuild_render() -> None:
    subjects = [
        verify_receipt(p.read_bytes(), p.name) for p in sorted((DEMO / "receipts").glob("*.json"))
    ]
    report = build_report(subjects, [])
    head, tail = jsonfmt.render_around_subjects(report)
    body = jsonfmt.SUBJECT_SEPARATOR.join(jsonfmt.subject_text(s) for s in subjects)
    assert head + body + tail == render(report, "json")


def test_slim_table_subjects_render_the_same_table(tmp_path: Path) -> None:
    subjects = [
        verify_receipt(p.read_bytes(), p.name) for p in sorted((DEMO / "receipts").glob("*.json"))
    ]
    subjects += verify_jsonl(mixed_log(tmp_path).read_bytes(), "log")[0]
    slim = [receipt_row_subject(s) for s in subjects]
    assert sum(len(s.checks) for s in slim) < sum(len(s.checks) for s in subjects) / 5
    assert render(build_report(slim, []), "table") == render(build_report(subjects, []), "table")


def test_output_file_gets_the_same_spooled_json(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    args = [str(DEMO / "receipts"), "--trust", str(TRUST), "--format", "json"]
    run(*args, "--output", str(target), "-j", "2")
    assert target.read_text(encoding="utf-8") == run(*args).stdout


def test_jobs_flag_is_checked() -> None:
    assert run(str(DEMO / "receipts"), "--jobs", "0").exit_code == 2
    assert run(str(DEMO / "receipts"), "--jobs", "many").exit_code == 2
    assert run(str(DEMO / "receipts"), "--jobs", "auto", "--trust", str(TRUST)).exit_code == 1


def test_unreadable_file_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index, raw in enumerate(mint_many(3)):
        (tmp_path / f"r{index}.json").write_bytes(raw)
    real_read, real_open, real_os_open = Path.read_bytes, Path.open, os.open

    def refuse(path: Path) -> bytes:
        if path.name == "r1.json":
            raise PermissionError(13, "Permission denied")
        return real_read(path)

    def refuse_open(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "r1.json":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    def refuse_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if Path(path).name == "r1.json":
            raise PermissionError(13, "Permission denied")
        return real_os_open(path, *args, **kwargs)

    # in process (the jobs=1 path): whole reads and reads held to --max-input-bytes alike
    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr(Path, "open", refuse_open)
    monkeypatch.setattr(os, "open", refuse_os_open)
    result = run(str(tmp_path))
    assert result.exit_code == 2
    assert f"cannot read {tmp_path / 'r1.json'}: Permission denied" in result.stderr


def test_lazy_walk_order_is_sorted_rglob(tmp_path: Path) -> None:
    names = ["a.json", "a/x.json", "a-b.json", "a/b/c.jsonl", "b.ndjson", "a0.json", "Z.json"]
    names += ["a/y.json.partition.json", "a/z.txt", "ab/a.json", "a.b/q.json"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    expected = sorted(
        p
        for p in tmp_path.rglob("*")
        if p.is_file()
        and p.suffix in (".json", ".jsonl", ".ndjson")
        and not p.name.endswith(".partition.json")
    )
    assert list(engine._walk(tmp_path)) == expected
    assert len(expected) == 9


def test_identical_signed_configs_verified_once() -> None:
    raws = list(mint_many(6, seed=b"cache-test"))  # configs of epochs 1, 2, 3, 1, 2, 3
    bindings_signatures._config_verdict.cache_clear()
    bindings_signatures._cached_config_checks.cache_clear()
    first = [verify_receipt(raw, "r") for raw in raws]
    info = bindings_signatures._cached_config_checks.cache_info()
    assert (info.misses, info.hits) == (3, 3)
    assert bindings_signatures._config_verdict.cache_info().misses == 3  # one verify each
    # A cache hit yields exactly the check a cold cache does.
    for raw, subject in zip(raws, first, strict=True):
        bindings_signatures._config_verdict.cache_clear()
        bindings_signatures._cached_config_checks.cache_clear()
        assert verify_receipt(raw, "r") == subject
    assert all(
        any(c.id == "signature.config" and c.status == "pass" for c in s.checks) for s in first
    )


def test_cached_config_verdict_still_refuses_a_forgery() -> None:
    raw = next(mint_many(1, seed=b"cache-forgery"))
    doc = parse_record(raw)
    config = doc["signed_config"]
    assert isinstance(config, dict)
    signature = bytearray(bytes.fromhex(str(config["signature"])))
    signature[0] ^= 1
    forged = raw.replace(str(config["signature"]).encode(), signature.hex().encode())
    verify_receipt(raw, "warm the cache")
    subject = verify_receipt(forged, "forged")
    [check] = [c for c in subject.checks if c.id == "signature.config"]
    assert check.status == "fail"


def test_serde_string_fast_path_matches_reference_on_every_code_point() -> None:
    reference = serdejson.string_text
    chars = [chr(c) for c in range(0x110000)]
    for start in range(0, len(chars), 4096):
        text = "".join(chars[start : start + 4096])
        assert serdejson._string(text) == reference(text)
        if not any(0xD800 <= ord(c) < 0xE000 for c in text):
            assert serdejson.compact(text) == reference(text)


def _reference_compact(value: JsonValue, exact: bool) -> str:
    return serdejson._reference(value, exact, False)


_LEXEMES = ["0", "-0", "1", "-1", "1.0", "1.50", "1e5", "1E400", "0.1", "18446744073709551616"]
_values: st.SearchStrategy[JsonValue] = st.recursive(
    st.none()
    | st.booleans()
    | st.text(max_size=8)
    | st.sampled_from(_LEXEMES).map(JsonNumber)
    | st.integers(-(2**70), 2**70).map(lambda i: JsonNumber(str(i))),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=_values, exact=st.booleans())
def test_compact_equals_reference_writer(value: JsonValue, exact: bool) -> None:
    try:
        expected: str | type[Exception] = _reference_compact(value, exact)
    except serdejson.NumberNotRepresentable:
        expected = serdejson.NumberNotRepresentable
    if isinstance(expected, str):
        assert serdejson.compact(value, exact=exact) == expected
    else:
        with pytest.raises(serdejson.NumberNotRepresentable):
            serdejson.compact(value, exact=exact)


def test_compact_equals_reference_on_real_receipts() -> None:
    for raw in mint_many(30, seed=b"compact"):
        doc = parse_record(raw)
        assert serdejson.compact(doc, exact=True) == _reference_compact(doc, True)
    for path in sorted((DEMO / "receipts").glob("*.json")):
        doc = strictjson.parse_bytes(path.read_bytes())
        for exact in (False, True):
            try:
                expected = _reference_compact(doc, exact)
            except serdejson.NumberNotRepresentable:
                with pytest.raises(serdejson.NumberNotRepresentable):
                    serdejson.compact(doc, exact=exact)
            else:
                assert serdejson.compact(doc, exact=exact) == expected


def _slow_depth_error(text: str, limit: int) -> int | None:
    """The offset the reference token scan reports for a too-deep document (or None)."""
    depth = 0
    for match in strictjson._TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return strictjson._byte_offset(text, match.start())
        elif token in "]}":
            depth -= 1
    return None


def test_depth_fast_path_agrees_with_the_token_scan() -> None:
    rng = random.Random(8)
    pieces = ["[", "]", "{", "}", '"[{"', '"\\"["', '"\\\\"', " ", "1", '"é{"']
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        limit = rng.randint(1, 8)
        expected = _slow_depth_error(text, limit)
        try:
            strictjson._check_depth(text, limit)
        except JsonError as exc:
            assert exc.code == "json.too-deep"
            assert exc.offset == expected, text
        else:
            assert expected is None, text


def test_depth_limit_on_whole_documents() -> None:
    ok = "[" * 64 + "]" * 64
    assert parse_text(ok) is not None
    with pytest.raises(JsonError) as too_deep:
        parse_text('{"a": "[[[[", "b": ' + "[" * 64 + "]" * 64 + "}")
    assert too_deep.value.code == "json.too-deep"
    assert too_deep.value.offset == len('{"a": "[[[[", "b": ') + 63


def test_escaped_member_names_still_found_among_escaped_values() -> None:
    raw = next(mint_many(1, seed=b"escape"))
    assert b"\\" in raw  # canonical_request is escaped JSON: the fast pass must look past it
    assert not any(c.id == "document.escaped-discriminator" for c in read_document(raw).checks)
    escaped = raw.replace(b'"record_type"', b'"record\\u005ftype"', 1)
    ids = [c.id for c in read_document(escaped).checks]
    assert "document.escaped-discriminator" in ids


def test_row_subject_is_a_subject() -> None:
    subject = verify_receipt(next(mint_many(1)), "x")
    slim = receipt_row_subject(subject)
    assert isinstance(slim, Subject)
    assert (slim.name, slim.outcome, slim.label) == (subject.name, subject.outcome, subject.label)


def test_nested_record_version_misspelling_still_found() -> None:
    raw = next(mint_many(1, seed=b"nested"))
    nested = raw.replace(b'"tool":', b'"x": [{"y": {"record_version": 3.0}}], "tool":', 1)
    checks = [c for c in read_document(nested).checks if c.id.startswith("document.record")]
    assert [(c.id, c.location) for c in checks] == [
        ("document.record-version-spelling", "/x/0/y/record_version")
    ]
    assert not [c for c in read_document(raw).checks if c.id.startswith("document.record")]


def test_streamed_table_equals_the_in_memory_table(tmp_path: Path) -> None:
    """The CLI spools table rows to disk (flat memory); the text is the in-memory render."""
    log = mixed_log(tmp_path)
    out = run(str(log), "--trust", str(TRUST), "--allow-published-keys", "--format", "table")
    options = VerifyOptions(
        trust=TrustStore().merge(load_trust_file(TRUST.read_bytes())), allow_published_keys=True
    )
    subjects, findings = verify_jsonl(log.read_bytes(), log.as_posix(), options)
    assert out.stdout == render(build_report(subjects, findings, True), "table")


def test_table_cells_stay_on_one_line_and_wide_characters_count_twice() -> None:
    from sealverify._internal.reports.formats import table, terminal

    assert table.display_width("漢字x") == 5
    from sealverify._internal.reports.visible import visible

    # Cells reach the table made visible (table.receipt_cells): a line break or a tab in a
    # name is shown escaped, so the row stays on one line.
    raw = [("a\nb", "FAIL", "v3", "-", "", "", "0"), ("漢字", "VERIFIED", "v2", "-")]
    rows = [tuple(map(visible, raw[0])), (*map(visible, raw[1]), "", "", "0")]
    lines = list(terminal.lines(lambda: rows, (), 120, colour=False))
    assert len(lines) == 4
    wide, narrow = lines[2], lines[3]  # VERIFIED first, FAIL last
    assert narrow.startswith("a\\x0ab ")
    column = table.display_width(narrow[: narrow.index("FAIL")])
    assert table.display_width(wide[: wide.index("VERIFIED")]) == column


def test_display_width_is_one_column_a_character_and_two_for_east_asian_wide() -> None:
    """The width skips ASCII runs at C speed: it must equal the per-character definition."""
    import random
    import unicodedata

    from sealverify._internal.reports.formats import table

    def by_character(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    rng = random.Random(7)
    pools = [(0, 0x80), (0x80, 0x3000), (0x1100, 0x20000), (0xFF00, 0xFFF0)]
    for _ in range(5000):
        text = "".join(chr(rng.randrange(*rng.choice(pools))) for _ in range(rng.randrange(0, 16)))
        assert table.display_width(text) == by_character(text), ascii(text)
    assert table.display_width("why…" + "x" * 300) == 304
    assert table.display_width("ｘ漢\u00e9a") == 6


def test_streamed_table_keeps_names_with_tabs_line_breaks_and_wide_characters(
    tmp_path: Path,
) -> None:
    """Rows are spooled as tab-separated lines: names holding tabs, CR, LF, U+2028, NEL or wide
    characters give the table the in-memory render gives."""
    source = next(iter(sorted((DEMO / "receipts").glob("*.json"))))
    folder = tmp_path / "receipts"
    folder.mkdir()
    for name in ("a\tb.json", "c\nd.json", "e\rf.json", "g\u2028h\x85i.json", "漢字\t.json"):
        (folder / name).write_bytes(source.read_bytes())
    out = run(str(folder), "--trust", str(TRUST), "--format", "table")
    options = VerifyOptions(trust=TrustStore().merge(load_trust_file(TRUST.read_bytes())))
    subjects = [
        verify_receipt(p.read_bytes(), p.as_posix(), options) for p in sorted(folder.iterdir())
    ]
    assert len(subjects) == 5
    assert out.stdout == render(build_report(subjects, []), "table")


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_parent_and_workers_share_tasks_and_keep_the_order(
    jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one receipt per task, the parent verifies some tasks itself and the workers the
    rest; the report is the one-process report, byte for byte."""
    log = mixed_log(tmp_path)
    args = [str(DEMO / "receipts"), str(log), "--trust", str(TRUST), "--format", "json"]
    one = run(*args, "--jobs", "1")
    monkeypatch.setattr(engine, "_CHUNK", 1)
    ran_here: list[object] = []
    real = engine._run_task

    def spy(task: object, settings: engine.Settings) -> list[engine.Result]:
        ran_here.append(task)  # forked workers append to their own copy, never to this one
        return real(task, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_run_task", spy)
    many = run(*args, "--jobs", jobs)
    assert many.stdout == one.stdout and many.stderr == one.stderr
    tasks = len(list(engine.tasks(engine.expand([str(DEMO / "receipts"), str(log)]))))
    assert 0 < len(ran_here) < tasks  # both the parent and the workers verified


def test_one_process_reads_each_receipt_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--jobs 1 verifies the bytes the session grouping read: one open per receipt file, and
    the report is the one of a run whose tasks read their own files (--jobs 2)."""
    for index, raw in enumerate(mint_many(5)):
        (tmp_path / f"r{index}.json").write_bytes(raw)
    workers = run(str(tmp_path), "--jobs", "2", "--format", "json")
    opened: list[str] = []
    real_os_open = os.open

    def counting_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real_os_open(path, *args, **kwargs)

    real_path_open = Path.open

    def counting_path_open(path: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(path))
        return real_path_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    monkeypatch.setattr(Path, "open", counting_path_open)
    one = run(str(tmp_path), "--jobs", "1", "--format", "json")
    assert one.exit_code == workers.exit_code
    assert one.stdout == workers.stdout
    receipts = sorted(p for p in opened if p.endswith(".json"))
    assert receipts == sorted(str(tmp_path / f"r{index}.json") for index in range(5))


def test_session_grouping_holds_a_receipt_file_to_the_cap(tmp_path: Path) -> None:
    """A file far larger than --max-input-bytes is refused by its size, never read whole,
    not even by the pass that groups receipts into sessions."""
    import tracemalloc

    (tmp_path / "a.json").write_bytes(next(iter(mint_many(1))))
    with (tmp_path / "huge.json").open("wb") as huge:
        huge.truncate(256 << 20)  # sparse: 256 MiB of zero bytes
    tracemalloc.start()
    try:
        result = run(str(tmp_path), "--max-input-bytes", "1M", "--jobs", "1")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 2
    assert "more than 1048576 bytes (--max-input-bytes)" in result.stderr
    assert peak < 64 << 20


def test_side_file_shortcut_says_absent_only_where_pathlib_says_no_file(tmp_path: Path) -> None:
    """verify asks os.stat first whether <receipt>.partition.json is there; only where
    Path.is_file() would quietly say False may the shortcut say "absent"."""
    (tmp_path / "file").write_text("{}")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "to-file").symlink_to(tmp_path / "file")
    names = ["missing", "file", "dir", "dangling", "loop", "to-file", "file/below", "nul\0x"]
    for name in names:
        shown = str(tmp_path / name)
        if engine._absent(shown):
            assert Path(shown).is_file() is False, name
        else:
            assert Path(shown).is_file() is True, name

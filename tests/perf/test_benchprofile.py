"""The benchmark's profile attribution: every second counted once, in the right concern."""

from __future__ import annotations

import cProfile
import hashlib
import pstats

from benchmarks import concerns as benchprofile
from benchmarks.concerns import CATEGORIES, attribute, category_of, profile_calls
from sealverify._internal.wire import strictjson


def test_modules_and_builtins_map_to_their_concern() -> None:
    assert category_of("/x/sealverify/_internal/wire/strictjson.py", "parse_text") == CATEGORIES[1]
    assert category_of("/usr/lib/python3.11/json/decoder.py", "raw_decode") == CATEGORIES[1]
    assert category_of("/x/sealverify/_internal/wire/serdejson.py", "compact") == CATEGORIES[2]
    assert (
        category_of("/x/sealverify/_internal/receipts/bindings/kernel_audit.py", "audit")
        == CATEGORIES[3]
    )
    assert category_of("/x/site-packages/nacl/bindings/crypto_sign.py", "f") == CATEGORIES[0]
    assert category_of("~", "<built-in method _sodium.crypto_sign_open>") == CATEGORIES[0]
    assert category_of("~", "<built-in method _hashlib.openssl_sha256>") == CATEGORIES[2]
    assert category_of("~", "<method 'sub' of 're.Pattern' objects>") is None  # its caller's
    assert category_of("/x/sealverify/_internal/forensics/compare.py", "diff") == "other"


def _stats(work: object, *args: object) -> pstats.Stats:
    profiler = cProfile.Profile()
    profiler.enable()
    work(*args)  # type: ignore[operator]
    profiler.disable()
    return pstats.Stats(profiler)


def test_every_profiled_second_is_counted_once() -> None:
    stats = _stats(lambda: [strictjson.parse_text('{"a": [1, 2.5, "x"]}') for _ in range(300)])
    table = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in table.values())
    assert abs(sum(attribute(stats).values()) - total) < 1e-9


def test_a_parsing_workload_is_attributed_to_parsing() -> None:
    text = '{"k": [' + ",".join(f'{{"n{i}": {i}.5, "s": "\\u00e9"}}' for i in range(200)) + "]}"
    raw = text.encode()
    profile = profile_calls(strictjson.parse_bytes, [raw] * 30)
    shares = {category: share for category, share, _ in profile.shares()}
    assert shares[CATEGORIES[1]] > 0.8, shares
    assert abs(sum(shares.values()) - 1) < 1e-9


def test_a_builtin_is_charged_to_the_python_caller() -> None:
    def digest_many() -> None:
        for _ in range(2000):
            hashlib.sha256(b"x" * 4096).hexdigest()

    seconds = attribute(_stats(digest_many))
    assert seconds[CATEGORIES[2]] > seconds[CATEGORIES[1]]  # hashing, never parsing
    assert benchprofile.Profile(seconds, 1, 1.0).shares()[2][1] > 0.5

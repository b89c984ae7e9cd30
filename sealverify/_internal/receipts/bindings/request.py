"""Request identity: args_hash, canonical_request, Object A and the legacy ``_meta`` forms."""

from __future__ import annotations

from sealverify._internal.receipts.bindings.derived import (
    CANNOT_RECONSTRUCT,
    Derivations,
    Doc,
    compact_exact,
    pointer,
    sha256_of,
)
from sealverify._internal.results.model import Check, fail, not_evaluated, passed
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonValue,
    parse_text,
)

__all__ = [
    "args_hash",
    "canonical_request",
    "expected_request_hash",
    "legacy_meta",
]


def args_hash(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``args_hash == sha256(serde_compact(arguments))`` in stored member order (v2/v3)."""
    if "args_hash" not in doc or not isinstance(doc.get("arguments"), dict):
        return []
    try:
        expected = sha256_of(compact_exact(doc["arguments"]))
    except serdejson.NumberNotRepresentable as exc:
        return [fail("binding.args-hash", f"{CANNOT_RECONSTRUCT}: {exc}", pointer("arguments"))]
    if doc["args_hash"] != expected:
        return [
            fail(
                "binding.args-hash",
                f"args_hash is not sha256(compact arguments) = {expected}",
                pointer("args_hash"),
                expected=expected,
            )
        ]
    return [
        passed("binding.args-hash", "args_hash = sha256(compact arguments)", pointer("args_hash"))
    ]


def canonical_request(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``canonical_request`` and its sha256 re-derived from tool and arguments.

    The line is seal-host's (``params`` = name, arguments, then ``_meta`` key-sorted,
    ``requestState``, ``inputResponses`` when the record carries them); without those members
    it is byte-identical to the JS line every fleet verifier derives.
    """
    if "request_parse_error" in doc or not isinstance(doc.get("tool"), str):
        return []
    if not isinstance(doc.get("arguments"), dict):
        return []
    derived = derived or Derivations(doc)
    line, error = derived.canonical_line()
    if isinstance(error, serdejson.NumberNotRepresentable):
        reason = f"{CANNOT_RECONSTRUCT}: {error}"
        return [
            fail("binding.canonical-request", reason, pointer("arguments")),
            fail("binding.canonical-request-sha256", reason, pointer("arguments")),
        ]
    if line is None:
        return [fail("binding.canonical-request", str(error), pointer("arguments"))]
    digest = derived.line_sha256(line)
    checks: list[Check] = []
    if "canonical_request" in doc:
        if doc["canonical_request"] == line:
            checks.append(
                passed(
                    "binding.canonical-request",
                    "canonical_request equals the line derived from tool and arguments",
                    pointer("canonical_request"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.canonical-request",
                    "canonical_request differs from the line derived from tool and arguments",
                    pointer("canonical_request"),
                    expected=line,
                )
            )
    if doc.get("canonical_request_sha256") == digest:
        checks.append(
            passed(
                "binding.canonical-request-sha256",
                "canonical_request_sha256 = sha256(derived canonical request)",
                pointer("canonical_request_sha256"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.canonical-request-sha256",
                f"canonical_request_sha256 is not sha256(derived line) = {digest}",
                pointer("canonical_request_sha256"),
                expected=digest,
            )
        )
    return checks


def expected_request_hash(doc: Doc, derived: Derivations | None = None) -> str | None:
    """The request identity the kernel must attest: ``request_sha256`` or the canonical hash."""
    value = doc.get("request_sha256")
    if isinstance(value, str):
        return value
    if isinstance(doc.get("tool"), str) and isinstance(doc.get("arguments"), dict):
        derived = derived or Derivations(doc)
        line, _ = derived.canonical_line()
        return None if line is None else derived.line_sha256(line)
    return None


def _line_binds_meta(doc: Doc, text: str, derived: Derivations | None = None) -> bool | None:
    """Whether ``text`` strictly parses to a line whose params hold ``_meta``; None: no JSON.

    When ``text`` is the very line this verifier derives from the record, the answer is known
    without parsing: compact output is strict JSON (no duplicate names, no surrogate escapes,
    finite numbers) whose params are the record's members, so it holds ``_meta`` exactly when
    the record does. The limits are what could still refuse it; the text's length bounds its
    members and string bytes, and its bracket count bounds its depth, so under those bounds
    nothing can. tests/perf/test_bindings_perf.py checks this against the parse.
    """
    limits = DEFAULT_LIMITS
    if (
        len(text) <= limits.max_string_bytes // 4
        and len(text) <= limits.max_members
        and text.count("[") + text.count("{") <= limits.max_depth
        and text == _derived_line(doc, derived)
    ):
        return "_meta" in doc
    return _parsed_line_binds_meta(text)


def _derived_line(doc: Doc, derived: Derivations | None = None) -> str | None:
    if not isinstance(doc.get("tool"), str) or not isinstance(doc.get("arguments"), dict):
        return None
    return (derived or Derivations(doc)).canonical_line()[0]


def _parsed_line_binds_meta(text: str) -> bool | None:
    """The reference for :func:`_line_binds_meta`: parse the line and look."""
    try:
        line = parse_text(text)
    except JsonError:
        return None
    line_params = line.get("params") if isinstance(line, dict) else None
    return isinstance(line_params, dict) and "_meta" in line_params


def _omits_meta(carrier: str, meta: JsonValue) -> Check:
    """The legacy finding: ``carrier`` shows a ``_meta`` that canonical_request leaves out."""
    keys = sorted(meta) if isinstance(meta, dict) else []
    return fail(
        "legacy.canonical-request-omits-meta",
        f"{carrier} (keys: {', '.join(keys) or 'none'}) but canonical_request omits it: "
        "legacy projection, _meta unbound",
        pointer("canonical_request"),
        keys=keys,
    )


def legacy_meta(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Tell whether canonical_request binds the ``_meta`` its frame carries (legacy flag).

    Frames are Object A and the release frame. When a frame's params carry ``_meta`` and
    ``canonical_request`` does not, the receipt uses the pre-f967783 projection and leaves
    those ``_meta`` keys unbound. Without frame bytes it cannot be told.
    """
    derived = derived or Derivations(doc)
    text = doc.get("canonical_request")
    if not isinstance(text, str):
        # Without the line itself, its hash names it: when canonical_request_sha256 is the
        # hash of the line derived from the record, that line is the one the receipt binds.
        line = _derived_line(doc, derived)
        if line is None or doc.get("canonical_request_sha256") != derived.line_sha256(line):
            return []
        text = line
    binds_meta = _line_binds_meta(doc, text, derived)
    if binds_meta is None:
        return []
    if binds_meta:
        return [
            passed(
                "legacy.canonical-request-omits-meta",
                "canonical_request binds _meta",
                pointer("canonical_request"),
            )
        ]
    if "_meta" in doc:
        return [_omits_meta("the record carries the request's _meta", doc["_meta"])]
    carried = (derived.object_a()[0], derived.request_frame()[0], derived.view.release)
    frames = [f for f in carried if f is not None]
    if not frames:
        return [
            not_evaluated(
                "legacy.canonical-request-omits-meta",
                "cannot be told: no frame bytes in the receipt, and canonical_request has no _meta",
                pointer("canonical_request"),
            )
        ]
    for frame in frames:
        params = derived.view.params_of(frame)
        meta = params.get("_meta") if params is not None else None
        if params is not None and "_meta" in params:
            return [_omits_meta("the frame carries _meta", meta)]
    return [
        passed(
            "legacy.canonical-request-omits-meta",
            "the frame carries no _meta; nothing is left unbound",
            pointer("canonical_request"),
        )
    ]

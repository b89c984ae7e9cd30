"""The bytes a seal v3 receipt key signs: Object B v1 and v2 signature preimages."""

from __future__ import annotations

__all__ = [
    "DURABILITY_TAGS",
    "OBJECT_B_V1",
    "OBJECT_B_V2",
    "RELEASE_TAGS",
    "blob",
    "preimage_v1",
    "preimage_v2",
]

# Wire `signature.domain` strings; the preimage tag is the string followed by one NUL byte.
OBJECT_B_V1 = "seal.object-b/v1"
OBJECT_B_V2 = "seal.object-b/v2"

# Tag bytes of seal-host rust/src/three_artifact_byte_lock.rs `encode` (release.rs
# `signature_preimage`): 2 = no approval statement, 3 = approval statement blob follows.
_NO_APPROVAL = b"\x02"
_APPROVAL = b"\x03"
_END = b"\x01"  # a blob's terminator
_V2_TAG = OBJECT_B_V2.encode("ascii") + b"\x00"
RELEASE_TAGS: dict[str, int] = {"PENDING": 4, "UNKNOWN": 5, "RELEASED": 6, "NOT_APPLICABLE": 7}
DURABILITY_TAGS: dict[str, int] = {
    "asserted_local_fsync": 8,
    "witnessed_external": 9,
    "unknown": 10,
}


def preimage_v1(object_b: bytes) -> bytes:
    """``"seal.object-b/v1" 0x00 || u64be(len(B)) || B`` (seal-check receipt-format.js)."""
    return OBJECT_B_V1.encode("ascii") + b"\x00" + len(object_b).to_bytes(8, "big") + object_b


def blob(data: bytes) -> bytes:
    """Encode a byte-lock blob: ``0x00 b`` for every byte ``b``, then a terminating ``0x01``.

    Self-delimiting without a length, so no field can absorb its neighbour.
    """
    return _interleaved(data) + b"\x01"


def _interleaved(data: bytes) -> bytes:
    """``0x00 b`` for every byte ``b`` of ``data`` (a blob without its end)."""
    # Latin-1 maps each byte b to the code point b (< 0x100), and UTF-16-BE writes such a code
    # point as the two bytes 00 b (no BOM): ``0x00 b`` per byte. tests/perf/test_bindings_perf.py
    # checks blob against _blob_reference on every byte value.
    return data.decode("latin-1").encode("utf-16-be")


def _blob_reference(data: bytes) -> bytes:
    """The byte-by-byte definition of :func:`blob` (the test oracle)."""
    out = bytearray(2 * len(data) + 1)
    out[1 : 2 * len(data) : 2] = data
    out[-1] = 1
    return bytes(out)


def preimage_v2(
    object_a: bytes,
    approval_statement: bytes | None,
    object_b: bytes,
    release_status: str,
    operation_id: str,
    durability_class: str,
) -> bytes:
    """Build the Object B v2 preimage binding request frame, approval, record and release.

    ``object_a`` is the raw request frame, ``approval_statement`` the decoded statement or
    ``None`` (tag 2), ``object_b`` the compact record without ``signature``. ValueError for a
    ``release_status`` or ``durability_class`` with no tag.
    """
    if release_status not in RELEASE_TAGS:
        raise ValueError(f"unknown release_status {release_status!r}")
    if durability_class not in DURABILITY_TAGS:
        raise ValueError(f"unknown durability_class {durability_class!r}")
    # One join of the blobs' parts: the same bytes as joining whole blobs, copied once.
    approval = (
        [_NO_APPROVAL]
        if approval_statement is None
        else [_APPROVAL, _interleaved(approval_statement), _END]
    )
    return b"".join(
        [
            _V2_TAG,
            _interleaved(object_a),
            _END,
            *approval,
            _interleaved(object_b),
            _END,
            bytes([RELEASE_TAGS[release_status]]),
            _interleaved(operation_id.encode("utf-8")),
            _END,
            bytes([DURABILITY_TAGS[durability_class]]),
        ]
    )

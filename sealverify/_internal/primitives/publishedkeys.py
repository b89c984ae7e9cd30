"""Ed25519 keys whose secret half is published: a signature under one authenticates nothing.

Each entry is a public key (64 lowercase hex), how to rebuild its 32-byte secret seed, and
where it was published. Seed recipes: ``hex:<64 hex>`` (the seed itself), ``fill:<hh>`` (32
bytes of ``hh``, Rust's ``[N; 32]``), ``range:<hh>`` (bytes ``hh``, ``hh+1``, … ``hh+31``,
Python's ``bytes(range(hh, hh + 32))``), ``sha256:<text>`` (SHA-256 of the UTF-8 text) and
``vector:wycheproof`` (a Wycheproof key: its secret is published with the vectors, not carried
here, and the key is checked against the vector file instead).
tests/primitives/test_publishedkeys.py rebuilds every other listed public key from its recipe and
holds the Wycheproof keys to the vector file, so the list cannot hold a typo; docs/trust.md says
where each source publishes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sealverify._internal import fastpath
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, info, unpinned

__all__ = [
    "ALLOW_FLAG",
    "CHECK_ID",
    "KEYS",
    "PublishedKey",
    "check_key",
    "describe_source",
    "lookup",
    "lookup_key_id",
    "receipt_checks",
]

CHECK_ID = ids.AUTHORITY_PUBLISHED_KEY
ALLOW_FLAG = "--allow-published-keys"

# The upstream snapshots the seal-family sources were read at (docs/research/seed-systems.md).
_COMMITS = {
    "seal-host": "099be66",
    "seal-check": "0632f31",
    "seal-live-demo": "0a89876",
    "seal-verify-action": "84e91a4",
    "mcp-seal-dev": "7d6d74b",
}


@dataclass(frozen=True, slots=True)
class PublishedKey:
    """One published key: the raw public key, its seed recipe and its source ids."""

    public_key: str
    seed: str
    sources: tuple[str, ...]

    @property
    def source(self) -> str:
        """The first source in words, and how many more there are."""
        first = describe_source(self.sources[0])
        more = len(self.sources) - 1
        return first + (f" (and {more} more)" if more else "")


def describe_source(source: str) -> str:
    """A source id in words: ``seal-host:rust/tests/host_path.rs`` names its commit, and so on."""
    kind, _, rest = source.partition(":")
    if kind == "rfc8032":
        section, _, test = rest.partition("-")
        return f"RFC 8032 §{section} {test.replace('-', ' ')}"
    if kind == "wycheproof":
        return f"Wycheproof ed25519_test.json tcId {rest}"
    if kind == "testkit":
        return f"sealverify testkit {rest}"
    return f"{kind}@{_COMMITS[kind]} {rest}"


# fmt: off
# Public key, seed recipe, sources. Order: RFC 8032; the other Wycheproof keys in tcId order
# (C2SP/wycheproof testvectors_v1/ed25519_test.json@5722833); the seal family's test seeds;
# this project's testkit. A key published in several places is listed once, with every source.
_TABLE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
     "hex:9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     ("rfc8032:7.1-TEST-1", "wycheproof:80,151", "seal-check:seal-config.js",
      "seal-check:test/receipt-harness.cjs", "seal-live-demo:seal-gateway/seal-config.js",
      "seal-live-demo:pwa/seal-config.js",
      "seal-verify-action:vendor/seal-assurance-kit/kernel/seal-config.js",
      "seal-verify-action:test/receipt-format.test.js",
      "seal-host:scripts/mint_unparseable_receipt.py", "testkit:RFC8032_TEST1_KEY")),
    ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
     "hex:4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     ("rfc8032:7.1-TEST-2", "wycheproof:81")),
    ("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
     "hex:c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     ("rfc8032:7.1-TEST-3", "wycheproof:82")),
    ("278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
     "hex:f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
     ("rfc8032:7.1-TEST-1024", "wycheproof:83")),
    ("ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "hex:833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     ("rfc8032:7.1-TEST-SHA(abc)", "rfc8032:7.3-Ed25519ph")),
    ("dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "hex:0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     ("rfc8032:7.2-Ed25519ctx",)),
    ("7d4d0e7f6153a69b6242b522abbee685fda4420f8834b108c3bdae369ef549fa",
     "vector:wycheproof",
     ("wycheproof:1-70",)),
    ("a12c2beb77265f2aac953b5009349d94155a03ada416aad451319480e983ca4c",
     "vector:wycheproof",
     ("wycheproof:71-79",)),
    ("100fdf47fb94f1536a4f7c3fda27383fa03375a8f527c537e6f1703c47f94f86",
     "vector:wycheproof",
     ("wycheproof:84-85",)),
    ("8fd659b77b558ed93882c1157438450ac86ec62d421d568e98ee236f3810295a",
     "vector:wycheproof",
     ("wycheproof:86",)),
    ("2a606bf67ac770c607038b004101b325edb569efd3413d2d1f2c3e6b4e6e3082",
     "vector:wycheproof",
     ("wycheproof:87,109",)),
    ("c9c946cbc5544ac74eef491f07c5881c16faf7ec31ce4aa91bb60ae7b4539051",
     "vector:wycheproof",
     ("wycheproof:88,105",)),
    ("32ad026f693d0d2afe7f4388d91c4c964426fcb9e3665c3ebd8650009b815c8e",
     "vector:wycheproof",
     ("wycheproof:89-90,93,95,97,100,104,110,113",)),
    ("c29ec1894e06d27b4e40486b4fa5063d66a746c7f9c323b12203c03b72b8b78a",
     "vector:wycheproof",
     ("wycheproof:91,106",)),
    ("cfda5b899e35764c5229e59295fe1222b7ddce176643697c29e46ecbba10cf10",
     "vector:wycheproof",
     ("wycheproof:92,94,96,99,103",)),
    ("529919c9c780985a841c42ba6c180ff2d67a276ccfbe281080e47ab71a758f56",
     "vector:wycheproof",
     ("wycheproof:98,107",)),
    ("2252b3d57c74cbf8bc460dc2e082847926bc022f09ab6ae95756362bfd1167c1",
     "vector:wycheproof",
     ("wycheproof:101,108",)),
    ("c0a773110f975de3732355bb7ec7f0c41c091c0252966070205516693b992a4a",
     "vector:wycheproof",
     ("wycheproof:102",)),
    ("54cda623245759ad6d43e620a606908befc633d60792bc7798447a0ef38e7311",
     "vector:wycheproof",
     ("wycheproof:111",)),
    ("2362bac514d5fad33802642e979a1e82de6eb6f1bcbf6a5b304f2bb02b9e57fe",
     "vector:wycheproof",
     ("wycheproof:112",)),
    ("037b55b427dc8daa0f80fcebaf0846902309f8a6cf18b465c0ce9b6539629ac8",
     "vector:wycheproof",
     ("wycheproof:114",)),
    ("9c0007698f177998a7666c7cf7973e2b88e9c4946e33804a7bbe8968d2394b2e",
     "vector:wycheproof",
     ("wycheproof:115",)),
    ("ed3a6f9721dc9729c1f76635bcf080d7036e1c2f0228654ccbbe1e738c17b963",
     "vector:wycheproof",
     ("wycheproof:116",)),
    ("4abfb535313705a6570018440cdec1a3ae33e51f352112fa6acbd0c6bc3ea859",
     "vector:wycheproof",
     ("wycheproof:117,119",)),
    ("4f2162e6bf03a712db0efa418b7e7006e23871d9d7ec555a313885c4afd96385",
     "vector:wycheproof",
     ("wycheproof:118,120",)),
    ("0717d75ce27ea181ed5a30e6456c649b5cf453a6b4c12cd3f9fd16b31e0c25cd",
     "vector:wycheproof",
     ("wycheproof:121",)),
    ("db5b9eab7e84e5a13505865fa711c9c896c898609fc11fc9bc1e55028f9496df",
     "vector:wycheproof",
     ("wycheproof:122",)),
    ("7bac18f6d2625d3915f233434cda38a577247a7332a5170b37142a34644145e0",
     "vector:wycheproof",
     ("wycheproof:123-124",)),
    ("38ead304624abebf3e2b31e20e5629531e3fc659008887c9106f5e55adbbc62a",
     "vector:wycheproof",
     ("wycheproof:125",)),
    ("e9bc95049af7e4817b17c402269ba5e767b7348757ac8002fec9e08390c0a9cf",
     "vector:wycheproof",
     ("wycheproof:126",)),
    ("ee8155ca4e8fe7bc5bca5992044eab7f8c3c6a13db1176f42f46c29da5b064f4",
     "vector:wycheproof",
     ("wycheproof:127",)),
    ("db507bfcc9576393f7157bb360532b05c5fcf2e764b690cc6698a4a30d349095",
     "vector:wycheproof",
     ("wycheproof:128",)),
    ("994eaf03309d6ad9d95a656bc1744e2886f029023a3750b34f35086b3c7227f8",
     "vector:wycheproof",
     ("wycheproof:129",)),
    ("127d37e406e0d83e4b55a09e21e8f50fb88af47e4a43f018cdebffc1948757f0",
     "vector:wycheproof",
     ("wycheproof:130",)),
    ("d83ba84edfb4bec49f29be31d80a64b7c0b5a502438cdb1d0dd1e0e3e55786de",
     "vector:wycheproof",
     ("wycheproof:131",)),
    ("d3c9aa2f3d6ef217a166e8ae403ed436c37facbbe3beceb78df6eb439f8fa04a",
     "vector:wycheproof",
     ("wycheproof:132",)),
    ("d53280367c1c0b95ac4112218b92c6a71c51fb6312ce668de196c7d52a136155",
     "vector:wycheproof",
     ("wycheproof:133",)),
    ("94ac2336ba97a476fb4c9f2b5563e4167ca292c6e99e422350a911ae3172c315",
     "vector:wycheproof",
     ("wycheproof:134",)),
    ("e1e7316d231f7f275bdf403360304da1509fdf1af1fd25ca214eaac0a289398f",
     "vector:wycheproof",
     ("wycheproof:135",)),
    ("fffbeea71215efaf9888fec2cc68edb3703ff11a66fd629b53cbda5eabc18750",
     "vector:wycheproof",
     ("wycheproof:136",)),
    ("19ccc0527599cb032e0b4c4d74e60f13901768a99df041c3bc1bf6c0ef271169",
     "vector:wycheproof",
     ("wycheproof:137",)),
    ("0e726e27047563aa0a1a9c2e085d8d26af2acba129d0869c65031e3e6cac329a",
     "vector:wycheproof",
     ("wycheproof:138",)),
    ("e77717b54a2b5e5bce5bccb8f0c5fdb5fd7df77ac254020fc9120dc0d4df4178",
     "vector:wycheproof",
     ("wycheproof:139",)),
    ("6220972d3f7d150b36790d7d522384876d64d640cd9913186815e1629582ed36",
     "vector:wycheproof",
     ("wycheproof:140",)),
    ("7b64a28c50ec7678a90e3e1a21522e30ac9db7b5215aea2bfb33bea037eab987",
     "vector:wycheproof",
     ("wycheproof:141",)),
    ("724452210a9e4c994819229bf12bf84e95768a3a97c08d8d8f5f939a4cad34c5",
     "vector:wycheproof",
     ("wycheproof:142",)),
    ("bad265b294ed2f422cb6a141694086238fbfe987571aa765d8b4f3a24105aa01",
     "vector:wycheproof",
     ("wycheproof:143",)),
    ("0aaee4b723db9b51ba7d22eb23eb8a76a5ac02f4fc9dd06f77bea42e1d37ec5a",
     "vector:wycheproof",
     ("wycheproof:144",)),
    ("812344af15a91ba83c2c91e96f1727ac0f3c4c41385b9fa84efa399ada5168be",
     "vector:wycheproof",
     ("wycheproof:145",)),
    ("0ee5cb5597fbdf8dccc48b01485e39b33aa133b52d30d23740277267cfec3e3e",
     "vector:wycheproof",
     ("wycheproof:146",)),
    ("9fba1de92b60b5b4703089763d0d6f9125e4dd7efae41f08a22882aef96892c4",
     "vector:wycheproof",
     ("wycheproof:147",)),
    ("7582ab1b52e1316e5c13671f43b39ca36b28133cd0832831bcddd0b0f23398cb",
     "vector:wycheproof",
     ("wycheproof:148",)),
    ("dd2d678bae222f3fb6e8278f08cc9e1a66339c926c29ac0a16f9717f5ee18cd8",
     "vector:wycheproof",
     ("wycheproof:149",)),
    ("ccbe7cb2e4bc215cee2f885e1d22f7e0d582b2bbbd782c104e548b152d26fc69",
     "vector:wycheproof",
     ("wycheproof:150",)),
    ("8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c",
     "fill:01",
     ("seal-host:rust/tests/envelope_v23.rs", "seal-host:rust/tests/principal_identity.rs")),
    ("8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394",
     "fill:02",
     ("seal-host:rust/tests/principal_identity.rs",)),
    ("ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1",
     "fill:03",
     ("seal-host:rust/tests/principal_identity.rs",)),
    ("ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c",
     "fill:07",
     ("seal-host:rust/tests/host_path.rs", "seal-host:rust/tests/receipt_identity.rs",
      "seal-host:rust/src/providers.rs", "seal-check:test/receipt-format-v3.test.cjs")),
    ("fd1724385aa0c75b64fb78cd602fa1d991fdebf76b13c58ed702eac835e9f618",
     "fill:09",
     ("seal-host:rust/tests/host_path.rs", "seal-host:rust/tests/receipt_identity.rs")),
    ("66be7e332c7a453332bd9d0a7f7db055f5c5ef1a06ada66d98b39fb6810c473a",
     "fill:0b",
     ("seal-host:rust/tests/receipt_identity.rs", "seal-host:rust/src/providers.rs")),
    ("91a28a0b74381593a4d9469579208926afc8ad82c8839b7644359b9eba9a4b3a",
     "fill:0d",
     ("seal-host:rust/src/providers.rs",)),
    ("d04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737",
     "fill:11",
     ("seal-host:rust/src/providers.rs",)),
    ("66cd608b928b88e50e0efeaa33faf1c43cefe07294b0b87e9fe0aba6a3cf7633",
     "fill:13",
     ("seal-host:rust/src/providers.rs",)),
    ("e8da63a40ca687c87cfce05cb24a786c7e75cc49c70db5573f026f1c6a86ceaa",
     "fill:1d",
     ("seal-host:rust/src/providers.rs",)),
    ("bed7d2ab668da3efad613998f06f7abf7875f3a6b7677a9f3ce947d77d7760a6",
     "fill:25",
     ("seal-host:rust/src/providers.rs",)),
    ("31debe55d37c722768b137131caa6087080b2e0b60b94bd785d14575cfa498bc",
     "fill:17",
     ("seal-host:rust/src/providers.rs", "seal-host:rust/src/reachability.rs")),
    ("fa4834147f6e690c3693eff61336046403cd8ae2a14f31b3c407358569239565",
     "fill:29",
     ("seal-host:rust/src/providers.rs", "seal-host:rust/tests/m2_adapter_revision.rs",
      "seal-host:rust/tests/replay_store_lineage.rs")),
    ("197f6b23e16c8532c6abc838facd5ea789be0c76b2920334039bfa8b3d368d61",
     "fill:2a",
     ("seal-host:rust/tests/replay_store_lineage.rs",)),
    ("2152f8d19b791d24453242e15f2eab6cb7cffa7b6a5ed30097960e069881db12",
     "fill:42",
     ("seal-host:rust/tests/three_way.rs",)),
    ("03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8",
     "range:00",
     ("mcp-seal-dev:test/v2/m5_sign_fixture.py",
      "mcp-seal-dev:test/v2/principal_noninfluence_sign_fixture.py",
      "mcp-seal-dev:test/v2/field_warrant_sign_fixture.py")),
    ("79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664",
     "range:01",
     ("mcp-seal-dev:test/v2/principal_noninfluence_sign_fixture.py",)),
    ("e734ea6c2b6257de72355e472aa05a4c487e6b463c029ed306df2f01b5636b58",
     "fill:aa",
     ("mcp-seal-dev:test/v2/m5_sign_fixture.py",)),
    ("0545a4cf42aa36b761dc2bdfe0b11bd71d45a2ea15be33e3ee9ca610c608fe2d",
     "sha256:sealverify-demo-config-key",
     ("testkit:CONFIG_KEY",)),
    ("2c60683787d2228a67b68f0e8fb83453b23c897a0359490d88fc3cb1919afa54",
     "sha256:sealverify-demo-receipt-key",
     ("testkit:RECEIPT_KEY",)),
    ("7b731e01be567a6f40dcb7a9a1b4e53fd1727c143fc6fb85852dd0a66365b7ce",
     "sha256:sealverify-demo-other-config-key",
     ("testkit:OTHER_CONFIG_KEY",)),
    ("7631a56a4cdc17661bea5540290bfc2dacf627439885cf1fb5eb351820e3b6ed",
     "sha256:sealverify-demo-other-receipt-key",
     ("testkit:OTHER_RECEIPT_KEY",)),
    ("33eeb75bcee9e2349937c1cc205a4673e0e0563e19a1dc8617995bcd7f9174de",
     "sha256:sealverify-demo-approver-key",
     ("testkit:APPROVER_KEY",)),
    ("615b747b68820014ceaa37023386e687372f9ab8676b41b3794217a0b232e472",
     "sha256:sealverify-demo-attest-key",
     ("testkit:ATTEST_KEY",)),
)
# fmt: on

KEYS: tuple[PublishedKey, ...] = tuple(PublishedKey(*row) for row in _TABLE)
_BY_KEY: dict[str, PublishedKey] = {key.public_key: key for key in KEYS}


# Approvals name their signer by key_id = sha256(raw public key), never by the key itself.
_BY_KEY_ID: dict[str, PublishedKey] = {
    hashlib.sha256(bytes.fromhex(k.public_key)).hexdigest(): k for k in KEYS
}


def lookup(public_key_hex: object) -> PublishedKey | None:
    """The published key spelled ``public_key_hex`` (64 lowercase hex), or None."""
    return _BY_KEY.get(public_key_hex) if isinstance(public_key_hex, str) else None


def lookup_key_id(key_id: object) -> PublishedKey | None:
    """The published key whose ``key_id`` (sha256 hex of the raw key) is ``key_id``, or None."""
    return _BY_KEY_ID.get(key_id) if isinstance(key_id, str) else None


def check_key(role: str, key: PublishedKey, location: str = "", allowed: bool = False) -> Check:
    """The ``authority.published-key`` check for a signature by ``key`` in ``role``.

    Not allowed: ``not-evaluated``, which caps the outcome at UNPINNED even when the key is
    pinned (sealverify._internal.receipts.verify): anyone can sign with a published key, so its
    signature proves integrity to nobody. Allowed (``--allow-published-keys``): ``info``, still
    naming the key and its source.
    """
    name = f"{role} key {key.public_key[:16]}…"
    data: dict[str, Any] = {
        "key": key.public_key,
        "role": role,
        "sources": [describe_source(s) for s in key.sources],
        "allowed": allowed,
    }
    if allowed:
        return info(
            CHECK_ID,
            f"{name} is a published key ({key.source}); accepted because {ALLOW_FLAG} is "
            "on: its signature proves nothing outside a test suite",
            location,
            **data,
        )
    return unpinned(
        CHECK_ID,
        f"{name} is a published key ({key.source}): anyone can sign with it, so its "
        f"signature authenticates nothing, pinned or not; UNPINNED at best ({ALLOW_FLAG} "
        "for test suites)",
        location,
        **data,
    )


def _member(value: object, *names: str) -> object:
    for name in names:
        # an exact dict (what a parsed receipt holds) skips the slower abstract check
        if type(value) is not dict and not isinstance(value, Mapping):
            return None
        value = value.get(name)
    return value


def receipt_checks(
    doc: Mapping[str, Any], attestation: object = None, allowed: bool = False
) -> list[Check]:
    """One check per signature in a decision receipt that is made by a published key.

    The config signer (``signed_config.pubkey``), the Object B key (``signature.public_key``),
    an ``ed25519`` approver (``approval.approval_identity.key_id``) and the signer of a
    partition attestation, carried (``partition_attestation``) or from a side file.
    """
    found: list[tuple[str, PublishedKey | None, str]] = [
        ("config", lookup(_member(doc, "signed_config", "pubkey")), "/signed_config/pubkey"),
        ("receipt", lookup(_member(doc, "signature", "public_key")), "/signature/public_key"),
        (
            "approver",
            lookup_key_id(_member(doc, "approval", "approval_identity", "key_id")),
            "/approval/approval_identity/key_id",
        ),
        (
            "attestation",
            lookup(_member(doc, "partition_attestation", "signature", "public_key")),
            "/partition_attestation/signature/public_key",
        ),
        (
            "attestation",
            lookup(_member(attestation, "signature", "public_key")),
            "side file /signature/public_key",
        ),
    ]
    return [_key_check(role, key, where, allowed) for role, key, where in found if key]


# A run that allows a published key meets it in every receipt: the check is a pure function of
# its four arguments, and a check is immutable (nothing writes to its data), so one object
# serves every receipt. Bounded: a few roles, locations and published keys.
_key_check = fastpath.cache(maxsize=128)(check_key)

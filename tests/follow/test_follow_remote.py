"""An object-storage prefix followed by polling, against a real S3-compatible server (moto).

The follower lists the prefix at each look, judges each new or changed object as a batch run
over the prefix judges it, keeps the listing checkpoint (each object's digest) in the store,
and judges an object rewritten in place once per form.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.follow.engine import FollowConfig, Follower
from tests.helpers.fleet_services import S3, s3_server
from tests.helpers.follow_support import OPTIONS, PIN_ARGS, plain_receipts

__all__ = ["s3_server"]  # the fixture, imported for its tests


def _follower(tmp_path: Path, s3: S3, prefix: str) -> Follower:
    options = {"endpoint_url": s3.endpoint, "key": "testing", "secret": "testing"}
    config = FollowConfig(
        (), (), (), OPTIONS, str(tmp_path / "state.db"), remote=(prefix,), storage_options=options
    )
    return Follower(config)


def _subjects(follower: Follower) -> dict[str, str]:
    events = [json.loads(e.line) for e in follower.step()]
    follower.commit()
    return {e["name"]: e["outcome"] for e in events if e["type"] == "subject"}


def test_a_prefix_is_followed_with_a_listing_checkpoint(tmp_path: Path, s3_server: S3) -> None:
    client = s3_server.client()
    client.create_bucket(Bucket="follow")
    receipts = plain_receipts(3, seed=b"remote")
    client.put_object(Bucket="follow", Key="r/a.json", Body=receipts[0])
    client.put_object(Bucket="follow", Key="r/notes.txt", Body=b"not a receipt name")
    prefix = "s3://follow/r/"
    first = _follower(tmp_path, s3_server, prefix)
    seen = _subjects(first)
    assert list(seen) == ["s3://follow/r/a.json"]
    client.put_object(Bucket="follow", Key="r/b.json", Body=receipts[1])
    seen.update(_subjects(first))
    assert _subjects(first) == {}
    first.close()
    batch = CliRunner().invoke(
        cli, ["verify", prefix, *PIN_ARGS, *s3_server.options(), "--format", "jsonl", "-j", "1"]
    )
    expected = {
        v["name"]: v["outcome"]
        for v in map(json.loads, batch.stdout.splitlines())
        if v["type"] == "subject"
    }
    assert seen == expected and len(seen) == 2
    client.put_object(Bucket="follow", Key="r/a.json", Body=receipts[2])  # another form
    again = _follower(tmp_path, s3_server, prefix)
    assert list(_subjects(again)) == ["s3://follow/r/a.json"]  # only the changed object
    judged = again.store.judged()
    again.close()
    assert judged[prefix, "s3://follow/r/a.json"][1] == 2
    assert judged[prefix, "s3://follow/r/b.json"][1] == 1

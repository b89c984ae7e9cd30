"""Shared with other test modules by tests/skills/test_skill_listing.py."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

SKILLS: dict[str, dict[str, Any]] = {
    "git-workflow": {
        "front": {"name": "git-workflow", "description": "Follow this team's Git conventions"},
        "files": {},
    },
    "acme/billing/refunds": {
        "front": {
            "name": "refunds",
            "description": "Process customer refund requests per company policy",
            "license": "Apache-2.0",
        },
        "files": {"examples/email.md": b"Dear customer,\r\nyour refund...\r\n"},
    },
    "pdf-processing": {
        "front": {
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "metadata": {"version": "2.1.0", "io.modelcontextprotocol/test-marker": "x"},
        },
        "files": {
            "references/FORMS.md": b"# Forms\n",
            "scripts/extract.py": b"print('extract')\n",
            "templates/regional/eu-invoice.md": "Rechnung \u00fc\n".encode(),
        },
    },
}


def yaml_of(front: dict[str, Any]) -> str:
    lines = []
    for key, value in front.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {json.dumps(v)}" for k, v in value.items())
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def md_of(front: dict[str, Any]) -> bytes:
    return f"---\n{yaml_of(front)}---\n# {front['name']}\n".encode()


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_tree(root: Path) -> None:
    for path, skill in SKILLS.items():
        base = root / path
        base.mkdir(parents=True, exist_ok=True)
        (base / "SKILL.md").write_bytes(md_of(skill["front"]))
        for rel, data in skill["files"].items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_bytes(data)


def entry_of(path: str) -> dict[str, Any]:
    skill = SKILLS[path]
    files = {"SKILL.md": md_of(skill["front"]), **skill["files"]}
    return {
        "uri": f"skill://{path}/SKILL.md",
        "frontmatter": copy.deepcopy(skill["front"]),
        "resources": [
            {"uri": f"skill://{path}/{rel}", "digest": digest(data)}
            for rel, data in sorted(files.items())
        ],
    }


def listing(*paths: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"skills": [entry_of(p) for p in paths or list(SKILLS)]},
    }

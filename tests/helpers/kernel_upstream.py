"""Read seal-host's conformance corpora from ../shared at test time (nothing is copied here).

The inputs of the golden kernel outputs and of the conformance bridge live in JavaScript
modules, and the parser-boundary corpus in a Rust test module; these helpers evaluate exactly
those files: the JavaScript with the machine's Node.js (tests skip without it), the Rust corpus
with a small evaluator of the few expression forms it uses.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import shared_path

CONFORMANCE = ("fixtures", "seal", "seal-host", "kernel-conformance")


def conformance_file(name: str) -> Path:
    return shared_path(*CONFORMANCE, name)


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("Node.js is not installed; the upstream JavaScript corpora cannot be read")
    return found


def run_node(script: str, *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [node(), "--input-type=module", "-e", script, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"node failed: {done.stderr[-2000:]}")
    return done.stdout


def golden_scenarios() -> dict[str, Any]:
    """``configPayload`` (compact JSON text) and ``scenarios`` of ``seal_scenarios.mjs``."""
    path = conformance_file("wasm-spike_seal_scenarios.mjs")
    script = (
        "const {pathToFileURL} = await import('node:url');"
        "const m = await import(pathToFileURL(process.argv[1]).href);"
        "console.log(JSON.stringify({payload: JSON.stringify(m.configPayload),"
        " scenarios: m.scenarios}));"
    )
    return json.loads(run_node(script, str(path)))


def bridge_corpus() -> dict[str, Any]:
    """The bridge's policy, disguises, passthrough lines and wire-call shape, by evaluation."""
    source = conformance_file("scripts_conformance_bridge.mjs").read_text(encoding="utf-8")
    wanted = ("policyPayload", "wireCall", "passthroughLine", "DISGUISES", "PASSTHROUGH")
    snippets = []
    for name in wanted:
        match = re.search(rf"^const {name} = .*?;\n(?=\S|\n)", source, re.M | re.S)
        assert match, f"{name} not found in the bridge script"
        snippets.append(match.group())
    script = (
        "const vm = await import('node:vm');"
        "const ctx = {APPROVALS: '/tmp/approvals.ndjson', out: null};"
        "vm.createContext(ctx);"
        "vm.runInContext(process.argv[1] + "
        "';out = JSON.stringify({policy: policyPayload, disguises: DISGUISES,"
        ' passthrough: PASSTHROUGH, call: wireCall(7, "q")});\', ctx);'
        "console.log(ctx.out);"
    )
    return json.loads(run_node(script, "".join(snippets)))


# --- the Rust boundary corpus ------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(?P<raw>r#"(?:.|\n)*?"#)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>\d+)'
    r"|(?P<id>[A-Za-z_][A-Za-z_0-9]*!?(?:::[A-Za-z_]+)?)|(?P<p>[(),.&]))"
)


def _unescape(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        text = match.group()
        if text.startswith("\\u{"):
            return chr(int(text[3:-1], 16))
        return {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\\\": "\\", "\\0": "\0"}[text]

    return re.sub(r"\\u\{[0-9A-Fa-f]+\}|\\.", one, body)


def _format(template: str, args: list[str], env: dict[str, str]) -> str:
    out: list[str] = []
    pos = 0
    positional = iter(args)
    for match in re.finditer(r"\{\{|\}\}|\{(\w*)\}", template):
        out.append(template[pos : match.start()])
        token = match.group()
        if token in ("{{", "}}"):
            out.append(token[0])
        elif match.group(1):
            out.append(env[match.group(1)])
        else:
            out.append(next(positional))
        pos = match.end()
    out.append(template[pos:])
    return "".join(out)


class _Rust:
    """Evaluate the corpus's string expressions: literals, ``format!``, ``repeat``, builders."""

    def __init__(self, source: str) -> None:
        self.source = source
        builder = r'pub fn (\w+)\(frag: &str\) -> String \{\s*format!\(\s*r#"(.*?)"#\s*\)'
        self.builders = dict(re.findall(builder, source, re.S))
        nested = re.search(r"pub fn nested\(depth: usize\) -> String \{\s*(.*?)\n\}", source, re.S)
        assert nested, "nested() not found"
        self.nested_body = nested.group(1)
        self.consts = dict(re.findall(r'const (\w+): &str = "([^"]*)";', source))

    def tokens(self, text: str) -> list[tuple[str, str]]:
        out = []
        pos = 0
        while pos < len(text.rstrip()):
            match = _TOKEN.match(text, pos)
            assert match, f"cannot tokenize near {text[pos : pos + 40]!r}"
            kind = match.lastgroup or ""
            out.append((kind, match.group(kind)))
            pos = match.end()
        return out

    def evaluate(self, text: str, env: dict[str, str] | None = None) -> str:
        self.toks = self.tokens(text)
        self.at = 0
        value = self.expr(env or {})
        assert self.at == len(self.toks), f"trailing tokens in {text!r}"
        return value

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.toks[self.at]
        assert value is None or tok[1] == value, f"expected {value}, got {tok}"
        self.at += 1
        return tok

    def expr(self, env: dict[str, str]) -> str:
        if self.toks[self.at][1] == "&":
            self.take()
        kind, text = self.take()
        if kind == "raw":
            value = text[3:-2]
        elif kind == "str":
            value = _unescape(text[1:-1])
        elif kind == "num":
            value = text
        elif text == "String::new":
            self.take("(")
            self.take(")")
            value = ""
        elif text == "format!":
            self.take("(")
            template = self.expr(env)
            args = []
            while self.toks[self.at][1] == ",":
                self.take()
                args.append(self.expr(env))
            self.take(")")
            value = _format(template, args, env)
        elif text in self.builders or text == "nested":
            self.take("(")
            arg = self.expr(env)
            self.take(")")
            if text == "nested":
                value = _Rust(self.source).evaluate(self.nested_body, {"depth": arg})
            else:
                value = _format(self.builders[text], [], {"frag": arg})
        elif text in env:
            value = env[text]
        else:
            raise AssertionError(f"unsupported expression {text!r}")
        while self.at < len(self.toks) and self.toks[self.at][1] == ".":
            self.take()
            method = self.take()[1]
            self.take("(")
            if method == "repeat":
                count = int(self.expr(env))
                self.take(")")
                value = value * count
            else:
                assert method == "to_string", method
                self.take(")")
        return value


def boundary_corpus() -> list[tuple[str, str, str]]:
    """(name, line, expected class) for every ``case(...)`` of ``boundary_corpus()``."""
    source = conformance_file("rust_tests_common_mod.rs").read_text(encoding="utf-8")
    rust = _Rust(source)
    body = source[source.index("vec![") :]
    cases = []
    for match in re.finditer(r'case\(\s*"([^"]+)",\s*(.*?),\s*(\w+),?\s*\),[^\n]*\n', body, re.S):
        name, expression, label = match.groups()
        cases.append((name, rust.evaluate(expression), rust.consts[label]))
    return cases

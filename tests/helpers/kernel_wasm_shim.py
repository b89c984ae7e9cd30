"""Stand in for seal.wasm's ``ccall`` in upstream harnesses: replay calls, print the last.

Reads ``[[function, [args...]], ...]`` on stdin, runs every call in order through one module
state (``seal_init`` starts a session of the current build, ``seal_decide`` steps it) and prints
the last call's output. The upstream JavaScript then asserts on our model's outputs.
"""

from __future__ import annotations

import json
import sys

from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.kernel.session import KernelSession, err_json


def main() -> None:
    session: KernelSession | None = None
    output = ""
    for name, args in json.load(sys.stdin):
        if name == "seal_init":
            init = KernelSession.init(args[0], args[1], CURRENT)
            session, output = init.session, init.output
        elif name == "seal_decide":
            output = session.decide(args[0]).output if session else err_json("no session")
        else:
            raise SystemExit(f"unsupported export {name}")
    sys.stdout.write(output)


if __name__ == "__main__":
    main()

"""Render the three html reports of the project's demo inputs and screenshot them for docs/img/.

Needs Chromium (Debian: apt-get install -y chromium) and Pillow (the test extra). Run from the
repository root:

    python tools/screenshots.py            # writes docs/img/report-*.png
    python tools/screenshots.py --keep DIR # also keeps the html pages in DIR

The inputs are the project's own: fixtures/demo (verify), the testkit's demo chain
(sealverify_testkit.auditlog.demo_log) and fixtures/frames (diff).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageOps
from sealverify_testkit.auditlog import demo_log
from sealverify_testkit.browser import chromium_path, run_chromium

from sealverify._internal.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"


def _run(args: list[str]) -> None:
    with contextlib.suppress(SystemExit):  # the exit code is the report's, not a failure
        cli.main(args, standalone_mode=False)


def pages(work: Path) -> dict[str, Path]:
    """The reports, from inputs named relative to the repository (as a reader would type)."""
    os.chdir(ROOT)
    demo, frames = Path("fixtures/demo"), Path("fixtures/frames")
    names = ("verify", "verify-detail", "chain", "diff")
    out = {name: work / f"{name}.html" for name in names}
    trust = ["--trust", str(demo / "trust.json"), "--allow-published-keys", "--format", "html"]
    _run(["verify", str(demo / "receipts"), *trust, "--output", str(out["verify"])])
    # One failing receipt alone: its drill-down is the end of the page.
    failing = str(demo / "receipts" / "fail-edited-arguments.receipt.json")
    _run(["verify", failing, *trust, "--output", str(out["verify-detail"])])
    log, head = demo_log()
    (work / "host-stderr.log").write_bytes(log)
    _run(
        [
            "chain",
            str(work / "host-stderr.log"),
            "--expect-head",
            head,
            "--format",
            "html",
            "--output",
            str(out["chain"]),
        ]
    )
    _run(
        [
            "diff",
            str(frames / "call.bin"),
            str(frames / "call-other-trace.bin"),
            "--format",
            "html",
            "--output",
            str(out["diff"]),
        ]
    )
    return out


def shoot(url: str, target: Path, height: int, profile: Path, bottom: bool = False) -> None:
    """Screenshot ``url`` 1280 wide; ``bottom``: the last ``height`` pixels of the page."""
    browser = chromium_path()
    if browser is None:
        raise SystemExit("chromium is not installed (apt-get install -y chromium)")
    raw = profile.parent / "raw.png"
    size = f"--window-size=1280,{6000 if bottom else height}"
    done = run_chromium(browser, [size, f"--screenshot={raw}", url], profile)
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode(errors="replace"))
    image = Image.open(raw).convert("RGB")
    if bottom:  # cut the white below the page's end, then keep its last `height` pixels
        ink = ImageOps.invert(image).getbbox()
        end = ink[3] + 24 if ink else image.height
        image = image.crop((0, max(end - height, 0), image.width, end))
    # Three-quarter size and a 256-colour palette: readable in the docs, small in git.
    small = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.Resampling.LANCZOS)
    small.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        keep = Path(argv[argv.index("--keep") + 1]).resolve() if "--keep" in argv else None
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        out = pages(work)
        shots = [
            (out["verify"], "report-verify.png", 1500, False),
            (out["verify-detail"], "report-verify-detail.png", 1760, True),
            (out["chain"], "report-chain.png", 1250, False),
            (out["diff"], "report-diff.png", 1350, False),
        ]
        for index, (page, name, height, bottom) in enumerate(shots):
            shoot(page.as_uri(), OUT / name, height, Path(tmp) / f"profile{index}", bottom)
            print(f"wrote docs/img/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

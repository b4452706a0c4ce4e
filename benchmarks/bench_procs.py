"""What the benchmarks that run real `p2pnimmt` processes share: the command line, and waiting for a line in a
process's output. Not a benchmark itself; the scripts beside it import it (`python benchmarks/NAME.py` puts
this folder on the path)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]  # every benchmark binds to loopback only (the hard rule on this machine)


def p2p(*args: str) -> list[str]:
    """The argv of `python -m p2pnimmt ARGS` with this interpreter."""
    return [sys.executable, "-m", "p2pnimmt", *args]


def wait_for(path: Path, pattern: str, timeout: float = 60.0, tail: int | None = None) -> re.Match[str]:
    """The first match of `pattern` in the file's text, polled until `timeout` seconds; on time-out the run
    stops with the pattern, the file and its text (the last `tail` characters if given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text(errors="replace"))
        if found:
            return found
        time.sleep(0.02)
    text = path.read_text(errors="replace")
    raise SystemExit(f"no {pattern!r} in {path} within {timeout} s:\n{text if tail is None else text[-tail:]}")

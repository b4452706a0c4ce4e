"""A p2pnimmt process started by a test: output collected in a file, waited on by pattern, always stopped by pid."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path


class Proc:
    """A p2pnimmt process whose stdout is collected into a file."""

    def __init__(self, args: list[str], out: Path, prefix: list[str] | None = None, env: dict | None = None,
                 stdin: int = subprocess.DEVNULL) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen((prefix or []) + [sys.executable, "-m", "p2pnimmt", *args],
                                      stdout=self.file, stderr=subprocess.STDOUT, stdin=stdin,
                                      env={**os.environ, **(env or {})})

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 20.0) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.text())
            if match:
                return match
            if self.popen.poll() is not None:
                match = re.search(pattern, self.text())
                if match:
                    return match
                raise AssertionError(f"process exited ({self.popen.returncode}) before {pattern!r}:\n{self.text()}")
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text()}")

    def finish(self, timeout: float = 60.0) -> int:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            raise AssertionError(f"process did not finish within {timeout} s:\n{self.text()}") from None

    def stop(self) -> None:
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        if self.popen.poll() is None:
            self.popen.kill()  # by pid; under `ip netns exec` that pid is the p2pnimmt process itself
            self.popen.wait()
        self.file.close()


def code_of(out: Path) -> str:
    """The game code a host printed to its output file (`code: ABCD`)."""
    match = re.search(r"code: (\w{4})", out.read_text(errors="replace"))
    assert match, f"no game code in {out}"
    return match.group(1)


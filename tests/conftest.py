"""Shared by every test directory: tests/ itself is importable (tests/procs.py), and the `procs` fixture."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from procs import Proc  # noqa: E402
from tmuxpane import panes  # noqa: E402, F401  (the fixture, for every test directory)


@pytest.fixture
def procs():
    """Start processes with procs(args, out); every one is killed (by its pid) at the end of the test."""
    started: list[Proc] = []

    def start(args: list[str], out: Path, prefix: list[str] | None = None, env: dict | None = None,
              stdin: int = subprocess.DEVNULL) -> Proc:
        proc = Proc(args, out, prefix, env, stdin)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()

"""Helpers for tests that run real p2pnimmt processes: start them, read their output, always stop them."""

from __future__ import annotations

from pathlib import Path

import pytest
from procs import Proc


@pytest.fixture
def procs():
    """Start processes with procs(args, name); every one is killed (by its pid) at the end of the test."""
    started: list[Proc] = []

    def start(args: list[str], out: Path, prefix: list[str] | None = None, env: dict | None = None) -> Proc:
        proc = Proc(args, out, prefix, env)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()

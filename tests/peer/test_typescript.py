"""The TypeScript peer's own tests (node's built-in runner on the tsc output), run from pytest so CI's one test
command covers them: they check every vector block of protocol.md against the second implementation."""

from __future__ import annotations

import re
from pathlib import Path

from nodepeer import PEER, run, tool


def test_typescript_tests_pass(compiled: Path) -> None:
    files = sorted(str(p.relative_to(PEER)) for p in (compiled / "test").glob("*.test.js"))
    assert files, f"no compiled test files in {compiled}"
    done = run([tool("node"), "--test", *files])
    counts = {key: int(value) for key, value in re.findall(r"^# (\w+) (\d+)$", done.stdout, re.M)}
    assert counts.get("fail") == 0 and counts.get("cancelled") == 0, done.stdout
    assert counts.get("skipped") == 0 and counts.get("todo") == 0, done.stdout
    assert counts.get("pass", 0) >= len(files), done.stdout

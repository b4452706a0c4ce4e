"""The TypeScript peer's own tests (node's built-in runner on the tsc output), run from pytest so CI's one test
command covers them: they check every vector block of protocol.md against the second implementation.

One pytest test a test file of web/peer/test (`node --test` on that file alone), so xdist spreads them over its
workers: run as one `node --test` of every file, they were one test of 30-37 s at the end of CI's runs (node runs its
files one at a time on two cores), now each takes what its file takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from nodepeer import PEER, run, tool

SOURCES = sorted(p.name.removesuffix(".test.ts") for p in (PEER / "test").glob("*.test.ts"))


def test_every_typescript_test_file_is_run(compiled: Path) -> None:
    """What tsc compiled to test files is what the test below runs, one by one: no file is left out."""
    assert SOURCES, f"no TypeScript test files in {PEER / 'test'}"
    assert sorted(p.name.removesuffix(".test.js") for p in (compiled / "test").glob("*.test.js")) == SOURCES


@pytest.mark.parametrize("name", SOURCES)
def test_typescript_tests_pass(name: str, compiled: Path) -> None:
    file = compiled / "test" / f"{name}.test.js"
    assert file.exists(), f"tsc wrote no {file}"
    done = run([tool("node"), "--test", str(file.relative_to(PEER))])
    counts = {key: int(value) for key, value in re.findall(r"^# (\w+) (\d+)$", done.stdout, re.M)}
    assert counts.get("fail") == 0 and counts.get("cancelled") == 0, done.stdout
    assert counts.get("skipped") == 0 and counts.get("todo") == 0, done.stdout
    assert counts.get("pass", 0) >= 1, done.stdout

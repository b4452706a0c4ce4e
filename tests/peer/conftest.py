"""Fixtures for the TypeScript peer's tests: node_modules installed once per lockfile, the sources compiled."""

from __future__ import annotations

import fcntl
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from nodepeer import PEER, installed_as_locked, run, tool


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """web/peer/node_modules as the committed lockfile has it (`npm ci` once per lockfile, whatever the workers)."""
    npm = tool("npm")
    tool("node")
    with open(PEER / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed_as_locked():
            run([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
            assert installed_as_locked(), "npm ci did not install the lockfile's packages"
    return PEER / "node_modules"


@pytest.fixture(scope="module")
def compiled(node_modules: Path) -> Iterator[Path]:
    """The sources and node tests compiled by tsc (strict) into a folder of this test module's own, inside web/peer
    (so node finds node_modules from there); removed afterwards. Read only: one compile serves a module's tests."""
    out = PEER / "dist" / f"pytest-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    run([tool("node"), str(node_modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json", "--outDir", str(out)])
    yield out
    shutil.rmtree(out, ignore_errors=True)

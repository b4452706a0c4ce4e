"""Fixtures for the TypeScript peer's tests: the sources compiled (node_modules, installed once per lockfile, is
tests/conftest.py's: the browser tests decode QR codes with one of its packages)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from nodepeer import PEER, run, tool


@pytest.fixture(scope="session")
def compiled(node_modules: Path) -> Iterator[Path]:
    """The sources and node tests compiled by tsc (strict) into a folder of this test process's own (each xdist
    worker's), inside web/peer (so node finds node_modules from there); removed at the end. Read only: one compile
    (5 s of CPU) serves every test of the process, where one a module cost eleven of them a run."""
    out = PEER / "dist" / f"pytest-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    run([tool("node"), str(node_modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json", "--outDir", str(out)])
    yield out
    shutil.rmtree(out, ignore_errors=True)

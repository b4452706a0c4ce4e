"""Fixtures for the TypeScript peer's tests: the sources compiled (node_modules, installed once per lockfile, is
tests/conftest.py's: the browser tests decode QR codes with one of its packages)."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path

import pytest
from nodepeer import DONE, compiled_folder, run, tool


@pytest.fixture(scope="session")
def compiled(node_modules: Path) -> Path:
    """The sources and node tests compiled by tsc (strict) into a folder of this pytest run's own, inside web/peer (so
    node finds node_modules from there). Read only: one compile (5-10 s of CPU) serves every test of the run, every
    xdist worker's (the first worker that needs it compiles, under a lock, the others wait and read it: one a worker
    cost four compiles a run, one a module eleven); the run removes it at its end (tests/conftest.py's
    pytest_unconfigure)."""
    out = compiled_folder()
    out.parent.mkdir(exist_ok=True)
    with open(out.parent / f"{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / DONE).exists():
            shutil.rmtree(out, ignore_errors=True)
            run([tool("node"), str(node_modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json", "--outDir",
                 str(out)])
            (out / DONE).touch()
    return out

"""Shared by every test directory: tests/ itself is importable (tests/procs.py), the `procs` fixture, and what
makes every test hermetic.

Hermetic: each test process (the pytest run, or each xdist worker) looks for and advertises games under a
DNS-SD service type of its own ($P2PNIMMT_SERVICE, read by p2pnimmt.net.discovery; the product's default
stays `_p2pnimmt._tcp.local.`), so no other game on the machine and no other test worker is ever seen; and
every test gets a HOME and XDG folders of its own (config, data, runtime: names, transcripts, seat locks),
inherited by every process it starts.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runid import RUN_ID  # noqa: E402

# One service type per test process: `_pnt-` and the pid in base 36 (at most 15 characters, as DNS-SD allows).
TEST_SERVICE = f"_pnt-{RUN_ID}._tcp.local."
os.environ["P2PNIMMT_SERVICE"] = TEST_SERVICE
os.environ.pop("P2PNIMMT_INTERFACE", None)  # a developer's own setting must not change what a test runs
# One id a pytest run, inherited by its xdist workers (they start after this): what the workers share, such as the
# TypeScript compiled once a run (tests/peer/conftest.py), is named by it, and the run that made the id removes it.
MAKES_THE_RUN_ID = "P2PNIMMT_TEST_RUN" not in os.environ
if MAKES_THE_RUN_ID:
    os.environ["P2PNIMMT_TEST_RUN"] = f"{RUN_ID}-{uuid.uuid4().hex[:8]}"


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's end (the controller's, past every worker's): what its workers shared is removed."""
    if MAKES_THE_RUN_ID:
        from peer.nodepeer import compiled_folder

        folder = compiled_folder()
        shutil.rmtree(folder, ignore_errors=True)
        folder.with_name(f"{folder.name}.lock").unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def fresh_quiet_log() -> None:
    """Each test starts with p2pnimmt.quietlog's sources forgotten: a line an earlier test in this worker logged from
    the same address and kind (127.0.0.1, "rematch frame ignored") would otherwise make this test's line a count
    for up to EVERY seconds (a CI failure of test_new_start_race, session 39)."""
    from p2pnimmt.quietlog import forget_all

    forget_all()


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and the XDG folders of this test alone (a developer's remembered name or transcripts never leak in)."""
    home = tmp_path_factory.mktemp("home")
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    return home

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


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """web/peer/node_modules as the committed lockfile has it (`npm ci` once per lockfile, whatever the workers): the
    TypeScript peer's (tests/peer), and jsQR, its devDependency that decodes the pages' QR codes (tests/web)."""
    from peer.nodepeer import PEER, installed_as_locked, run, tool

    npm = tool("npm")
    tool("node")
    with open(PEER / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed_as_locked():
            run([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
            assert installed_as_locked(), "npm ci did not install the lockfile's packages"
    return PEER / "node_modules"

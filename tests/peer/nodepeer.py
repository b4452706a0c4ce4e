"""The TypeScript peer (web/peer/) from pytest: where it lives, node and npm, its packages as the lockfile has them.

node and npm are required (Debian's `nodejs` and `npm`; .ci/run installs them): a test here fails, never skips,
when they are missing. `npm ci` runs only when the installed modules are not those of the committed lockfile
(node_modules/.package-lock.json, which npm writes, is compared with package-lock.json), under a file lock so
parallel workers install once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "web" / "peer"
BUNDLE = ROOT / "p2pnimmt" / "web" / "static" / "peer.js"
RUN = "P2PNIMMT_TEST_RUN"  # the pytest run's id, the same in each of its xdist workers (tests/conftest.py sets it)
DONE = ".compiled"  # in a compiled folder once tsc has written all of it


def node_flags() -> list[str]:
    """The V8 flags the project runs its node processes with: web/peer/src/node_flags.ts's NODE_FLAGS, read from
    there (one list for both languages; docs/benchmarks.md, issue 25's twenty-second sitting, says why these)."""
    found = re.search(r"export const NODE_FLAGS: readonly string\[\] = (\[[^\]]*\]);",
                      (PEER / "src" / "node_flags.ts").read_text())
    assert found, "web/peer/src/node_flags.ts has no NODE_FLAGS list of the form this reader knows"
    return json.loads(found[1])


NODE_FLAGS = node_flags()


def tool(name: str) -> str:
    """The path of node or npm, or the test fails naming what to install."""
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: the TypeScript peer's tests need Debian's nodejs and npm "
                    "(.ci/run installs them)", pytrace=False)
    return found


def run(args: list[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command in web/peer/, its output captured; a failure shows both streams."""
    done = subprocess.run(args, cwd=PEER, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def written_by(script: str, source: str, out: Path) -> None:
    """The committed web/peer/src/`source` is what web/peer/scripts/`script` writes (to `out`, with this Python) from
    p2pnimmt's own data: the TypeScript holds no copy of its own."""
    done = subprocess.run([sys.executable, str(PEER / "scripts" / script), str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == (PEER / "src" / source).read_text(), (
        f"web/peer/src/{source} is not what scripts/{script} writes from p2pnimmt's tables")


def compiled_folder() -> Path:
    """Where this pytest run's tsc output goes (tests/peer/conftest.py's `compiled`): web/peer/dist/pytest-RUN."""
    return PEER / "dist" / f"pytest-{os.environ[RUN]}"


def installed_as_locked() -> bool:
    """Whether node_modules holds exactly the lockfile's packages (every one this platform installs, same version
    and integrity, nothing else)."""
    hidden = PEER / "node_modules" / ".package-lock.json"
    if not hidden.exists():
        return False
    locked = {k: v for k, v in json.loads((PEER / "package-lock.json").read_text())["packages"].items() if k}
    installed = json.loads(hidden.read_text()).get("packages", {})
    same = all(k in locked and (v.get("version"), v.get("integrity")) == (locked[k].get("version"),
               locked[k].get("integrity")) for k, v in installed.items())
    return same and all(k in installed for k, v in locked.items() if not v.get("optional"))


"""The V8 flags the project runs node with (web/peer/src/node_flags.ts; issue 25's twenty-second sitting in
docs/benchmarks.md): one list, read the same by both languages, every flag one node takes, and the processes the
project starts run with them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mixed import NodeSeats
from nodepeer import NODE_FLAGS, PEER, run, tool


def test_python_reads_the_list_typescript_exports(compiled: Path) -> None:
    module = (compiled / "src" / "node_flags.js").as_uri()
    done = run([tool("node"), "--input-type=module", "-e",
                f"const m = await import({json.dumps(module)}); console.log(JSON.stringify(m.NODE_FLAGS));"])
    assert json.loads(done.stdout) == NODE_FLAGS and NODE_FLAGS, (done.stdout, NODE_FLAGS)


def test_node_takes_every_flag() -> None:
    """A flag node does not know stops it ("bad option", status 9): each of these starts a node that runs."""
    done = subprocess.run([tool("node"), *NODE_FLAGS, "-e", "console.log(JSON.stringify(process.execArgv))"],
                          cwd=PEER, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert json.loads(done.stdout)[:len(NODE_FLAGS)] == NODE_FLAGS  # then -e and its script


def test_the_mixed_tables_node_runs_with_them(tmp_path: Path) -> None:
    """The node of mixed tables (tests/peer/mixed.py's NodeSeats) is started with them: it says so itself."""
    script = tmp_path / "flags.mjs"
    script.write_text("process.stderr.write(JSON.stringify(process.execArgv));\n"
                      "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));\n")
    seats = NodeSeats(script, tmp_path / "stderr.log")
    seats.close()
    assert seats.proc.returncode == 0 and json.loads((tmp_path / "stderr.log").read_text()) == NODE_FLAGS


YOUNG = """const v8 = await import("node:v8");
let kept = [];
for (let i = 0; i < 20_000_000; i++) {
  const o = { a: i, b: [i] };
  if (i % 20 === 0) { kept.push(o); if (kept.length > 100_000) kept = []; }
}
console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);
"""


def test_the_young_generation_stays_small() -> None:
    """--max-semi-space-size=4 (issue 25's twenty-third sitting): a node that makes garbage with survivors keeps its
    young generation at 2 x 4 MiB, where V8's own sizing grows it past that (to 2 x 16 MiB here)."""
    def young(flags: list[str]) -> int:
        done = subprocess.run([tool("node"), *flags, "--input-type=module", "-e", YOUNG], cwd=PEER,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return int(done.stdout)
    assert "--max-semi-space-size=4" in NODE_FLAGS
    assert young(list(NODE_FLAGS)) <= 8 << 20
    assert young([f for f in NODE_FLAGS if not f.startswith("--max-semi-space-size")]) > 8 << 20

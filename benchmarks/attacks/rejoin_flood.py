"""FINDING (session 46, redteam), fixed in session 46 (protocol.md 8, "A chain's bound"): a seat that signs REJOINs
without end (never a fault, protocol.md 11.3) had every node accept, record and relay each one: every honest
transcript grew without bound (past 256 MiB no verifier reads it) and every honest node spent its CPU on them.

A measure with real processes on 127.0.0.1: ann hosts three seats (open deal, one round, a drop time of 3 s), bob
joins, mal (tests/net/cheat_node.py `rejoin-flood`) joins and signs FLOOD REJOINs right after its first commit. It
prints, for each FLOOD given, the time from mal's join to the game's end at ann and bob, the CPU seconds each honest
process spent (read from /proc until it ends), each honest transcript's size, and the load average. It exits 1 if
the game did not end within 900 s.

    python benchmarks/attacks/rejoin_flood.py [FLOOD ...]     (default: 20000 60000)

To compare with another tree, run it from that tree's root with PYTHONPATH set to it (`python -m p2pnimmt` takes the
package from the working directory)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from procs import CheatProc, Proc, code_of  # noqa: E402

LO = ["--interface", "127.0.0.1"]
TIMERS = ["--bot-delay", "0.05", "--drop-after", "3"]


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of process `pid` so far (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(flood: int, tmp: Path) -> bool:
    def files(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp / f"{name}.p2pt")]

    ann = Proc(["host", "--headless", "--seats", "3", "--deal", "open", "--rounds", "1", "--no-points", *TIMERS, *LO,
                *files("ann")], tmp / "ann.out")
    procs = [ann]
    try:
        port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
        join = ["join", code_of(tmp / "ann.out"), "--headless", "--peer", f"127.0.0.1:{port}", *LO, *TIMERS]
        bob = Proc([*join, *files("bob")], tmp / "bob.out")
        procs.append(bob)
        bob.wait_for(r"joined \w{4}")
        procs.append(CheatProc("rejoin-flood", [*join, *files("mal")], tmp / "mal.out", turn=flood))
        start, spent = time.monotonic(), {"ann": 0.0, "bob": 0.0}
        while any(p.popen.poll() is None for p in (ann, bob)) and time.monotonic() - start < 900:
            for name, proc in (("ann", ann), ("bob", bob)):
                seconds = cpu_seconds(proc.popen.pid)
                spent[name] = spent[name] if seconds is None else seconds
            time.sleep(0.2)
        ended = all(p.popen.poll() == 0 for p in (ann, bob))
        sizes = {name: (tmp / f"{name}.p2pt").stat().st_size if (tmp / f"{name}.p2pt").exists() else 0
                 for name in ("ann", "bob")}
        print(f"{flood} REJOINs: {'ended' if ended else 'DID NOT END'} after {time.monotonic() - start:.1f} s; CPU "
              f"ann {spent['ann']:.1f} s, bob {spent['bob']:.1f} s; transcripts ann {sizes['ann']:,} bytes, "
              f"bob {sizes['bob']:,}; load {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
        return ended
    finally:
        for proc in reversed(procs):
            proc.stop()


def main(floods: list[int]) -> int:
    ok = True
    for flood in floods:
        with TemporaryDirectory(prefix="rejoin-flood-") as tmp:
            ok = measure(flood, Path(tmp)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main([int(a) for a in sys.argv[1:]] or [20000, 60000]))

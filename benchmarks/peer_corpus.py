"""Transcripts of real p2pnimmt processes on 127.0.0.1, for both verifiers (issue 25): tests/peer/corpus/.

    python benchmarks/peer_corpus.py [--out DIR] [--only NAME ...]

Each scenario starts separate `p2pnimmt` processes (host, joiners, a spectator; bots in the host) on loopback,
as tests/net's do (tests/procs.py), waits for them to end, and keeps every transcript they wrote, named
`<scenario>-<who>.p2pt`: every variant and deal, 2 to 10 seats, a player killed and voted out, a player killed and
resumed from its files, one dropped and taken back, a rematch, a person who never moves (the clock and the
stand-in). The transcripts of a killed process are kept too (cut short: both verifiers must say so alike).
tests/peer/test_corpus_agrees.py runs both verifiers on all of them; it runs a small live sample itself, since
the whole corpus takes minutes to make. Run again only to refresh it: the games differ each time (fresh keys).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from procs import Proc  # noqa: E402

CORPUS = ROOT / "tests" / "peer" / "corpus"
LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "2", "--no-points"]


class Table:
    """The processes of one scenario in a scratch folder; every one stopped (by pid) at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.procs: list[Proc] = []

    def start(self, name: str, args: list[str], stdin: int = subprocess.DEVNULL) -> Proc:
        proc = Proc(args, self.folder / f"{name}.out", stdin=stdin)
        self.procs.append(proc)
        return proc

    def transcript(self, name: str) -> list[str]:
        return ["--transcript", str(self.folder / f"{name}.p2pt")]

    def host(self, seats: int, bots: int, *extra: str) -> tuple[Proc, str]:
        host = self.start("host", ["host", "--headless", "--seats", str(seats), "--bots", str(bots), *LO, *extra,
                                   *self.transcript("host"), "--name", "ann"])
        return host, host.wait_for(r"code: (\w{4}-\w{4})").group(1)

    def watch(self, code: str, *extra: str) -> Proc:
        tv = self.start("tv", ["watch", code, "--headless", *LO, *extra, *self.transcript("tv")])
        tv.wait_for("joined")
        return tv

    def join(self, code: str, name: str, *extra: str) -> Proc:
        return self.start(name, ["join", code, "--headless", *LO, *extra, "--name", name, *self.transcript(name)])

    def stop(self) -> None:
        for proc in self.procs:
            proc.stop()


def kill(proc: Proc) -> None:
    os.kill(proc.popen.pid, signal.SIGKILL)
    proc.popen.wait()


def whole_game(seats: int, bots: int, joiners: int, *settings: str) -> Callable[[Table], None]:
    def run(t: Table) -> None:
        host, code = t.host(seats, bots, *settings)
        tv = t.watch(code)
        players = [t.join(code, f"j{i}") for i in range(joiners)]
        for proc in (host, tv, *players):
            proc.finish(300)

    return run


def killed_and_dropped(*settings: str) -> Callable[[Table], None]:
    """A joiner killed once the game started: the others vote it out and finish."""

    def run(t: Table) -> None:
        host, code = t.host(4, 1, *SHORT, "--drop-after", "1.5", *settings)
        tv = t.watch(code, "--drop-after", "1.5")
        gone = t.join(code, "gone", "--bot-delay", "0.05")
        stays = t.join(code, "stays", "--drop-after", "1.5")
        gone.wait_for("game started", 60)
        time.sleep(0.3)
        kill(gone)
        for proc in (host, tv, stays):
            proc.finish(300)

    return run


def killed_and_resumed(*settings: str) -> Callable[[Table], None]:
    """A joiner killed after round 1 and resumed from its transcript and secrets (no drop: nobody votes)."""

    def run(t: Table) -> None:
        host, code = t.host(3, 1, "--rounds", "3", "--no-points", "--drop-after", "0", *settings)
        tv = t.watch(code, "--drop-after", "0")
        victim = t.join(code, "j", "--drop-after", "0", "--bot-delay", "0.02")
        victim.wait_for(r"(?m)^round 1:", 120)
        kill(victim)
        shutil.copy(t.folder / "j.p2pt", t.folder / "killed.p2pt")  # the transcript as the kill left it
        resumed = t.start("resumed", ["resume", str(t.folder / "j.p2pt"), "--headless", *LO, "--drop-after", "0"])
        for proc in (resumed, host, tv):
            proc.finish(300)

    return run


def taken_back(*settings: str) -> Callable[[Table], None]:
    """A joiner killed, voted out, resumed: it asks for its seat back and plays again (section 11.3)."""

    def run(t: Table) -> None:
        slow = ["--bot-delay", "0.1"]
        host, code = t.host(3, 1, "--rounds", "8", "--no-points", *slow, "--drop-after", "1", *settings)
        victim = t.join(code, "gone", *slow)
        victim.wait_for(r"(?m)^round 1:", 120)
        kill(victim)
        host.wait_for("gone was dropped by the others' vote", 120)
        resumed = t.start("resumed", ["resume", str(t.folder / "gone.p2pt"), "--headless", *LO, *slow,
                                      "--drop-after", "1"])
        for proc in (resumed, host):
            proc.finish(300)

    return run


def rematch(t: Table) -> None:
    host, code = t.host(4, 1, *SHORT, "--rematch", "1")
    tv = t.watch(code, "--rematch", "1")
    bob = t.join(code, "bob", "--rematch", "1")
    carl = t.join(code, "carl")
    for proc in (host, tv, bob, carl):
        proc.finish(300)


def clock(t: Table) -> None:
    """A person at a line terminal who never moves: its own node plays the stand-in's move when the clock runs out."""
    host, code = t.host(3, 1, "--deal", "open", "--rounds", "1", "--no-points", "--clock", "2", "--drop-after", "1")
    tv = t.watch(code)
    sam = t.start("sam", ["join", code, "--lines", *LO, "--name", "sam", *t.transcript("sam")], stdin=subprocess.PIPE)
    for proc in (host, sam, tv):
        proc.finish(300)


SCENARIOS: dict[str, Callable[[Table], None]] = {
    "open-2": whole_game(2, 0, 1, "--deal", "open", *SHORT),
    "sealed-2": whole_game(2, 0, 1, *SHORT),
    "open-4": whole_game(4, 1, 2, "--deal", "open", *SHORT),
    "sealed-4": whole_game(4, 1, 2, *SHORT),
    "tactical-open-3": whole_game(3, 1, 1, "--variant", "tactical", "--deal", "open", *SHORT),
    "tactical-sealed-5": whole_game(5, 3, 1, "--variant", "tactical", *SHORT),
    "draft-4": whole_game(4, 2, 1, "--variant", "draft", *SHORT),
    "points-sealed-3": whole_game(3, 1, 1, "--points", "30"),
    "sealed-10": whole_game(10, 7, 2, "--rounds", "1", "--no-points"),
    "open-10": whole_game(10, 8, 1, "--deal", "open", "--rounds", "1", "--no-points"),
    "drop-open": killed_and_dropped("--deal", "open"),
    "drop-sealed": killed_and_dropped(),
    "drop-draft": killed_and_dropped("--variant", "draft"),
    "resume-open": killed_and_resumed("--deal", "open"),
    "resume-sealed": killed_and_resumed(),
    "back-sealed": taken_back(),
    "rematch-sealed": rematch,
    "clock-open": clock,
}


def make(name: str, out: Path) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix=f"corpus-{name}-") as scratch:
        table = Table(Path(scratch))
        started = time.monotonic()
        try:
            SCENARIOS[name](table)
        finally:
            table.stop()
        kept = []
        for path in sorted(Path(scratch).glob("*.p2pt")):
            target = out / f"{name}-{path.stem}.p2pt"
            shutil.copy(path, target)
            kept.append(target)
        print(f"{name}: {len(kept)} transcripts in {time.monotonic() - started:.1f} s", flush=True)
        return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CORPUS)
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), default=sorted(SCENARIOS))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in args.only:
        for attempt in (1, 2, 3):  # a loaded machine may miss an advertisement: that game is played again
            try:
                total += len(make(name, args.out))
                break
            except AssertionError as exc:
                print(f"{name}: attempt {attempt} failed: {str(exc).splitlines()[0]}", flush=True)
    size = sum(p.stat().st_size for p in args.out.glob("*.p2pt"))
    print(f"{total} transcripts written; {args.out} holds {len(list(args.out.glob('*.p2pt')))} ({size:,} bytes)")


if __name__ == "__main__":
    main()

"""A seated member misbehaving (issue 21, items 5 and 6): honest turn time and memory under its floods.

    python benchmarks/member_flood_bench.py [--rounds 8] [--bot-delay 0.1] [--runs 1] [--only quiet,flood,...]

Four seats, every peer a real `p2pnimmt` process on 127.0.0.1 (zeroconf too: `--interface 127.0.0.1`): the
host ann and the joiners bob and cat are honest; the joiner mal is killed once the game has started, the
others vote it out (`--drop-after 2`), and from then on the attacker (this script, with the raw-socket helpers
of tests/attacker.py) holds mal's key (its identity, read from the key file beside mal's transcript) and so shakes
hands with every honest peer as a seated member. It also knows the game's seat key (protocol.md 14: mal saw the
host's `code: ABCD-WXYZ`), so every join of its spectator proves it, as a friend's does: the spectator scenarios
measure a friend who misbehaves once admitted (a stranger without the key is refused at the door:
tests/net/test_seat_door.py). Then, until the game is over:

- quiet: nothing (the same table, mal's seat played by the stand-in);
- flood: at each honest peer, frames that decode as mal's messages (60 KB of fresh random padding) with a
  signature nobody made, as fast as the link takes them; redialled at once whenever the peer hangs up;
- replay: at each honest peer, ["heads", []] (so it sends the whole game so far), then every valid message
  received, sent back again and again all game long; redialled at once when cut;
- spectator: a fresh key joins the host as a spectator and floods it as above, joining again whenever cut;
- heads / pings: at each honest peer, ["heads", []] ("I hold nothing": the node looks up the whole game for each)
  or ["ping", []] frames, 64 to a write, as fast as the link takes them (session 32, redteam10);
- spectator-heads: a fresh key joins the host as a spectator and sends it ["heads", []] so; spectator-joins: its
  join again and again, under two names by turns (each join with the link's seat-key proof, so that the host
  takes each one as a change of name to announce, not a refusal at the door).

Per scenario: the honest turn time (a turn: from the previous turn's resolution, or the deal, to this one's,
on each honest node; only turns that began once the attack had begun), median and 90th percentile; each
honest peer's CPU seconds and peak resident memory (VmHWM, read from /proc while it runs); the attacker's
accepted handshakes, refused ones and frames sent; the fault records blaming mal (or the spectator) in each
honest transcript; the honest peers' WARNING lines; whether every honest transcript verifies and the scores
agree. Nothing binds or dials beyond 127.0.0.1; every process started is ended by its pid. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from attacker import (  # noqa: E402
    LOOPBACK,
    Attacker,
    Campaign,
    Listener,
    forged_flood,
    member_key,
    member_ports,
    replay_flood,
)
from bench_procs import (  # noqa: E402
    LO,
    p2p,
    wait_for as wait_for_line,
)

from p2pnimmt.protocol.identity import Identity  # noqa: E402
from p2pnimmt.protocol.seatkey import join_proof, seat_secret  # noqa: E402
from p2pnimmt.protocol.verify import verify_transcript  # noqa: E402

wait_for = partial(wait_for_line, timeout=120.0, tail=3000)
HONEST = ("ann", "bob", "cat")
CLK_TCK = os.sysconf("SC_CLK_TCK")


class Sampler(threading.Thread):
    """Peak VmHWM and the last CPU time (user + system) of some processes, read every 50 ms while they run."""

    def __init__(self, pids: dict[str, int]) -> None:
        super().__init__(daemon=True)
        self.pids = pids
        self.peak = dict.fromkeys(pids, 0.0)
        self.cpu = dict.fromkeys(pids, 0.0)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.05):
            for name, pid in self.pids.items():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if "State:\tZ" in status:
                    continue
                hwm = re.search(r"VmHWM:\s+(\d+)", status)
                if hwm:
                    self.peak[name] = max(self.peak[name], int(hwm.group(1)) / 1024)
                self.cpu[name] = (int(stat[11]) + int(stat[12])) / CLK_TCK


def turn_times(out: Path, since: float) -> list[float]:
    """The node's turn durations (the deal or the previous turn's resolution -> this one's), begun after `since`."""
    dealt: dict[int, float] = {}
    resolved: dict[tuple[int, int], float] = {}
    for kind, r, t, stamp in re.findall(r"timing (dealt|resolved) (\d+) (\d+) ([\d.]+)", out.read_text()):
        if kind == "dealt":
            dealt[int(r)] = float(stamp)
        else:
            resolved[(int(r), int(t))] = float(stamp)
    times = []
    for (r, t), end in resolved.items():
        begin = resolved.get((r, t - 1)) if t > 0 else dealt.get(r)
        if begin is not None and begin >= since:
            times.append(end - begin)
    return times


# ----------------------------------------------------------------- the attacks (one link each; Campaign redials)


def spectator_link(size: int, admitted: list[float], target: bytes, seat_key: str):
    def attack(link: Attacker, stop: threading.Event) -> None:
        link.join("spectator", name="tv", seat_key=seat_key)
        link.sock.settimeout(10)
        while True:
            kind, _ = link.read_frame()
            if kind == "refuse":
                return
            if kind == "lobby":
                admitted.append(time.monotonic())
                break
        seq = 1 << 20
        while not stop.is_set():
            seq += 1
            link.send("msg", link.forged(target, seq, size))
            link.frames_waiting()
    return attack


def asks_flood(kind: str, spectator: bool, admitted: list[float], seat_key: str | None = None):
    """A Campaign's attack: [kind, []] frames (`heads`: "I hold nothing", so the node looks up the whole game for
    each; `ping`: nothing to do; `join`: its join again) in batches of 64, as fast as the link takes them, reading
    what comes back; as a spectator (a friend who knows the code and its seat key) after its join, else as the
    seated member."""
    def attack(link: Attacker, stop: threading.Event) -> None:
        if spectator:
            link.join("spectator", name="tv", seat_key=seat_key)
            link.sock.settimeout(10)
            while True:
                got, _ = link.read_frame()
                if got == "refuse":
                    return
                if got == "lobby":
                    admitted.append(time.monotonic())
                    break
        batch = link.frame_bytes(kind, []) * 64
        if kind == "join":  # its join again and again, under two names by turns: each a change the host announces
            assert seat_key is not None, "a spectator's joins prove the seat key"
            proof = join_proof(seat_secret(link.game_id, seat_key), link.game_id, *link.nonces,
                               link.identity.public_key)  # this link's: each join on it proves the key, as the first
            batch = b"".join(link.frame_bytes("join", {"name": f"tv{i % 2}", "role": "spectator", "bot": False,
                                                       "port": 1, "proof": proof}) for i in range(64))
        while not stop.is_set():
            link.raw(batch)
            link.frames_waiting()
    return attack


# ----------------------------------------------------------------- one run


def run(scenario: str, rounds: int, delay: float, d: Path) -> dict:
    env = {**os.environ, "P2PNIMMT_TIMING": "1"}
    common = [*LO, "--bot-delay", str(delay), "--drop-after", "2"]
    procs: dict[str, subprocess.Popen] = {}

    def start(name: str, args: list[str]) -> None:
        procs[name] = subprocess.Popen(p2p(*args, *common, "--name", name, "--transcript", str(d / f"{name}.p2pt")),
                                       stdout=open(d / f"{name}.out", "wb"), stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, env=env)

    campaigns: list[Campaign] = []
    listener = Listener()
    try:
        start("ann", ["host", "--headless", "--seats", "4", "--rounds", str(rounds), "--no-points"])
        port = int(wait_for(d / "ann.out", r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = wait_for(d / "ann.out", r"code: (\w{4}-\w{4})").group(1)
        seat_key = code[5:]  # what a friend types after the hyphen (protocol.md 14)
        for name in ("bob", "cat", "mal"):
            start(name, ["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}"])
        wait_for(d / "mal.out", r"timing commit 0 0 ")  # past START and its shuffle: the game needs it now
        os.kill(procs["mal"].pid, signal.SIGKILL)
        procs["mal"].wait()
        wait_for(d / "ann.out", "mal was dropped by the others' vote")
        mal = member_key(d / "mal.p2pt")
        sampler = Sampler({name: procs[name].pid for name in HONEST})
        sampler.start()
        admitted: list[float] = []
        spectator = Identity.generate()
        since = time.monotonic()
        if scenario in ("flood", "replay"):
            ports = member_ports(port, mal, listener.port, HONEST) | {"ann": port}
            pool: dict[bytes, None] = {}
            for name in HONEST:
                attack = forged_flood() if scenario == "flood" else replay_flood(pool)
                campaigns.append(Campaign(ports[name], mal, attack))
        elif scenario in ("heads", "pings"):  # the seated member, at each honest peer
            ports = member_ports(port, mal, listener.port, HONEST) | {"ann": port}
            for name in HONEST:
                campaigns.append(Campaign(ports[name], mal, asks_flood("heads" if scenario == "heads" else "ping",
                                                                       False, admitted)))
        elif scenario in ("spectator-heads", "spectator-joins"):
            campaigns.append(Campaign(port, spectator, asks_flood("heads" if scenario == "spectator-heads" else
                                                                  "join", True, admitted, seat_key)))
        elif scenario == "spectator":
            campaigns.append(Campaign(port, spectator, spectator_link(60_000, admitted, mal.peer, seat_key)))
        for campaign in campaigns:
            campaign.start()
        codes = {name: procs[name].wait(900) for name in HONEST}
        for campaign in campaigns:
            campaign.finish()
        sampler.stop.set()
        sampler.join()
    finally:
        for campaign in campaigns:
            campaign.finish()
        for proc in procs.values():
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
        listener.close()
    times = [t for name in HONEST for t in turn_times(d / f"{name}.out", since)]
    blamed = spectator.peer if scenario.startswith("spectator") else mal.peer
    records, verified, scores, warnings = {}, True, set(), Counter()
    for name in HONEST:
        verdict = verify_transcript((d / f"{name}.p2pt").read_bytes())
        verified = verified and verdict.ok
        records[name] = sum(1 for f in verdict.faults_recorded if f.get("peer") == blamed)
        text = (d / f"{name}.out").read_text(errors="replace")
        m = re.search(r"final scores: (.*)", text)
        scores.add(m.group(1) if m else None)
        for line in text.splitlines():
            if line.startswith("WARNING"):
                warnings[re.sub(r"[A-Z2-7]{4}-[A-Z2-7]{4}|\('127\.0\.0\.1', \d+\)|\d+(\.\d+)?", "#",
                                line.split(": ", 1)[-1])[:80]] += 1
    return {"times": times, "peak": sampler.peak, "cpu": sampler.cpu, "codes": codes, "verified": verified,
            "agree": len(scores) == 1 and None not in scores, "records": records, "warnings": warnings,
            "accepted": [len(c.accepted) for c in campaigns], "refused": [c.refused for c in campaigns],
            "admitted": len(admitted), "since": since}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="rounds per game (default 8)")
    parser.add_argument("--bot-delay", type=float, default=0.1, help="every bot's delay before a move (default 0.1)")
    parser.add_argument("--runs", type=int, default=1, help="games per scenario (default 1)")
    parser.add_argument("--only", default="quiet,flood,replay,spectator,heads,pings,spectator-heads,spectator-joins", help="scenarios, comma-separated")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in args.only.split(","):
            for k in range(args.runs):
                d = Path(tmp) / f"{scenario}{k}"
                d.mkdir()
                r = run(scenario, args.rounds, args.bot_delay, d)
                times = sorted(r["times"])
                p90 = times[int(len(times) * 0.9)] if times else float("nan")
                median = statistics.median(times) if times else float("nan")
                peak = " / ".join(f"{r['peak'][n]:.0f}" for n in HONEST)
                cpu = " / ".join(f"{r['cpu'][n]:.1f}" for n in HONEST)
                print(f"{scenario:9} turn median {median:5.3f} s  p90 {p90:5.3f} s  ({len(times)} turns)  "
                      f"peak RSS {peak} MB  CPU {cpu} s  exit {list(r['codes'].values())}  "
                      f"verified {r['verified']}  agree {r['agree']}", flush=True)
                if r["accepted"]:
                    print(f"{'':10}handshakes accepted {r['accepted']} refused {r['refused']}"
                          + (f"  spectator admitted {r['admitted']}" if scenario.startswith("spectator") else "")
                          + f"  fault records blaming the attacker {list(r['records'].values())}")
                for line, n in r["warnings"].most_common(5):
                    print(f"{'':10}{n:6} x {line}")


if __name__ == "__main__":
    main()

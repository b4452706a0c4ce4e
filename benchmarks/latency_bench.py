"""A turn's wall time against the round trip over a slow, jittery overlay (issue 27 item 3), and games under jitter
with no false drop or away.

    python benchmarks/latency_bench.py [--delay 0.075] [--jitter 0.025] [--deal open sealed] [--games 1]
                                       [--rounds 1] [--bot-delay 0] [--clock 0] [--drop-after 60]

Root, iproute2, wireguard-go and wg: five seats (the host and four joiners by the invite link, each a headless
heuristic bot in its own network namespace) on a WireGuard mesh whose every datagram a relay holds DELAY ±
JITTER seconds each way (tests/lan: test_latency.slow_overlay, delay_relay.py; namespaces and 10.77.x.y
addresses of this run's own, deleted at the end). Each deal's games are played in turn on the one mesh.

Prints the round trip (TCP connects refused at a closed port over the tunnel: median and range of 20), and per
deal the turn's wall time at every seat: from the resolution of the turn before (or the deal of the round) to
this turn's resolution there (P2PNIMMT_TIMING stamps), so it holds the bots' moves (`--bot-delay` adds to it)
and every process's CPU on this machine's cores, as median / 90th percentile / max, in seconds and in round
trips; then games finished, seats dropped (DROP in any transcript) and moves the stand-in made (`the clock ran
out`, with `--clock`; away needs three in a row).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "lan"), str(ROOT / "tests")]

from conftest import Lan, namespaces, require_netns  # noqa: E402
from test_latency import round_trips, slow_overlay  # noqa: E402
from test_wireguard import require_wireguard  # noqa: E402

from p2pnimmt.protocol.verify import replay  # noqa: E402

SEATS = range(1, 6)  # 1 the host, 2..5 joiners


def turn_times(text: str) -> list[float]:
    """From one seat's timing stamps: each turn's wall time (the previous turn's resolution, or the deal, to its
    own)."""
    times, last = [], None
    for kind, _round, _turn, stamp in re.findall(r"timing (dealt|resolved|ended|commit) (\d+) (\d+) ([\d.]+)", text):
        if kind in ("dealt", "resolved"):
            if kind == "resolved" and last is not None:
                times.append(float(stamp) - last)
            last = float(stamp)
        elif kind == "ended":
            last = None
    return times


def play(overlay, out: Path, deal: str, game: int, args: argparse.Namespace) -> tuple[list[float], list[str]]:
    """One game; its seats' turn times, and what went wrong (drops, stand-in moves, failures)."""
    env = {"P2PNIMMT_TIMING": "1", "P2PNIMMT_LOG": "INFO"}
    common = ["--bot-delay", str(args.bot_delay), "--drop-after", str(args.drop_after)]
    tag = f"{deal}{game}"
    host = overlay.start(1, ["host", "--headless", "--seats", "5", "--name", "ann", "--deal", deal, "--clock",
                             str(args.clock), "--rounds", str(args.rounds), "--no-points", *common,
                             "--transcript", str(out / f"{tag}-1.p2pt")], f"{tag}-1", env)
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    procs = [host] + [overlay.start(i, ["join", link, "--headless", "--name", f"j{i}", *common, "--transcript",
                                        str(out / f"{tag}-{i}.p2pt")], f"{tag}-{i}", env) for i in SEATS[1:]]
    wrong = []
    for i, proc in zip(SEATS, procs):
        if proc.finish(120 + 60 * args.rounds) != 0:
            wrong.append(f"seat {i} exited {proc.popen.returncode}")
    times: list[float] = []
    for i, proc in zip(SEATS, procs):
        text = proc.text()
        times += turn_times(text)
        ran_out = text.count("the clock ran out")
        if ran_out:
            wrong.append(f"seat {i}: the stand-in moved {ran_out} times")
        session = replay((out / f"{tag}-{i}.p2pt").read_bytes()).session
        if session.dropped:
            wrong.append(f"seat {i}'s transcript has seats dropped: {sorted(session.dropped)}")
        if any(session.away(seat) for seat in range(5)):
            wrong.append(f"seat {i}'s transcript ends with a seat away")
    return times, wrong


def figures(times: list[float], trip: float) -> str:
    ordered = sorted(times)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    median = statistics.median(ordered)
    return (f"turn wall time over {len(ordered)} turn-seats: median {median:.3f} s = {median / trip:.2f} RTT, "
            f"p90 {p90:.3f} s = {p90 / trip:.2f} RTT, max {ordered[-1]:.3f} s = {ordered[-1] / trip:.2f} RTT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.075, help="seconds each datagram is held each way")
    parser.add_argument("--jitter", type=float, default=0.025, help="± seconds around the delay")
    parser.add_argument("--deal", nargs="+", choices=("open", "sealed"), default=["open", "sealed"])
    parser.add_argument("--games", type=int, default=1, help="games per deal")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--bot-delay", type=float, default=0.0, help="seconds each bot waits before its move")
    parser.add_argument("--clock", type=int, default=0, help="the seats' clock (0: none)")
    parser.add_argument("--drop-after", type=float, default=60.0, help="every seat's drop time (default 60)")
    args = parser.parse_args()
    try:
        require_netns()
        require_wireguard()
    except BaseException as exc:  # pytest's skip: say why and stop
        raise SystemExit(f"cannot run: {exc}") from None
    with tempfile.TemporaryDirectory() as tmp:
        lan = Lan(7, Path(tmp))
        try:
            lan.build()
            with slow_overlay(lan, args.delay, args.jitter) as overlay:
                trips = round_trips(lan.ns(2), overlay.addr(1), 20)
                trip = statistics.median(trips)
                print(f"held {args.delay * 1000:.0f} ± {args.jitter * 1000:.0f} ms each way: round trip median "
                      f"{trip * 1000:.0f} ms, {min(trips) * 1000:.0f}-{max(trips) * 1000:.0f} ms (20 TCP connects)",
                      flush=True)
                for deal in args.deal:
                    times: list[float] = []
                    problems: list[str] = []
                    started = time.monotonic()
                    for game in range(args.games):
                        got, wrong = play(overlay, Path(tmp), deal, game, args)
                        times += got
                        problems += [f"game {game + 1}: {what}" for what in wrong]
                    print(f"{deal}: {args.games} game(s) of {args.rounds} round(s) in "
                          f"{time.monotonic() - started:.0f} s; {figures(times, trip)}", flush=True)
                    print(f"{deal}: " + ("; ".join(problems) if problems else
                                         "no drop, no stand-in move, every seat exited 0"), flush=True)
        finally:
            left = lan.teardown()
            left += [name for name in namespaces() if name.startswith(lan.id)]
            if left:
                print(f"namespaces left behind: {left}", file=sys.stderr)


if __name__ == "__main__":
    main()

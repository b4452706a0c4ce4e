"""A host's memory under each flood an attacker on the LAN can send (issue 12), over loopback only.

    python benchmarks/flood_bench.py [--keys 64] [--messages 256]

For each flood: a real `p2pnimmt host --headless --seats 2` process on 127.0.0.1; the attacker (this
script, with the raw-socket helper of tests/attacker.py: the real handshake, a fresh key each) floods it
while the host's resident memory (VmRSS) is sampled every 50 ms; then a real joiner fills the table and
the game is played to its end. Prints, per flood: the host's RSS before, its peak during the flood
(VmHWM), after the game; the game's wall time; whether both transcripts verify and the scores agree;
the host's log lines about the flood. Goal: under 100 MB throughout, the game finishing normally.
The attacker's joins prove the seat key (read off the host's `code: ABCD-WXYZ`, protocol.md 14): a friend
who misbehaves, as before the key; a stranger without it is refused at the door (tests/net/test_seat_door.py).
Everything binds and dials 127.0.0.1 only; every process started is ended by its pid. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from attacker import LOOPBACK, Attacker, rss_mb  # noqa: E402
from bench_procs import LO, p2p, wait_for  # noqa: E402

from p2pnimmt.protocol.inbox import MAX_HELD_WIRE  # noqa: E402
from p2pnimmt.protocol.verify import verify_transcript  # noqa: E402


def send_all(a: Attacker, frames: list[bytes]) -> None:
    try:
        a.raw(b"".join(frames))
    except OSError:
        pass  # cut off: the host hung up


def held_messages(port: int, seat_key: str, keys: int, messages: int, join: bool) -> None:
    """`keys` fresh keys each send `messages` signed messages before START (64 KB each; as spectators,
    after joining with the seat key, just under the held-message size cap, so each fills its per-peer cap; since
    session 45 what a peer cut held is dropped at once, so one after another they no longer reach the total)."""
    for k in range(keys):
        a = Attacker.dial(port)
        size = 60_000
        if join:
            a.join("spectator", name=f"flood{k}", seat_key=seat_key)
            a.lobby()
            size = MAX_HELD_WIRE - 1_000
        send_all(a, [a.frame_bytes("msg", a.padded(seq, size)) for seq in range(messages)])
        a.closed_by_peer(10)
        a.close()


def spectators_hang_up(port: int, seat_key: str, count: int) -> None:
    """`count` times: join as a spectator (with the seat key), read the lobby frame, hang up."""
    for k in range(count):
        a = Attacker.dial(port)
        a.join("spectator", name=f"ghost{k}", seat_key=seat_key)
        a.lobby()
        a.close()


def idle_connections(port: int, count: int) -> None:
    """`count` connections that say nothing (held open during the handshake window, then closed)."""
    import socket

    socks = [socket.create_connection((LOOPBACK, port)) for _ in range(count)]
    time.sleep(6)  # past the 5 s handshake limit: the host has closed them (or cut the oldest)
    for s in socks:
        s.close()


def bad_messages(port: int, seat_key: str, links: int) -> None:
    """A member (spectator, with the seat key) sends 60 garbage msg frames, then dials again `links` - 1 times
    (it is cut off: each time it asks to watch, with the key, it is refused)."""
    from p2pnimmt.protocol.identity import Identity

    me = Identity.generate()
    for k in range(links):
        a = Attacker.try_dial(port, identity=me)
        if a is None:  # refused in the handshake (it was told why once)
            continue
        a.join("spectator", name="junk", seat_key=seat_key)
        if k == 0:
            a.lobby()
            send_all(a, [a.frame_bytes("msg", b"\xc1" + bytes([j])) for j in range(60)])
        else:
            a.until("refuse")
        a.closed_by_peer(10)
        a.close()


def run(name: str, flood: Callable[[int, str], None], d: Path) -> None:
    host_out = d / "host.out"
    host = subprocess.Popen(p2p("host", "--headless", "--seats", "2", *LO, "--name", "ann", "--rounds", "3",
                                "--no-points", "--transcript", str(d / "ann.p2pt")),
                            stdout=open(host_out, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    joiner = None
    try:
        port = int(wait_for(host_out, r"listening on 127\.0\.0\.1:(\d+)").group(1))
        code = wait_for(host_out, r"code: (\w{4}-\w{4})").group(1)
        time.sleep(1.0)  # settled after start-up
        before = rss_mb(host.pid)
        samples: list[float] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                try:
                    samples.append(rss_mb(host.pid))
                except (OSError, AssertionError):
                    return
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        t0 = time.monotonic()
        flood(port, code[5:])  # the seat key: the spectators of a flood are friends who misbehave
        flood_s = time.monotonic() - t0
        t1 = time.monotonic()
        joiner = subprocess.Popen(p2p("join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO,
                                      "--name", "bob", "--transcript", str(d / "bob.p2pt")),
                                  stdout=open(d / "bob.out", "wb"), stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)
        codes = (joiner.wait(180), host.wait(180))
        game_s = time.monotonic() - t1
        stop.set()
        sampler.join()
        peak = max(samples) if samples else float("nan")
        ok = all(verify_transcript((d / f"{n}.p2pt").read_bytes()).ok for n in ("ann", "bob"))
        scores = {m.group(1) for n in ("host", "bob") if (m := re.search(r"final scores: (.*)",
                                                                          (d / f"{n}.out").read_text()))}
        text = host_out.read_text(errors="replace")
        lines = [ln for ln in text.splitlines() if "WARNING" in ln]
        kinds: dict[str, int] = {}
        for ln in lines:
            key = re.sub(r"[A-Z2-7]{4}-[A-Z2-7]{4}|\('127\.0\.0\.1', \d+\)|\d+", "#", ln.split(": ", 1)[-1])[:90]
            kinds[key] = kinds.get(key, 0) + 1
        print(f"{name:28} rss before {before:5.1f} MB  peak {peak:5.1f} MB  flood {flood_s:5.1f} s  "
              f"game {game_s:4.1f} s  exit {codes}  verified {ok}  scores agree {len(scores) == 1}")
        for key, n in sorted(kinds.items(), key=lambda kv: -kv[1])[:4]:
            print(f"{'':30}{n:4} x {key}")
    finally:
        for proc in (joiner, host):
            if proc is not None and proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=64)
    parser.add_argument("--messages", type=int, default=256)
    args = parser.parse_args()
    floods: dict[str, Callable[[int, str], None]] = {  # (the host's port, its seat key)
        "none (honest game)": lambda port, key: None,
        f"{args.keys} keys x {args.messages} held, not joined": lambda port, key: held_messages(
            port, key, args.keys, args.messages, join=False),
        f"{args.keys} keys x {args.messages} held, joined": lambda port, key: held_messages(
            port, key, args.keys, args.messages, join=True),
        "300 spectators hang up": lambda port, key: spectators_hang_up(port, key, 300),
        "200 idle connections": lambda port, key: idle_connections(port, 200),
        "60 bad messages, then 3 dials": lambda port, key: bad_messages(port, key, 4),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, flood) in enumerate(floods.items()):
            d = Path(tmp) / f"flood{k}"
            d.mkdir()
            run(name, flood, d)


if __name__ == "__main__":
    main()

"""A 5-seat sealed game between homes 150 ± 50 ms apart each way (issue 27 item 3): it finishes, nobody is
dropped, every transcript agrees (the bots that play have no clock, so none can be marked away).

Six peers (the host, four joiners by the invite link, a spectator) on a WireGuard mesh (test_wireguard.py's
Overlay) whose every datagram passes a delaying relay (delay_relay.py) in a seventh namespace: each way
150 ± 50 ms, so a round trip is 200-400 ms, with jitter. Namespaces only (conftest.py), mandatory in CI.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from conftest import Lan
from deadlines import outer
from procs import game_of
from test_namespaces import check_game
from test_wireguard import PORT, Overlay, require_wireguard

from p2pnimmt.protocol.verify import replay

RELAY = Path(__file__).with_name("delay_relay.py")
PEERS = range(1, 7)  # 1 the host, 2..5 joiners, 6 the spectator; 7 the relay


def relay_port(i: int, j: int) -> int:
    """The relay's port where peer i's WireGuard sends what it has for peer j."""
    return 40000 + 10 * i + j


def round_trip(ns: str, address: str, samples: int = 3) -> float:
    """Seconds from a TCP connect at a closed port of `address` (from namespace `ns`) to its refusal: one round
    trip, the least of `samples` after WireGuard's handshake (whose own trip a first connect pays)."""
    return min(round_trips(ns, address, samples))


def round_trips(ns: str, address: str, samples: int) -> list[float]:
    """`samples` round trips to `address` from namespace `ns` (as round_trip measures one), in the order taken."""
    probe = ("import socket, time\n"
             "def once():\n"
             "    t = time.monotonic()\n"
             "    try:\n"
             f"        socket.create_connection(({address!r}, 9), timeout=10).close()\n"
             "    except ConnectionRefusedError:\n"
             "        return time.monotonic() - t\n"
             "    raise SystemExit('port 9 answered')\n"
             "once()\n"
             f"print(*(once() for _ in range({samples})))\n")
    done = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=outer(60))
    assert done.returncode == 0, done.stderr
    return [float(trip) for trip in done.stdout.split()]


@contextlib.contextmanager
def slow_overlay(lan: Lan, delay: float = 0.15, jitter: float = 0.05, seed: int = 27) -> Iterator[Overlay]:
    """A WireGuard mesh of peers 1..6 of `lan` whose every datagram the delaying relay (delay_relay.py, in
    namespace 7) holds `delay` ± `jitter` seconds each way; brought down (relay included) at the end."""
    routes = [f"{relay_port(i, j)}:{relay_port(j, i)}:{lan.addr(j)}:{PORT}" for i in PEERS for j in PEERS if i != j]
    log = open(lan.tmp_path / "relay.out", "wb")
    relay = subprocess.Popen(["ip", "netns", "exec", lan.ns(7), sys.executable, str(RELAY), "--address", lan.addr(7),
                              "--delay", str(delay), "--jitter", str(jitter), "--seed", str(seed), *routes],
                             stdout=log, stderr=subprocess.STDOUT)
    log.close()
    overlay = Overlay(lan, PEERS, endpoint=lambda i, j: f"{lan.addr(7)}:{relay_port(i, j)}")
    try:
        deadline = time.monotonic() + outer(20)
        while "relaying" not in (lan.tmp_path / "relay.out").read_text():
            assert time.monotonic() < deadline and relay.poll() is None, (lan.tmp_path / "relay.out").read_text()
            time.sleep(0.05)
        overlay.up()
        yield overlay
    finally:
        overlay.down()
        if relay.poll() is None:
            relay.terminate()  # by pid (`ip netns exec` execs python)
        relay.wait(10)


def test_a_five_seat_sealed_game_over_a_slow_jittery_path_finishes_with_nobody_dropped(make_lan) -> None:
    require_wireguard()
    lan = make_lan(7)
    with slow_overlay(lan) as overlay:
        trip = round_trip(lan.ns(2), overlay.addr(1))
        assert trip >= 0.2, f"a round trip over the tunnel took {trip:.3f} s"  # held 0.1-0.2 s each way
        out = lan.tmp_path
        host = overlay.start(1, ["host", "--headless", "--seats", "5", "--name", "ann", "--rounds", "1",
                                 "--no-points", "--transcript", str(out / "host.p2pt")], "host")
        link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
        code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
        procs = {"host": host}
        procs["watch"] = overlay.start(6, ["watch", link, "--headless", "--transcript", str(out / "watch.p2pt")],
                                       "watch")
        procs["watch"].wait_for(rf"joined {game_of(code)} at {re.escape(overlay.addr(1))}:\d+ as spectator", timeout=60)
        started = time.monotonic()
        for i in range(2, 6):
            procs[f"join{i}"] = overlay.start(i, ["join", link, "--headless", "--name", f"j{i}",
                                                  "--transcript", str(out / f"join{i}.p2pt")], f"join{i}")
        scores, _ = check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=600)
        took = time.monotonic() - started
        assert sorted(part.rsplit(" ", 1)[0] for part in scores.split(", ")) == ["ann", "j2", "j3", "j4", "j5"]
        for name, proc in procs.items():
            text = proc.text()
            assert "dropped" not in text and "too few" not in text, f"{name}:\n{text}"
            assert not replay((out / f"{name}.p2pt").read_bytes()).session.dropped, name  # no seat dropped
        print(f"\n5 seats and a spectator, 150 ± 50 ms each way (a round trip {trip:.3f} s at best of 3): the "
              f"joins and one sealed round of 10 turns in {took:.1f} s")

"""FINDING (session 35, redteam), fixed in session 35: a member whose address a stranger spent lost its seat on its
next link.

The host refuses a join unchecked from an address past its wrong seat keys (protocol.md 14, "Bounds"), its own
seats aside. A member that already sat (it proved the key) sends its join again on every new link (a redial after
a network blip, a phone page reloaded: net.mesh.Mesh.link); where its address is shared with a stranger who spent
it (a phone relay's: every page behind it reaches the host from the relay node's address, and the relay's token
is in the lobby frames a stranger who reads the LAN sees), that join was refused unchecked ("too many wrong seat
keys from this address"), the joiner stops at a refusal, and the host, which keeps a player who left the lobby,
then seated in its START a player who had gone. protocol.md said "the seats taken are not touched".

A reproduction with a real headless host on 127.0.0.1: bob (tests/attacker.py, doing what a joiner's node does)
sits from 127.0.0.3 with the key and hangs up; a stranger at 127.0.0.3 spends the address's 8 wrong keys; bob's
next link sends its join with the key again. It prints what the host answered each and exits 1 if bob was refused
(0 now: net.seatdoor.SeatDoor._known, a key admitted already is never refused unchecked).

    python benchmarks/attacks/spent_address_rejoin.py
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-sa{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from attacker import Attacker  # noqa: E402
from hosted import headless_host  # noqa: E402

from p2pnimmt.net.seatdoor import WRONG_BURST  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402

SHARED = "127.0.0.3"  # the address bob and the stranger share (a phone relay's)


def joins(port: int, identity: Identity | None, name: str, seat_key: str | None) -> str:
    link = Attacker.dial(port, identity, source=SHARED)
    try:
        if seat_key is None:
            link.send("join", {"name": name, "role": "player", "bot": False, "port": 1,
                               "proof": secrets.token_bytes(32)})  # a wrong key, to the host
        else:
            link.join("player", name=name, seat_key=seat_key)
        link.sock.settimeout(20)
        while True:
            kind, payload = link.read_frame()[:2]
            if kind == "refuse":
                return f"refused: {payload}"
            if kind == "lobby":
                return "seated: " + ", ".join(m["name"] for m in payload["members"])
    finally:
        link.close()


def main() -> int:
    with TemporaryDirectory() as tmp, headless_host(tmp, "--seats", "3") as (_host, key, port):
        bob = Identity.generate()
        print(f"bob from {SHARED}: {joins(port, bob, 'bob', key)}")
        said = [joins(port, None, "mal", None) for _ in range(int(WRONG_BURST))]
        print(f"the stranger from {SHARED}, {len(said)} wrong keys: {sorted(set(s[:40] for s in said))}")
        print(f"the stranger's next join: {joins(port, None, 'mal', None)[:60]}")
        again = joins(port, bob, "bob", key)
        print(f"bob's next link from {SHARED}, with the key: {again}")
    lost = not again.startswith("seated")
    print(f"\nbob lost his seat: {lost}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())

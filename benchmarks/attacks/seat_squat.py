"""FINDING (session 33, redteam11), open: a stranger who reads a game off mDNS takes its free seats, under the names
of the friends it expects, before they can join; the table fills, the game starts by itself, and the friends are
refused. A reproduction: it prints what the stranger saw and did, what the real bob's `join CODE` said and what the
host said, and exits 1 while the stranger got a seat.

How: the host (`host --headless --seats 3 --name ann`) advertises its game by mDNS, as every host does; its TXT
and SRV give the code and the port. The stranger browses (zeroconf on 127.0.0.1 here, anyone's on a LAN), dials
the port twice with two fresh keys (a key costs nothing; tests/attacker.py does the real handshake) and joins as
player `bob` and as player `carl`. That takes it about a second after the advertisement (1.1 s measured on the
2-core reference machine). The third seat filled, the host starts by itself (docs/lan-and-browser.md: "The game
starts by itself when every seat is taken") and signs a START that seats the stranger's keys; the real bob's
`join CODE` is then refused ("refused by the host: the game has started"); had the stranger joined as `bob` alone,
bob would be refused for his own name ("the name bob looks like bob's, who has a seat here"). The stranger then
says nothing: the host waits for START_ACKs that never come ("bob, carl left before acknowledging its START ...
giving up after 300 s"), and its evening is the stranger's. The host's `kick NAME` (lobby) cannot help: the
table starts before a person can read the lobby, and a kicked stranger joins again with another fresh key. A phone
page's link (on the TV, in its QR code, for the room to read) is the same way in: "a seat no phone has taken is no
seat" (docs/phone.md), so whoever opens it first sits.

Why it matters: the project's promise (1), "a LAN on which no stranger can ... take a seat or lock anyone out".
Joining needs nothing that is not on the air: the code and the port are advertised, and the invite link's
fragment is the host key's fingerprint, which is advertised too. Closing the door on unseated keys (the door,
protocol.md 14) bounds connections, not who may sit.

Candidate fixes (each a design change, so not made here):
  - a seat takes a secret the air does not carry: the invite link (and its QR code on the host's screen, the TV
    page and the phone link) carries a random seat token that a `join` must show; `join CODE` by mDNS alone only
    watches, or asks the host, who admits it with a key press (the fingerprint shown);
  - no start by itself while a seat was taken by a key the host's person has not seen: `start` (s) instead, or
    start only after the lobby has been still for a few seconds with every seat confirmed;
  - at the least, a kicked key's address may not take a seat again without the host's word.

    python benchmarks/attacks/seat_squat.py
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-sq{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from attacker import Attacker  # noqa: E402

from p2pnimmt.net.discovery import browse, open_zeroconf  # noqa: E402


async def advertised(seconds: float = 30.0) -> list:
    """What a stranger's look at the LAN (127.0.0.1 only) finds: the games advertised."""
    zc = open_zeroconf("127.0.0.1")
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ads = await browse(zc, 0.5)
            if ads:
                return ads
        return []
    finally:
        await zc.async_close()


def main() -> int:
    with TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp}
        out = Path(tmp) / "host.log"
        host = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "host", "--headless", "--seats", "3", "--name",
                                 "ann", "--interface", "127.0.0.1", "--give-up", "20"],
                                stdout=open(out, "wb"), stderr=subprocess.STDOUT, env=env)
        links: list[Attacker] = []
        try:
            began = time.monotonic()
            ads = asyncio.run(advertised())
            if not ads:
                print("the stranger saw no game advertised")
                return 2
            ad = ads[0]
            for name in ("bob", "carl"):  # the friends the stranger expects, fresh keys
                link = Attacker.dial(ad.port)
                link.join("player", name=name)
                links.append(link)
            print(f"the stranger read game {ad.code} off mDNS and joined as bob and carl "
                  f"{time.monotonic() - began:.1f} s after the host started")
            match = re.search(r"code: (\w+)", out.read_text())
            assert match is not None
            bob = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", match.group(1), "--headless", "--name",
                                  "bob", "--interface", "127.0.0.1", "--give-up", "10"],
                                 capture_output=True, text=True, env=env, timeout=90)
            said = (bob.stdout + bob.stderr).strip().splitlines()
            print(f"the real bob's join CODE: exit {bob.returncode}: {said[-1] if said else ''}")
            seated = re.search(r"game started: (.*)", out.read_text())
            print("the host: " + (seated.group(0) if seated else "no game started"))
            squatted = seated is not None and bob.returncode != 0
        finally:
            for link in links:
                link.close()
            host.terminate()
            try:
                host.wait(20)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait()
        print(f"\na stranger took the seats and kept bob out: {squatted}")
        return 1 if squatted else 0


if __name__ == "__main__":
    sys.exit(main())

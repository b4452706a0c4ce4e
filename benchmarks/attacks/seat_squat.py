"""FINDING (session 33, redteam11), CLOSED in session 34 by the seat key (protocol.md 14, "The seat key"): a
stranger who read a game off mDNS took its free seats, under the names of the friends it expected, before they
could join; the table filled, the game started by itself, and the friends were refused. A reproduction: it prints
what the stranger saw and did, what the host answered it, what the real bob's `join CODE-KEY` said and what the
host said, and exits 1 while the stranger got a seat (0 now: the hole is closed).

How it was: the host (`host --headless --seats 3 --name ann`) advertises its game by mDNS, as every host does; its
TXT and SRV give the code and the port. The stranger browses (zeroconf on 127.0.0.1 here, anyone's on a LAN), dials
the port twice with two fresh keys (a key costs nothing; tests/attacker.py does the real handshake) and joins as
player `bob` and as player `carl`. That took it about a second after the advertisement (1.1 s measured on the
2-core reference machine). The third seat filled, the host started by itself and signed a START that seated the
stranger's keys; the real bob's `join CODE` was then refused ("refused by the host: the game has started").

How it is closed: the host draws a seat key (4 characters, 20 bits from the CSPRNG) and shows it only where a
person reads it: `code: ABCD-WXYZ` on its screen, its invite link and its phone links; never on the air. Every
`join` (player or spectator) carries an HMAC proof of the key bound to that link's handshake nonces; the host
refuses a join without a proof that holds ("the seat key is missing: ...", "wrong seat key: ..."), and after a
burst of 8 wrong keys from one address it refuses that address's joins unchecked, one try each 10 s after
("too many wrong seat keys from this address: ..."). So the stranger's joins (no key) are refused, the host does
not start, and the real friends, who type the code with its key, take the seats. tests/net/test_seat_squat.py
asserts the same with guessed keys and the per-address bound.

Why it mattered: the project's promise (1), "a LAN on which no stranger can ... take a seat or lock anyone out".
Joining needed nothing that was not on the air: the code and the port are advertised, and the invite link's
fragment is the host key's fingerprint, which is advertised too. Closing the door on unseated keys (the door,
protocol.md 14) bounds connections, not who may sit; the seat key bounds who may sit.

The candidate fixes of session 33 were: a secret the air does not carry (taken: the seat key); no start by
itself while a key the host's person has not seen holds a seat; a kicked key's address kept out.

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


def answer(link: Attacker, timeout: float = 20.0) -> str:
    """What the host answered the stranger's join: `seated` (a lobby frame naming it) or `refused: WHY`."""
    link.sock.settimeout(timeout)
    while True:
        kind, payload = link.read_frame()[:2]
        if kind == "refuse":
            return f"refused: {payload}"
        if kind == "lobby":
            return "seated"


def main() -> int:
    with TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp}
        out = Path(tmp) / "host.log"
        short = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.05"]
        host = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "host", "--headless", "--seats", "3", "--name",
                                 "ann", "--interface", "127.0.0.1", "--give-up", "20", *short],
                                stdout=open(out, "wb"), stderr=subprocess.STDOUT, env=env)
        links: list[Attacker] = []
        answers: list[str] = []
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
                answers.append(answer(link))
            print(f"the stranger read game {ad.code} off mDNS and joined as bob and carl "
                  f"{time.monotonic() - began:.1f} s after the host started")
            for name, said in zip(("bob", "carl"), answers):
                print(f"the host to the stranger's {name}: {said}")
            match = re.search(r"code: (\w{4}-\w{4})", out.read_text())
            assert match is not None
            friends = {name: subprocess.Popen([sys.executable, "-m", "p2pnimmt", "join", match.group(1), "--headless",
                                               "--name", name, "--interface", "127.0.0.1", "--give-up", "10"],
                                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
                       for name in ("bob", "carl")}
            kept_out = False
            for name, friend in friends.items():
                said = friend.communicate(timeout=120)[0].strip().splitlines()
                print(f"the real {name}'s join CODE-KEY: exit {friend.returncode}: {said[-1] if said else ''}")
                kept_out = kept_out or friend.returncode != 0
            seated = re.search(r"game started: (.*)", out.read_text())
            print("the host: " + (seated.group(0) if seated else "no game started"))
            squatted = "seated" in answers or kept_out
        finally:
            for link in links:
                link.close()
            host.terminate()
            try:
                host.wait(20)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait()
        print(f"\na stranger took a seat or kept a friend out: {squatted}")
        return 1 if squatted else 0


if __name__ == "__main__":
    sys.exit(main())

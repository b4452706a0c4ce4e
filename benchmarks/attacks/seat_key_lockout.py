"""FINDING (session 40, redteam): a stranger who holds no seat key locks every newcomer out of a game by spending the
wrong-seat-key count of more addresses than the host counts apart (protocol.md 14, "Bounds": 1,024 addresses apart,
an address forgotten only once its burst is whole again, and while none can be, the addresses past them share one
burst). Its wrong proofs cost it nothing (random 32 bytes: it computes no scrypt, it guesses nothing), yet once the
one address least lately charged is short of tries and the shared burst is spent, a join from any address the host
does not count apart yet is refused unchecked ("too many wrong seat keys from too many addresses") — an honest
newcomer from a fresh address with the right key too.

A reproduction: a headless host (3 seats, nobody joins, on 127.0.0.1), and a stranger (no key) that dials it from
loopback addresses (as the machines of a large LAN): 8 random proofs from 127.6.0.1 (its burst spent: it is whole
again only after 80 s, and while it is the least lately charged and short, no address counted apart is forgotten),
one from each of 1,023 more (127.6.x.y), then random proofs from further addresses (127.7.x.y) until the host refuses
them unchecked (the shared burst spent). Then two honest newcomers from addresses of their own, each proving the
right key on its own link: one as a person who typed the code (CODE-KEY), one who opened the host's invite link
(its seat key, and since session 40 its link secret, protocol.md 14, "The link secret"). It prints what the host
answered each and exits 1 while the invite link's newcomer is refused (the lockout), 0 when it is admitted.

Before session 40 both newcomers were refused unchecked. Now the link's newcomer proves the link's 128-bit secret,
which the host always checks (guessing it is hopeless, so it is never counted nor refused unchecked); the newcomer
who typed the code is still refused while the shared burst is spent, and told to open the invite link or scan the
QR code.

    python benchmarks/attacks/seat_key_lockout.py
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-lo{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from attacker import Attacker  # noqa: E402
from hosted import answer, from_every, headless_host, wrong_seat_key  # noqa: E402

from p2pnimmt.net.invite import parse_link  # noqa: E402
from p2pnimmt.net.seatdoor import WRONG_ADDRESSES, WRONG_BURST  # noqa: E402
from p2pnimmt.protocol import seatkey  # noqa: E402


def honest(port: int, source: str, name: str, seat_key: str, link_secret: bytes | None) -> tuple[str, object]:
    """A newcomer from `source` proving the right seat key (and the link's secret, where it has one) on its link."""
    link = Attacker.dial(port, source=source)
    try:
        payload: dict[str, Any] = {"name": name, "role": "player", "bot": False, "port": 1}
        ours, theirs = link.nonces
        secret = seatkey.seat_secret(link.game_id, seat_key)
        payload["proof"] = seatkey.join_proof(secret, link.game_id, ours, theirs, link.identity.public_key)
        if link_secret is not None:
            payload["link_proof"] = seatkey.link_proof(link_secret, link.game_id, ours, theirs,
                                                       link.identity.public_key)
        link.send("join", payload)
        return answer(link)
    finally:
        link.close()


def said(got: tuple[str, object]) -> str:
    kind, payload = got
    return "admitted (the host's lobby names it)" if kind == "lobby" else f"{kind}: {payload}"


def main() -> int:
    with TemporaryDirectory() as tmp, headless_host(tmp, "--seats", "3") as (host, seat_key, port):
        invite = parse_link(re.search(r"invite link: (\S+)", host.text()).group(1))
        link_secret = getattr(invite, "link_secret", None)
        began = time.monotonic()
        answers: Counter[str] = Counter()
        for _ in range(int(WRONG_BURST)):
            answers[wrong_seat_key(port, "127.6.0.1")] += 1
        lock = threading.Lock()

        def spend(source: str) -> None:
            got = wrong_seat_key(port, source)
            with lock:
                answers[got] += 1
        from_every([f"127.6.{i // 250}.{1 + i % 250}" for i in range(1, WRONG_ADDRESSES)], spend)
        pooled = 0
        while True:  # the addresses past those counted apart, until the host refuses them unchecked
            got = wrong_seat_key(port, f"127.7.{pooled // 250}.{1 + pooled % 250}")
            answers[got] += 1
            pooled += 1
            if got != "wrong" or pooled > 4 * WRONG_BURST:
                break
        took = time.monotonic() - began
        print(f"the stranger (no seat key, no scrypt: random proofs) sent {sum(answers.values())} joins from "
              f"{WRONG_ADDRESSES + pooled} addresses in {took:.1f} s: {dict(answers)}")
        typed = honest(port, "127.0.0.8", "bob", seat_key, None)
        print(f"a newcomer from 127.0.0.8 who typed the code with its seat key: {said(typed)}")
        linked = honest(port, "127.0.0.9", "carl", seat_key, link_secret)
        print(f"a newcomer from 127.0.0.9 who opened the host's invite link"
              f"{' (its seat key and link secret)' if link_secret else ' (its seat key: the link has no secret)'}: "
              f"{said(linked)}")
        alive = host.popen.poll() is None
    locked = linked[0] != "lobby"
    print(f"the host {'kept running' if alive else 'exited'}; the newcomers locked out: {locked}")
    return 1 if locked else 0


if __name__ == "__main__":
    sys.exit(main())

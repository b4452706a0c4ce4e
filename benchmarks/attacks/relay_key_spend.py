"""FINDING (session 34's residual, protocol.md 14), CLOSED in session 35 by the relay's own check of its pages' joins
(protocol.md 14, "The seat key": *A phone relay checks its pages' joins*): a stranger who read a phone relay's token
off the LAN kept every new phone page behind that relay out of the lobby, while it went on guessing the seat key.
A reproduction: it prints what the host (or the relay) answered the stranger's joins and the honest page's, and
exits 1 while the honest page is kept out (0 now: the lockout is closed).

How it was: a phone page's links reach the host from its relay node's address (the relay dials the host for the
page: web.relay), and every member's relay, with its token, is in the host's lobby frames, which are not encrypted
on the LAN. The stranger (127.0.0.2 here) opens a tunnel at a member's relay with that token (bob's: `join CODE-KEY
--web`), dials the host through it and joins with guessed keys: the host charged each wrong proof to the address it
came from, the relay node's (127.0.0.1 here), and after 8 of them refused every join from that address unchecked
("too many wrong seat keys from this address") — a new honest phone page behind bob's relay too (127.0.0.3 here,
with the right key), for as long as the stranger kept guessing at one try each 10 s.

How it is closed: bob's node holds the seat key (it joined with it) and sees the page's links whole (links are not
encrypted): it reads the two hellos and the page's join, checks the proof before a byte of the join goes on, and
charges a wrong one to the page's own address (the WebSocket's peer) with the host's bound. So the stranger's
wrong proofs never reach the host, its own address is spent at the relay (its 9th join there is refused unchecked,
the right key too), and the honest page from its own address takes a seat. tests/web/test_relay_seat_key.py
asserts the same, with a real phone (Chromium) too.

    python benchmarks/attacks/relay_key_spend.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from procs import Proc  # noqa: E402
from tunnel_page import TunnelPage, wrong_key  # noqa: E402

from p2pnimmt.protocol.seatkey import seat_secret  # noqa: E402

LO = ["--interface", "127.0.0.1"]
GUESSES = 12  # the stranger's wrong keys: past the host's burst of 8


def said(answer: tuple[str, object]) -> str:
    kind, payload = answer
    if kind == "lobby" and isinstance(payload, dict):
        return "seated (the host's lobby names it)"
    return f"{kind}: {payload}"


async def attack(phone_url: str, right: str) -> bool:
    stranger = await TunnelPage.open(phone_url, "127.0.0.2")
    honest = None
    try:
        for n in range(GUESSES):
            await asyncio.to_thread(seat_secret, stranger.game, wrong_key(right, n))
        print(f"the stranger (127.0.0.2) opened a tunnel at bob's relay with its token and joins with {GUESSES} "
              "guessed keys:")
        for n in range(GUESSES):
            print(f"  guess {n + 1}: {said(await stranger.join(wrong_key(right, n)))}")
        print(f"  then the right key: {said(await stranger.join(right))}")
        honest = await TunnelPage.open(phone_url, "127.0.0.3")
        answer = await honest.join(right, name="cleo")
        print(f"a new honest phone page (127.0.0.3, the right key) behind bob's relay: {said(answer)}")
        return answer[0] != "lobby"
    finally:
        await stranger.close()
        if honest is not None:
            await honest.close()


def main() -> int:
    with TemporaryDirectory() as tmp:
        env = {"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp, "HOME": tmp}
        outs = {name: Path(tmp) / f"{name}.out" for name in ("ann", "bob")}
        started = []
        try:
            started.append(Proc(["host", "--headless", "--seats", "5", "--name", "ann", *LO, "--rounds", "1",
                                 "--no-points"], outs["ann"], env=env))
            code = started[0].wait_for(r"code: (\w{4}-\w{4})", 60).group(1)
            started.append(Proc(["join", code, "--web", "--no-open", "--name", "bob", *LO], outs["bob"], env=env))
            phone_url = started[1].wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=[\w-]+\S*)", 60).group(1)
            kept_out = asyncio.run(attack(phone_url, code.split("-")[1]))
        finally:
            for proc in started:
                proc.stop()
        print(f"\na stranger with a relay's token kept a new phone page out: {kept_out}")
        return 1 if kept_out else 0


if __name__ == "__main__":
    sys.exit(main())

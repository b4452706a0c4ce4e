"""FINDING (session 35, redteam), fixed in session 35: the bound on wrong seat keys (protocol.md 14, "Bounds": per address, for the
evening, a burst of 8, then one each 10 s, "the newest 1,024 addresses" remembered) does not hold for a stranger
with more than 1,024 addresses: the host forgets the oldest address it counts once a new one comes past 1,024,
and a forgotten address has a fresh burst of 8. Cycling over 1,025 addresses or more, every address is always
forgotten before it comes round again: every guess is checked, the bound is gone, and guessing the 20-bit key is
held back only by the stranger's own scrypt per candidate key and the host's handshakes (measured before: 1,100
addresses, 12 rounds, 13,200 guesses checked in 24 s, 553 a second, each address 12 against its bound of 10.1).

Now (p2pnimmt/net/seatdoor.py, SeatDoor._of) an address is forgotten only once it has all its tries again, and
while none of the 1,024 counted apart can be forgotten, the addresses past them share one burst of their own
("too many wrong seat keys from too many addresses"): the same run has 8,200 guesses checked (1,024 x 8 and the
shared 8) and every other (5,000) refused unchecked; tests/net/test_seat_squat.py keeps it so.

A reproduction: a headless host (3 seats, nobody joins, on 127.0.0.1), and a stranger without the key that dials
it from ADDRESSES loopback addresses (127.3.0.0 on: as many machines of a large LAN) in ROUNDS rounds, one wrong
seat key from each address each round (a proof that does not hold: to the host, a guess; a real stranger pays one
scrypt per candidate key for it, which a machine of many cores or a GPU pays quickly). It counts, for each
address, the joins the host CHECKED ("wrong seat key") and those it refused unchecked ("too many wrong seat
keys"), prints them and the host's rate of checked guesses, and exits 1 if any address had more guesses checked
than the bound allows it (8, plus one each 10 s since its first), 0 when the bound holds.

    python benchmarks/attacks/seat_key_guess.py [ADDRESSES] [ROUNDS]
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-sk{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from hosted import from_every, headless_host, wrong_seat_key  # noqa: E402

from p2pnimmt.net.seatdoor import WRONG_BURST, WRONG_EVERY  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402


def addresses(n: int) -> list[str]:
    return [f"127.3.{i // 250}.{1 + i % 250}" for i in range(n)]


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1100
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    sources = addresses(n)
    with TemporaryDirectory() as tmp, headless_host(tmp, "--seats", "3") as (host, _key, port):
        me = Identity.generate()
        checked: Counter[str] = Counter()
        answers: Counter[str] = Counter()
        first: dict[str, float] = {}
        over: dict[str, tuple[int, float]] = {}
        lock = threading.Lock()
        began = time.monotonic()

        def guess(source: str) -> None:
            said = wrong_seat_key(port, source, me)
            with lock:
                first.setdefault(source, time.monotonic())
                answers[said] += 1
                if said == "wrong":
                    checked[source] += 1
                    allowed = WRONG_BURST + (time.monotonic() - first[source]) / WRONG_EVERY
                    if checked[source] > allowed + 1:
                        over[source] = (checked[source], allowed)
        for r in range(rounds):
            from_every(sources, guess)
            print(f"round {r + 1}: {sum(checked.values())} guesses checked so far, {dict(answers)}")
        took = time.monotonic() - began
        alive = host.popen.poll() is None
    total = sum(checked.values())
    print(f"\n{n} addresses, {rounds} rounds in {took:.0f} s: {total} wrong seat keys checked by the host "
          f"({total / took:.0f} a second; the bound allows at most {min(n, 1024) * WRONG_BURST + n / WRONG_EVERY * took:.0f} "
          f"in all); the host {'kept running' if alive else 'exited'}")
    if over:
        print(f"at this rate the half of the 2^20 seat keys is checked in {2 ** 19 / (total / took) / 60:.0f} "
              "minutes (plus the stranger's scrypt per key)")
        source, (got, allowed) = next(iter(over.items()))
        print(f"over the bound at {len(over)} of {n} addresses: {source} had {got} guesses checked, "
              f"the bound allows it {allowed:.1f}")
    print(f"\nthe bound on wrong seat keys failed: {bool(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

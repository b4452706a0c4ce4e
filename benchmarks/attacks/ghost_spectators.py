"""FINDING (session 35, redteam), fixed in session 35: a spectator whose join was refused stayed a member.

The host refuses a join on a member's own link too (a join again without the seat key's proof, a spectator asking
for a seat once the game has started, a malformed one): it closed the link, but said nothing to its lobby, so a
spectator refused so stayed listed to everyone and counted against MAX_SPECTATORS (32) for the rest of the game.
Someone with the seat key (a friend misbehaving, or whoever saw the host's screen) joined 32 times with fresh keys,
each time sending a second join without a proof, and hung up: no connection held, and every later watcher (a TV, a
phone) was refused, "too many spectators (32)". An honest watcher who asked for a seat after the start also stayed
listed as watching after it had gone.

A reproduction with a real headless host on 127.0.0.1: 40 such spectators, then one more watcher. It prints what
the host answered the watcher and who its lobby lists, and exits 1 if the watcher was refused or a ghost is listed
(0 now: net.lobby.Lobby.refuse lets the member go as one that hangs up).

    python benchmarks/attacks/ghost_spectators.py
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-gh{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from attacker import Attacker  # noqa: E402
from hosted import answer, headless_host  # noqa: E402

from p2pnimmt.net.lobby import MAX_SPECTATORS  # noqa: E402


def main() -> int:
    with TemporaryDirectory() as tmp, headless_host(tmp, "--seats", "3") as (_host, key, port):
        made = 0
        for k in range(MAX_SPECTATORS + 8):
            link = Attacker.dial(port)
            try:
                link.join("spectator", name=f"ghost{k}", seat_key=key)
                if answer(link)[0] == "refuse":
                    continue  # the ghosts already fill the places
                link.send("join", {"name": f"ghost{k}", "role": "spectator", "bot": False, "port": 1})
                link.until("refuse")
                made += 1
            finally:
                link.close()
        print(f"{made} spectators joined with the key, each refused on a second join without it")
        watcher = Attacker.dial(port)
        try:
            watcher.join("spectator", name="tv", seat_key=key)
            kind, payload = answer(watcher)
        finally:
            watcher.close()
    if kind == "refuse":
        print(f"the host to the next watcher: refused: {payload}")
        ghosts = True
    else:
        assert isinstance(payload, dict)
        names = [m["name"] for m in payload["members"]]
        print(f"the host to the next watcher: admitted; its lobby lists {len(names)}: {', '.join(names[:8])}"
              + (" ..." if len(names) > 8 else ""))
        ghosts = any(name.startswith("ghost") for name in names)
    print(f"\nghost spectators kept: {ghosts}")
    return 1 if ghosts else 0


if __name__ == "__main__":
    sys.exit(main())

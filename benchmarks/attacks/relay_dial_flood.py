"""FINDING (red team, session 35), CLOSED in the same session by the relay's bounds on its dials (web.dialbound;
protocol.md 14, Bounds: "dials a phone relay makes for its pages"): a stranger holding a phone relay's token had the
host shut the relay node's address out, keeping that node's own player and every phone behind its relay out.

How it was: the relay's token is read by anyone (a member's `relay` in the host's lobby frames, which are not
encrypted; the TV's QR code). With it the stranger opens tunnels at the relay and has it dial the host as fast as
it likes. The host's door (net.door) counts the connections it waits on per address: past 16 from the relay node's
address (a player's laptop) it resets each, and after 256 resets within 2 s it shuts that address out for 60 s in
the kernel. Then a new phone page's dial through the relay is not answered, nor is a redial of the relay node's own
player, nor a new player's from that address.

How it is closed: the relay bounds the dials of pages that hold no seat (a burst then a rate, per tunnel, per page
address and over all; and at most 8 opening at one address at once, half the door's 16), refusing in words the page
shows; the host never resets a connection of the relay node's for them. And a node's door never shuts out the
address of its host, a player or a member that relays pages (net.door `spared`; tests/lan/test_door_spares_members.py).
Figures (2-core machine, one run each): before, 328 dials in 4 s, bob's address shut out, the new page "cannot
connect", dave "no answer within 5 s"; now 37,513 dials asked, 37,440 refused at the relay, none reset at the host,
the new page seated 0.4 s after it dialled (during the flood), dave seated.

A reproduction in network namespaces (the door does not count connections from its own address, so the relay node
must be elsewhere; root needed): the host (ann) in one, bob (`join --web`, the relay) in another, where the stranger
floods bob's relay for 4 s; then a new phone page joins through bob's relay, and dave joins from bob's address.
Exits 1 while the host shuts bob's address out or either is kept out, 0 when closed.

    sudo python benchmarks/attacks/relay_dial_flood.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "lan"), str(ROOT / "tests")]

from conftest import Lan, namespaces  # noqa: E402  (tests/lan's: namespaces of this run, always removed)
from relay_flood import scenario  # noqa: E402


def main() -> int:
    if os.geteuid() != 0:
        print("needs root (network namespaces)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": tmp, "XDG_CONFIG_HOME": tmp, "XDG_RUNTIME_DIR": tmp,
               "HOME": tmp}
        lan = Lan(2, Path(tmp))
        try:
            lan.build()
            found = scenario(lan, env)
        finally:
            left = lan.teardown()
        assert not left and not [n for n in namespaces() if n.startswith(lan.id)], left
    print(json.dumps(found, indent=1))
    open_ = bool(found["shut_out"]) or found["honest_page"] != "seated" or found["dave"] != "seated"
    print(f"\na stranger with a relay's token had the relay node's address shut out or its pages kept out: {open_}")
    return 1 if open_ else 0


if __name__ == "__main__":
    sys.exit(main())

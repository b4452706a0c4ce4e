"""A node's door never shuts out the address of a member it must take dials from (net.door: `spared`, Node.members_at;
red team, session 35): a stranger who shares a player's address (one NAT in front of both; here: the same network
namespace) and floods the host's port has its connections reset one by one, not the address shut out in the kernel,
so a new player from that address joins once the flood stops (shut out, it was kept out for 60 s).

The host and the player must be at different addresses (the door does not count connections from the address it
was dialled at): each in a network namespace of its own (tests/lan/conftest.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from procs import game_of

FLOOD = Path(__file__).with_name("door_flood.py")


def test_a_flood_from_a_players_address_does_not_get_it_shut_out(make_lan) -> None:
    lan = make_lan(2)
    host = lan.start(1, ["host", "--headless", "--seats", "5", "--name", "ann", "--rounds", "1", "--no-points",
                         "--give-up", "0"], "host")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(rf"listening on {re.escape(lan.addr(1))}:(\d+)").group(1)
    bob = lan.start(2, ["join", code, "--headless", "--name", "bob", "--give-up", "0"], "bob")
    bob.wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+", timeout=30)
    host.wait_for(r"bob", timeout=10)
    run = subprocess.run(["ip", "netns", "exec", lan.ns(2), sys.executable, str(FLOOD), lan.addr(1), port, "4"],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    flood = json.loads(run.stdout.strip().splitlines()[-1])
    assert flood.get("reset", 0) >= 256, flood  # a flood the door would have shut out
    text = host.text()
    assert not re.search(rf"shut out {re.escape(lan.addr(2))} ", text), text
    assert re.search(rf"not shutting out {re.escape(lan.addr(2))}: .*a member of the game is at that address", text)
    dave = lan.start(2, ["join", code, "--headless", "--name", "dave", "--give-up", "30"], "dave")
    dave.wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+", timeout=20)

"""A host's lobby frames stay within what its members take (session-45 review): since session 45 a member counts
every frame but a `msg` from a link as an ask (a burst of 64, then 20 a second, protocol.md 14 "Bounds"), the host's
`lobby` frames included, and a host sends one to every member at each change of the lobby. A stranger with the
game's code coming and going as a spectator (a join, then its link gone: two changes) made the host send lobby frames
to every member as fast as it churned; past the budget a member ignored them (a stale lobby), past the slack it
counted them as bad messages and cut its host. Now a host sends at most 4 lobby frames a second (the last one the
lobby as it is then). A real `p2pnimmt host` on 127.0.0.1."""

from __future__ import annotations

import time
from pathlib import Path

from attacker import LOOPBACK, Attacker
from procs import code_of, seat_key_of

from p2pnimmt.net.connection import Asks
from p2pnimmt.protocol.probe import PROBE_NONCE

CHURNS = 120


def hosted_with_bob(tmp_path: Path, procs, seats: int) -> tuple[int, str, Attacker]:
    """ann hosts `seats` seats on 127.0.0.1 (a real `p2pnimmt host`); bob, a raw member, has a seat and its first
    lobby frame. (ann's port, its seat key, bob)"""
    ann = procs(["host", "--headless", "--seats", str(seats), "--interface", LOOPBACK, "--name", "ann",
                 "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    key = seat_key_of(code_of(tmp_path / "ann.out"))
    bob = Attacker.dial(port)
    bob.join("player", name="bob", seat_key=key)
    bob.lobby()
    return port, key, bob


def test_a_spectators_churn_stays_within_a_members_asks(tmp_path: Path, procs) -> None:
    port, key, bob = hosted_with_bob(tmp_path, procs, 3)  # bob: the honest member whose link counts what ann sends
    began = time.monotonic()
    for n in range(CHURNS):  # a stranger comes and goes, each time under a new key
        tv = Attacker.dial(port)
        tv.join("spectator", name=f"tv{n}", seat_key=key)
        tv.close()
    elapsed = time.monotonic() - began
    lobbies = []  # what the host sent bob, up to the last lobby, which names no tv
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lobbies += [f for f in bob.frames_waiting() if f[0] == "lobby"]
        if lobbies and not any(m["name"].startswith("tv") for m in lobbies[-1][1]["members"]):
            break
        time.sleep(0.05)
    took = time.monotonic() - began
    assert lobbies and not any(m["name"].startswith("tv") for m in lobbies[-1][1]["members"]), \
        "the last lobby frame bob got still shows a spectator who left"
    assert len(lobbies) <= Asks.BURST + Asks.PER_SECOND * took, \
        f"{len(lobbies)} lobby frames in {took:.1f} s ({CHURNS} comings and goings in {elapsed:.1f} s): past a member's asks"
    bob.close()


def lobbies_until_probed(link: Attacker, timeout: float = 10.0) -> list[dict]:
    """The lobby frames `link` is sent up to the answer to a probe it sends now (the host answers a probe at once:
    what it sent the link before is all in)."""
    link.send("probe", bytes(PROBE_NONCE))
    link.sock.settimeout(timeout)
    lobbies = []
    while (got := link.read_frame())[0] != "probed":
        if got[0] == "lobby":
            lobbies.append(got[1])
    return lobbies


def test_a_joiner_is_sent_the_lobby_that_admits_it_once(tmp_path: Path, procs) -> None:
    """A joiner's answer goes at once, the others' lobby within ANNOUNCE_EVERY (protocol.md 14, "Bounds"): before
    session 46 the joiner was sent the same lobby again with the others (two frames of its budget for one change).
    carol joins, then dave as soon as carol is in (dave's lobby to the others waits for the quarter second): each is
    sent one lobby that names it, carol one more naming dave. A real `p2pnimmt host` on 127.0.0.1."""
    port, key, bob = hosted_with_bob(tmp_path, procs, 5)  # bob: a member who sees each change go to the others
    carol, dave = Attacker.dial(port), Attacker.dial(port)
    carol.join("player", name="carol", seat_key=key)
    assert "carol" in names(carol.lobby())
    dave.join("player", name="dave", seat_key=key)
    while "dave" not in names(bob.lobby()):  # the others' lobby that names dave has gone
        pass
    to_dave = lobbies_until_probed(dave)
    to_carol = lobbies_until_probed(carol)
    assert [names(lobby) for lobby in to_dave] == [["ann", "bob", "carol", "dave"]], "dave's lobby, not once"
    assert [names(lobby) for lobby in to_carol] == [["ann", "bob", "carol", "dave"]], "carol: the lobby naming dave"
    for link in (bob, carol, dave):
        link.close()


def names(lobby: dict) -> list[str]:
    return [m["name"] for m in lobby["members"]]

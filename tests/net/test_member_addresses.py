"""A member's own addresses (issue 27 item 2, protocol.md 14): what a `join` and a lobby member may carry, and
the order a player dials another in."""

from __future__ import annotations

import pytest

from p2pnimmt.net.members import MAX_ADDRESSES, member_from, this_machine

BASE = {"key": bytes(32), "name": "bob", "role": "player", "bot": False, "host": "10.0.0.7", "port": 4001}


def test_a_member_without_addresses_has_none_and_is_dialled_where_the_host_saw_it() -> None:
    member = member_from(BASE)
    assert member is not None and member.addresses == () and member.dial_at() == ["10.0.0.7"]
    assert member.as_dict()["addresses"] == []


def test_a_member_is_dialled_where_the_host_saw_it_then_at_the_addresses_it_gave() -> None:
    member = member_from({**BASE, "addresses": ["100.64.0.7", "10.0.0.7", "fd7a:115c:a1e0::7"]})
    assert member is not None
    assert member.dial_at() == ["10.0.0.7", "100.64.0.7", "fd7a:115c:a1e0::7"]  # each once, the host's view first
    assert member_from(member.as_dict()) == member  # as the lobby frame carries it
    unseen = member_from({**BASE, "host": "", "addresses": ["100.64.0.7"]})
    assert unseen is not None and unseen.dial_at() == ["100.64.0.7"]


OWN_MACHINE = ["127.0.0.1", "127.9.8.7", "0.0.0.0", "::1", "0:0:0:0:0:0:0:1", "::", "::ffff:127.0.0.1", "::ffff:0.0.0.0"]
ELSEWHERE = ["192.168.1.20", "10.0.0.1", "100.64.0.7", "fd7a:115c:a1e0::7", "::ffff:192.168.1.2", "fe80::1", "1.127.0.0"]


def test_a_loopback_address_a_member_gives_is_never_dialled_where_the_host_saw_it_it_is() -> None:
    """protocol.md 14: an honest join leaves loopback out; one given anyway is the dialler's own machine (red team,
    session 29: a stranger's spectator join made the phone relay dial 127.0.0.1 at a port of its choosing;
    tests/web/test_relay_strangers.py). Where the host saw a member on loopback, that member is on its machine:
    dialled there. The same cases as web/peer/test/tunnel.test.ts (thisMachine)."""
    assert all(this_machine(a) for a in OWN_MACHINE) and not any(this_machine(a) for a in ELSEWHERE)
    member = member_from({**BASE, "addresses": [*OWN_MACHINE[:3], "100.64.0.7", *OWN_MACHINE[5:]]})
    assert member is not None and member.dial_at() == ["10.0.0.7", "100.64.0.7"]
    local = member_from({**BASE, "host": "127.0.0.1", "addresses": ["127.0.0.2"]})
    assert local is not None and local.dial_at() == ["127.0.0.1"]


@pytest.mark.parametrize("addresses", ["10.0.0.7", ["10.0.0.300"], ["ann-laptop"], [""], [7], None,
                                       ["\x1b[2J"], ["10.0.0.1"] * (MAX_ADDRESSES + 1)])
def test_a_member_with_anything_but_a_short_list_of_ip_addresses_is_malformed(addresses: object) -> None:
    assert member_from({**BASE, "addresses": addresses}) is None


def test_a_members_relay_is_kept_as_the_lobby_carries_it_and_one_not_of_its_form_left_out() -> None:
    """protocol.md 14, a member's `relay` (issue 26): where its node relays phone pages, [IP address, port, token];
    a phone page whose relay node left goes on through it. One not of that form is left out, the member kept."""
    member = member_from({**BASE, "relay": ["10.0.0.7", 8080, "sOkDAGI8cRthj26QeOzY63Lu"]})
    assert member is not None and member.relay == ("10.0.0.7", 8080, "sOkDAGI8cRthj26QeOzY63Lu")
    assert member.as_dict()["relay"] == ["10.0.0.7", 8080, "sOkDAGI8cRthj26QeOzY63Lu"]
    assert member_from(member.as_dict()) == member
    assert "relay" not in member_from(BASE).as_dict()  # a member without one: the frame as before issue 26
    for relay in (["ann-laptop", 8080, "sOkDAGI8cRthj26QeOzY63Lu"], ["10.0.0.7", 0, "sOkDAGI8cRthj26QeOzY63Lu"],
                  ["10.0.0.7", 8080, "short"], ["10.0.0.7", 8080, "a/b?c=d&e=fghijklmnop"], ["10.0.0.7", "80", "x" * 24],
                  ["10.0.0.7", 8080], "http://10.0.0.7:8080/phone?t=x", 7):
        kept = member_from({**BASE, "relay": relay})
        assert kept is not None and kept.relay is None, relay


async def test_a_seat_tells_the_host_where_it_reached_a_player_and_a_bad_report_is_one_line(caplog) -> None:
    """protocol.md 14, `seen`: a seat's report (here a raw seat: the attacker's socket, which joined and has a
    seat of the START) adds the address to those the host would dial the player at, after the host's own
    view and the player's join; a report that is not [[a seat's peer id, [one IP address]], ...] is ignored,
    with one line for the link, however many come."""
    import asyncio

    from attacker import Attacker

    from p2pnimmt.engine import Settings
    from p2pnimmt.net.node import Node
    from p2pnimmt.protocol.identity import Identity

    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    bob = Node(Identity.generate(), name="bob", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await bob.listen()
    await host.host(Settings(players=3, deal="open"))
    try:
        bob.seat_key = host.seat_key  # what the host's screen shows (protocol.md 14, "The seat key")
        await bob.join("127.0.0.1", host.port)
        mallory = await asyncio.to_thread(Attacker.dial, host.port)
        await asyncio.to_thread(mallory.join, "player", seat_key=host.seat_key)  # a seat: it has the key
        deadline = asyncio.get_running_loop().time() + 30
        while host.session.start is None:  # the three seats: START
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        seen = host.mesh.seen
        bad = ["x", [[bob.identity.peer]], [[bob.identity.peer, ["ann_laptop"]]],
               [[bob.identity.peer, ["10.0.0.1", "10.0.0.2"]]], [[Identity.generate().peer, ["10.0.0.1"]]]]
        for report in bad:
            await asyncio.to_thread(mallory.send, "seen", report)
        await asyncio.to_thread(mallory.send, "seen", [[bob.identity.peer, ["127.0.0.9"]],
                                                       [mallory.identity.peer, ["127.0.0.8"]]])
        while seen.addresses_of(bob.identity.peer) != ["127.0.0.9"]:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        assert seen.addresses_of(mallory.identity.peer) == []  # a seat's word about itself is not taken
        assert host.mesh.player_addresses(bob.identity.peer)[-1] == ("127.0.0.9", bob.port)
        said = [r.getMessage() for r in caplog.records if "ignored a seen frame" in r.getMessage()]
        assert len(said) == 1 and "a report is a list of at most 3 players" in said[0], said  # the first bad one
        mallory.close()
    finally:
        await bob.close()
        await host.close()


async def test_the_host_keeps_a_members_relay_only_at_the_address_it_sees_the_member_at() -> None:
    """protocol.md 14, a member's `relay` (session 39): phone pages open their tunnels at the relays the lobby names,
    so a member may name one only on its own machine, where the host sees it. One naming another address (someone
    else's machine, which a phone page would then dial) is admitted without it; one at its own address keeps it."""
    import asyncio

    from attacker import Attacker

    from p2pnimmt.engine import Settings
    from p2pnimmt.net.node import Node
    from p2pnimmt.protocol.identity import Identity

    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    token = "sOkDAGI8cRthj26QeOzY63Lu"
    try:
        named, links = {}, []  # (a spectator whose link closes is no member any more)
        for name, address in (("mal", "10.0.0.7"), ("eve", "::ffff:127.0.0.2"), ("tv", "127.0.0.1"),
                              ("tom", "::ffff:127.0.0.1")):
            link = await asyncio.to_thread(Attacker.dial, host.port)
            await asyncio.to_thread(link.join, "spectator", name, 1, host.seat_key, [address, 8080, token])
            named[link.identity.public_key] = name
            members = (await asyncio.to_thread(link.lobby))["members"]
            while not any(m["key"] == link.identity.public_key for m in members):
                members = (await asyncio.to_thread(link.lobby))["members"]
            links.append(link)
        relays = {named[m.key]: m.relay for m in host.members.values() if m.key in named}
        assert relays == {"mal": None, "eve": None, "tv": ("127.0.0.1", 8080, token),
                          "tom": ("::ffff:127.0.0.1", 8080, token)}, relays
        for link in links:
            link.close()
    finally:
        await host.close()


@pytest.mark.parametrize("port", [0, -5, 65536, 70000, True, 4001.0])
def test_a_join_or_member_whose_port_is_no_port_is_malformed(port: object) -> None:
    """protocol.md 14: a member's `port` is an integer 1..65535 (since session 45: any integer was taken, and every
    node's dial of a player that named 70000 ended in an OverflowError its dial loop did not take, the mesh's task
    for that player gone)."""
    assert member_from({**BASE, "port": port}) is None
    assert member_from({**BASE, "port": 1}) is not None and member_from({**BASE, "port": 65535}) is not None

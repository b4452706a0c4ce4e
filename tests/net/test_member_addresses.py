"""A member's own addresses (issue 27 item 2, protocol.md 14): what a `join` and a lobby member may carry, and
the order a player dials another in."""

from __future__ import annotations

import pytest

from p2pnimmt.net.members import MAX_ADDRESSES, member_from

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


@pytest.mark.parametrize("addresses", ["10.0.0.7", ["10.0.0.300"], ["ann-laptop"], [""], [7], None,
                                       ["\x1b[2J"], ["10.0.0.1"] * (MAX_ADDRESSES + 1)])
def test_a_member_with_anything_but_a_short_list_of_ip_addresses_is_malformed(addresses: object) -> None:
    assert member_from({**BASE, "addresses": addresses}) is None

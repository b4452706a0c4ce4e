"""A stranger holding a phone relay's token cannot have the host shut the relay node's address out (red team,
session 35; benchmarks/attacks/relay_dial_flood.py): the relay bounds the dials of its unseated pages
(web.dialbound), so the host's door never counts 256 refusals of that address within 2 s, and a new phone page
behind the relay (while the flood goes on), and a new player from the relay node's address, join after the flood.

The relay node must be at another address than the host (the door does not count connections from the address it
was dialled at): the host in one network namespace, the relay node in another (tests/lan/conftest.py)."""

from __future__ import annotations

from relay_flood import scenario


def test_stranger_with_relay_token_cannot_get_relay_address_shut_out(make_lan) -> None:
    lan = make_lan(2)
    found = scenario(lan, seconds=4.0)
    assert found["shut_out"] == "", found
    assert found["host_refused"] == [], found  # not one connection of the relay node's reset at the host's door
    refused = found["stranger"].get("refused by the relay", 0)
    assert refused > found["stranger"].get("opened", 0), found  # the relay said no to most, in its own words
    assert found["honest_page"] == "seated", found
    assert found["dave"] == "seated", found

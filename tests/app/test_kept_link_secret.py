"""What a resumed node takes from its secrets file (app.resume): the evening's link secret (protocol.md 14, "The
link secret") as it kept it, a host whose secrets predate it a fresh one (its links carry one from then on), a
joiner none."""

from __future__ import annotations

from p2pnimmt.app.resume import kept_link_secret
from p2pnimmt.protocol.seatkey import LINK_SECRET_SIZE


def test_a_resumed_node_keeps_its_link_secret_and_a_host_without_one_draws_one() -> None:
    secret = bytes(range(0x40, 0x50))
    for is_host in (True, False):
        assert kept_link_secret({"link_secret": secret.hex()}, is_host) == secret
    assert kept_link_secret({}, False) is None and kept_link_secret({"link_secret": None}, False) is None
    assert kept_link_secret({"link_secret": "zz" * LINK_SECRET_SIZE}, False) is None  # not hex: none kept
    drawn = kept_link_secret({"seat_key": "7Q2K"}, True)
    assert drawn is not None and len(drawn) == LINK_SECRET_SIZE and drawn != kept_link_secret({}, True)

"""A spectator's relay that says a right hello and then lies about the page's dial for its host (review, session 43):
before, a phone page that moved to it in the lobby (its own relay gone) waited on a dial it never answered for ever
(`dial-mute-relay`: no OPENED, no CLOSE) and missed the START, or took its CLOSE that says nothing listens at the
host's address (REFUSED, `dial-refused-relay`) for the host gone and stopped for good. Now a dial unanswered within
DIAL_WITHIN (tunnel.ts: the relay's own dial timeout and a margin) leaves that relay for the next, and "the host is
gone" is believed only from the page's own relay or when a second relay says it.
Real processes on 127.0.0.1: ann hosts (headless, 3 seats, her seat a bot); a TV's node (tv) serves the phone page
and relays it; mal watches, its node's relay one of tests/net/cheat_node.py's; then a second TV (tv2) watches, listed
after mal. The phone takes a seat, tv is killed in the lobby: the page must leave mal's relay, say why, reach tv2's
and play its game."""

from __future__ import annotations

from pathlib import Path

import pytest
from phonerelay import RELAY
from test_web_phone_no_relay import left_in_the_lobby


@pytest.mark.parametrize("kind", ["dial-mute-relay", "dial-refused-relay"])
async def test_a_phone_page_leaves_a_relay_that_lies_about_its_dial(tmp_path: Path, procs, browser, kind: str) -> None:
    why = "it did not answer the dial for the host within 10 s" if kind == "dial-mute-relay" \
        else "it says nothing listens at the host's address, and no other relay says so"
    await left_in_the_lobby(tmp_path, procs, browser, kind, RELAY, f"does not lead to this game's host ({why}")

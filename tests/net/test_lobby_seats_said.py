"""A host's lobby frame whose `seats` is not 2..10 (protocol.md 14, vectors `lobby-members`, `seats`): a joiner keeps
the seats it had, and says so in its log, naming what the host sent (session 46's review: since the bound came in,
the frame's `seats` was dropped without a word, where bad input from the network is said). No honest host sends one:
its `seats` is always its settings' players or its START's, both 2..10."""

from __future__ import annotations

import logging

import pytest

from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity


def lobby(seats: object) -> dict:
    host = Identity.generate()
    return {"state": "lobby", "seats": seats, "members": [
        {"peer": host.peer, "key": host.public_key, "name": "mal", "role": "player", "host": "10.0.0.7", "port": 5000}]}


@pytest.mark.parametrize("seats, said", [(11, "11"), (1, "1"), ("4", "a str"), (10**30, "a int"),
                                         (True, "a bool"), (None, "a NoneType")])
def test_a_lobby_frames_seats_out_of_bounds_are_kept_and_said(seats: object, said: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "p2pnimmt.net")
    me = Node(Identity.generate(), name="cat")
    me.host_address = ("10.0.0.7", 5000)
    me.lobby.mirror(lobby(4))
    assert me.seats == 4 and not any("seats" in r.getMessage() for r in caplog.records)
    me.lobby.mirror(lobby(seats))
    assert me.seats == 4
    lines = [r.getMessage() for r in caplog.records if "lobby frame gives seats" in r.getMessage()]
    assert lines == [f"the host's lobby frame gives seats as {said}, not 2 to 10: kept 4 (from 10.0.0.7)"]

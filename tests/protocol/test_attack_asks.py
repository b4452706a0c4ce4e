"""One seat's ask for the stand-in (STANDIN, protocol.md 11.2) moves nobody: a cheat cannot have a thinking
player's move made for it. The stalled seat's node moves only once every other seat asked, and no seat joins an ask
on its own (an ask is its person's key, never a reaction to another's; unlike a DROP, 11.1, which a seat waiting on
the same seat joins). Pins the defence the session-28 red team tried (benchmarks/attacks/ holds what it found)."""

from __future__ import annotations

import pytest
from test_presence import ask_for, owes, slow_net

from p2pnimmt.protocol.envelope import open_envelope


def standins(net, peer) -> list:
    return [e for e in map(open_envelope, net.sessions[peer].journal.messages) if e.kind == "STANDIN"]


@pytest.mark.parametrize("players, deal, stalled, cheat", [(3, "open", 1, 0), (5, "sealed", 3, 4)])
def test_a_lone_ask_moves_no_thinking_seat(players: int, deal: str, stalled: int, cheat: int) -> None:
    net = slow_net(players, deal, slow=stalled)
    net.start()
    net.run()
    assert owes(net, stalled)
    asker = net.sessions[net.identities[cheat].peer]
    net.handle(net.identities[cheat].peer, asker.ask_stand_in(stalled))
    net.run()
    assert owes(net, stalled)  # its node made no move: one ask of n - 1
    for peer in net.peers:  # every node holds the one ask, and nobody else signed one
        assert [(e.sender, e.body["seat"]) for e in standins(net, peer)] == [(net.identities[cheat].peer, stalled)]
    turn = net.sessions[net.peers[0]].turn
    ask_for(net, stalled)  # now every other seat asks: the node makes the stand-in's move for this turn
    assert not owes(net, stalled) or net.sessions[net.peers[0]].turn != turn

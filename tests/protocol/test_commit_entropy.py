"""A refused commit draws nothing from the session's entropy (protocol.md 11, "Entropy": the nonce is drawn when the
seat commits, and only then; issue 21's review, item 4a).

Two nets alike, but in one the seat first tries commits that are refused (a card it does not hold, a second commit
for the turn): its commit then carries the same nonce as the other net's, so the refusals drew nothing and the
transcripts stay the same bytes (the golden games' draws are unchanged)."""

from __future__ import annotations

import pytest
from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.session import LocalError


def waiting_seat(deal: str) -> tuple[Net, bytes]:
    """A 3-seat net whose seat 0 has no bot: the game waits on its first commit."""
    net = Net(3, seed=5, settings=Settings(players=3, max_rounds=1, deal=deal), shuffle_delivery=False)
    me = net.identities[0].peer
    del net.bots[me]
    net.start()
    net.run()
    assert net.sessions[me].phase == "turn" and net.sessions[me].turn == 0
    return net, me


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_a_refused_commit_draws_no_nonce(deal: str) -> None:
    plain, me = waiting_seat(deal)
    tried, _ = waiting_seat(deal)
    session = tried.sessions[me]
    hand = sorted(session.game.round.hands[0])
    stranger = next(c for c in range(1, 105) if c not in hand)
    with pytest.raises(LocalError):
        session.play(stranger)
    tried.handle(me, session.play(hand[0]))
    with pytest.raises(LocalError):
        session.play(hand[1])  # a second commit for the turn
    plain.handle(me, plain.sessions[me].play(hand[0]))
    assert session.table.plays[(0, 0)] == plain.sessions[me].table.plays[(0, 0)]
    tried.run()
    plain.run()
    assert bytes(tried.transcripts[me]) == bytes(plain.transcripts[me])

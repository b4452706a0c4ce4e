"""A voter expelled by its own second DROP (issue 21): every honest node and every honest transcript end alike.

Seat 3 is cut and voted out; seat 1 cheats as it votes: it signs its DROP of seat 3 twice (a `duplicate`,
protocol.md 12: expelled from the second; its first DROP counts as any, 11.1). Three causes were found, each
pinned below with the example that found it:

- a node that rebuilds (11.1, "A node already past the step") carried its list of expelled seats in from the
  START, so it left out the cheat's messages from before the message that proves the fault; a rebuild finds each
  expulsion again at the message that proves it (protocol.md 11.1, 12);
- between the pass that voids a sealed round and the pass that scores it, a node placed the game at the keys
  (r, 32, 0): a node with the proof dropped the cheat there (a forfeit), and a seat dropped at (r, 32, 1) of a void
  round counted as having left it; a void round waits on nobody's keys (protocol.md 17.9);
- a node still missing a START_ACK aborted for the `duplicate` where the others expelled the cheat: a fault is
  fatal only where a START or a START_ACK proves it, whatever the phase of the node that finds it (protocol.md 12).
"""

from __future__ import annotations

from adversary import Adversary
from harness import Net, expelled_of, outcomes
from hypothesis import HealthCheck, example, given, settings, strategies as st
from sweep import examples
from test_drop import vote_out
from test_drop_consensus import cut_off

CHEAT = 1


def expelled_voter(players: int, deal: str, cut_at: int, delivery: int) -> Net:
    """The net after the game: seat 3 cut and voted out, seat 1 signing its DROP of it twice."""
    net = cut_off(players, deal, 3, cut_at, delivery)
    adv = Adversary(net, CHEAT)
    adv.seq, adv.prev = net.sessions[adv.peer].inbox.head(adv.peer)  # it takes over mid-game: its chain so far

    def twice(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind != "DROP" or adv.fired:
            return None
        adv.fired = True
        return adv.default(env, body) + adv.send("DROP", dict(body))

    adv.rule = twice
    net.cheat = adv  # type: ignore[attr-defined]
    vote_out(net, 3)
    net.heal()
    net.run()
    return net


@settings(max_examples=examples(6, 40), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(4, 5), deal=st.sampled_from(["open", "sealed"]), cut_at=st.integers(60, 250),
       delivery=st.integers(0, 2**16))
# A rebuilding node carried the cheat's expulsion in from the START: the honest seats disagreed on the drops and two
# transcripts ended "before the game does".
@example(players=4, deal="open", cut_at=60, delivery=0)
# A void sealed round placed at its keys before it was scored: the game never finished (it kept rebuilding).
@example(players=5, deal="sealed", cut_at=200, delivery=7)
# Found by this property: a node that lacked a START_ACK aborted for the duplicate where the others expelled.
@example(players=5, deal="open", cut_at=76, delivery=21001)
# No vote at all (the game was over before seat 3 was cut): nobody signs a DROP, nobody is expelled.
@example(players=4, deal="sealed", cut_at=226, delivery=226)
def test_a_voter_expelled_by_its_second_drop_leaves_every_honest_node_agreeing(
        players: int, deal: str, cut_at: int, delivery: int) -> None:
    net = expelled_voter(players, deal, cut_at, delivery)
    found = outcomes(net, expelled_of, but=net.identities[CHEAT].peer, faultless=True)
    assert len(found) == 1, found
    ((phase, result, _dropped, expelled),) = found
    assert phase == "over" and result is not None
    if net.cheat.fired:  # type: ignore[attr-defined]  # (no vote at all when the game ended before the cut)
        assert CHEAT in expelled

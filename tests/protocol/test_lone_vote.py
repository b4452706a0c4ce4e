"""A lone DROP is a claim, not evidence: no seat joins it on sight (protocol.md 11.1, "A seat joins a vote only
by its own policy"; session 27).

Four seats, open deal; seat 1 is a person thinking over its first card (present, its clock not run out), and seat
2, a cheat, signs DROP(0, 2, 1) with its own commit of turn 0, at the step the game waits on seat 1. Before, every
other seat still waiting for seat 1 there joined at once, and seat 1 was dropped before it could move, at every
node, its own included: one misbehaving seat cost an honest one its game. Now nobody joins: seat 1 moves, its
commit voids the cheat's vote (the others go on from it), and the game goes on with seat 1 in it."""

from __future__ import annotations

from adversary import Adversary, AttackNet
from support import short

from p2pnimmt.protocol.phase import Step, turn_steps

CHEAT, THINKER = 2, 1
COMMIT = turn_steps(0)[0]  # the commit step of turn 0, where the game waits on the thinker


def drop_the_thinker(adv: Adversary, env, body):
    if env.kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, 0) and not adv.fired:
        adv.fired = True
        return adv.default(env, body) + adv.send("DROP", {"round": 0, "step": COMMIT, "seat": THINKER})
    return None


def test_a_lone_vote_drops_nobody() -> None:
    net = AttackNet(4, settings=short(4, "standard", rounds=1, deal="open"), bots="heuristic", seed=4)
    thinker = net.identities[THINKER].peer
    bot = net.bots.pop(thinker)  # a person thinking: no move yet
    cheat = Adversary(net, CHEAT, drop_the_thinker)
    honest = [net.identities[s].peer for s in (0, 1, 3)]
    net.start()
    net.run()
    assert cheat.fired
    for peer in honest:
        session = net.sessions[peer]
        assert session.table.voters(Step(0, COMMIT, 0), THINKER) == {CHEAT}  # the cheat's vote is in, alone
        assert (session.phase, session.turn, session.waiting_for()) == ("turn", 0, (THINKER,))
        assert THINKER not in session.dropped
        assert net.faults(peer) == []

    # The person plays: the game goes on, the cheat's vote void (every honest seat went on from the commit).
    session = net.sessions[thinker]
    net.bots[thinker] = bot
    net.handle(thinker, session.play(min(session.game.round.hands[THINKER])))
    net.run()
    for peer in honest:
        assert net.sessions[peer].turn == 2 and not net.sessions[peer].dropped
    # (The cheat's own session, a local model here, lost track of the chain its extra DROP shifted, and stalls:
    # the honest seats vote it out, as their nodes would once its time ran out.)
    for peer in honest:
        net.handle(peer, net.sessions[peer].drop(CHEAT))
    net.run()
    for peer in honest + net.peers[4:]:
        session = net.sessions[peer]
        assert session.phase == "over"
        assert set(session.dropped) == {CHEAT}
        assert net.faults(peer) == []

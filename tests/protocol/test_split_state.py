"""Two commits of one turn on two game states are no split commit (protocol.md 12, "Two commits with another `state`").

Seat 0 signs two PLAY_COMMITs for one turn, with one `seq` and one `prev`: A, its own (on the turn's state), and B,
the same with another `state`. It shows B to some nodes and A to the others; each node takes first the version it
was shown, and gets the other relayed or as a proof's evidence, at once or (held back) only once nothing else
moves. What a node does at the turn's `state` check depends on the version it took: on B it expels seat 0
(`state-mismatch`; in a sealed deal the round is void and it never reveals the turn), on A it reveals. Before, a
node holding both kept them as a split commit for the reveals to decide, which they cannot (chaos seed 52 of
tests/peer/test_chaos_agrees.py: the seats that took B voided the round and ended the game, a spectator that took A
waited in 'turn' for their reveals for ever). Now the pair is a fatal proof at every node that holds both, and
every honest node comes to hold both: whatever the order, each ends aborted on seat 0's equivocation (one that was
over first keeps its result and its sealed transcript, protocol.md 11, "After the end"), and `verify` agrees.
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from test_attacks import at, h, honest

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import GameOver
from p2pnimmt.protocol.verify import verify_transcript

TURN = 2
SHOWN_B = {"one seat": [1], "two seats": [1, 2], "the spectator": ["spectator"], "every seat": [1, 2, 3]}


def split_state(deal: str, shown: list[int | str], hold: bool, seed: int) -> tuple[AttackNet, Adversary]:
    """Seat 0 of four splits its commit of turn TURN: B (another `state`) to `shown`, A to the other nodes. With
    `hold`, the version a node was not shown reaches it only once nothing else moves."""
    net = AttackNet(4, seed=seed, settings=Settings(players=4, max_rounds=1, deal=deal))
    spectator = net.watchers[0].peer
    to_b = [spectator if s == "spectator" else net.identities[int(s)].peer for s in shown]

    def rule(adv: Adversary, env, body):
        if not at(env, "PLAY_COMMIT", turn=TURN):
            return None
        a = adv.chain(env.kind, body, env)
        b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, state=h("another game")))
        adv.state["first"] = {p: (b.wire if p in to_b else a.wire) for p in adv.others}
        adv.state["pair"] = {a.wire, b.wire}
        adv.fired = True
        return [(p, wire) for p, wire in adv.state["first"].items()]

    adv = Adversary(net, 0, rule)
    if hold:
        net.withhold = lambda to, frm, wire: (wire in adv.state.get("pair", ())
                                              and wire != adv.state["first"].get(to, wire))
    net.start()
    net.run()
    net.heal()
    net.run()
    return net, adv


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize("shown", list(SHOWN_B))
@pytest.mark.parametrize("hold", [False, True], ids=["at-once", "held-back"])
@pytest.mark.parametrize("seed", [0, 1])
def test_two_commits_on_two_states_abort_every_node_whatever_it_took_first(deal: str, shown: str, hold: bool,
                                                                           seed: int) -> None:
    net, adv = split_state(deal, SHOWN_B[shown], hold, seed)
    assert adv.fired
    for p in honest(net, adv):
        s = net.sessions[p]
        assert s.phase == "aborted", (p, s.phase, net.faults(p))
        assert [f for f in net.faults(p) if f.fatal] == [s.fault], net.faults(p)
        assert s.fault.code == "equivocation" and s.fault.peer == adv.peer, s.fault
        if not hold:  # (a node that holds B alone while the game goes on cannot follow it: it names seats whose
            assert all(f.peer == adv.peer for f in net.faults(p)), net.faults(p)  # ROUND_END differs, till A comes)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        if any(isinstance(e, GameOver) for e in net.events[p]):  # over before it held both: its result stands and
            assert verdict.ok, verdict.report()  # its transcript was sealed at the end (protocol.md 11, "After the end")
        else:  # the replay aborts on the same proof
            assert not verdict.ok and "equivocation" in verdict.fault and verdict.peer == adv.peer, verdict.report()

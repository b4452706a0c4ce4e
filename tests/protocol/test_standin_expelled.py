"""An expelled seat is never needed to ask the stand-in for a stalled seat's move (protocol.md 11.2; found by the
seeded chaos of tests/peer/chaos.py, seed 998).

Nobody plays seat STALLED: the others ask the stand-in for its move every turn, and its node makes it. In turn
TURN, seat CHEAT commits, signs a DROP at that turn's row choice (a later position: it "went on" from the stalled
seat's commit, protocol.md 11.1) and then a STANDIN for turn TURN - 1 (`unexpected`, after its turn TURN): it
is expelled from that STANDIN on and signs nothing more. The others ask the stand-in for the stalled seat and vote
it out too. The vote is void (the cheat went on), and before, the stalled seat's node waited for the cheat's ask,
which never comes: the table stopped for good. Now the stalled seat's node moves once every seat not expelled
asked; the cheat is dropped at the reveal step, where the game then waits on it, and the rest finish the game,
every honest node and transcript alike.
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from support import short
from test_drop import vote_out
from test_presence import ask_for, owes

from p2pnimmt.protocol.phase import Step, turn_steps
from p2pnimmt.protocol.verify import replay, verify_transcript

TURN = 4
CHEAT = 2
NAMED = 1  # the seat the cheat's DROP names: not the row chooser of turn TURN (the others would join that vote as
# soon as the game waits on it there, and drop it: a DROP signed ahead is one the others join, protocol.md 11.1)


def cheat_then_silent(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
    """The cheat's commit of turn TURN, then a DROP at that turn's row choice (a later position than the commit
    step) and a STANDIN for turn TURN - 1 (`unexpected`: after its messages of turn TURN); then nothing."""
    if env.kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, TURN) and not adv.fired:
        adv.fired = True
        later = turn_steps(TURN)[2]
        sends = (adv.default(env, body) + adv.send("DROP", {"round": 0, "step": later, "seat": adv.state.get("named", NAMED)})
                 + adv.send("STANDIN", {"round": 0, "turn": TURN - 1, "seat": adv.state["stalled"]}))
        adv.silent = True
        return sends
    return None


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize(("players", "stalled"), [(4, 3), (5, 0)])
def test_the_stalled_seats_node_moves_once_every_seat_not_expelled_asked(players: int, stalled: int,
                                                                         deal: str) -> None:
    net = AttackNet(players, settings=short(players, "standard", rounds=2, deal=deal), bots="heuristic", seed=players)
    del net.bots[net.identities[stalled].peer]  # nobody plays this seat: its node moves only when asked
    adv = Adversary(net, CHEAT, cheat_then_silent)
    adv.state["stalled"] = stalled
    assert NAMED not in (CHEAT, stalled)
    net.start()
    net.run()
    turns = 0
    while not adv.fired:
        assert owes(net, stalled) and turns < 20
        ask_for(net, stalled)
        turns += 1
    honest = [p for s, p in enumerate(net.peers) if s not in (CHEAT, stalled)]  # the other seats, the spectators
    commit, reveal, _ = turn_steps(TURN)
    for p in honest:
        s = net.sessions[p]
        assert (s.phase, s.round, s.turn, s.waiting_for()) == ("turn", 0, TURN, (stalled,))
        assert s.table.expelled_for == {CHEAT: "unexpected"}
    vote_out(net, stalled, run=False)  # the others' timers ran out too: that vote is void (the cheat went on)
    ask_for(net, stalled)
    turns = 0
    while owes(net, stalled):  # before: the stalled seat's node waited for the cheat's ask, for ever
        ask_for(net, stalled)
        turns += 1
        assert turns < 100, net.sessions[honest[0]].waiting_for()
    found = set()
    for p in honest + [net.identities[stalled].peer]:
        s = net.sessions[p]
        assert not [f for f in net.faults(p) if f.fatal], net.faults(p)
        assert s.phase == "over", (s.phase, s.round, s.turn, s.waiting_for())
        assert stalled not in s.dropped
        assert s.dropped.get(CHEAT) == Step(0, reveal)  # where the game first waits on it (a sealed round is void)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        again = replay(bytes(net.transcripts[p])).session
        for x in (s, again):
            found.add((x.result, tuple(sorted(x.dropped.items())), tuple(sorted(x.voided))))
    assert len(found) == 1, found

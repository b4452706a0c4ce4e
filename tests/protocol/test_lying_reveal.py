"""A reveal whose `commits` lies (it names a set other than the one every honest node holds) costs the liar its
seat, not the others their game (issue 21; protocol.md 11, "A reveal naming another commit set").

Nobody can tell the lie from a version of a split commit on its way, so it is no fault and nothing is recorded;
but the game counts such a reveal as missing: it waits on the liar, whose drop the others vote as for any absent
seat (11.1). In a sealed deal the liar had shuffled: the round is void and it forfeits (17.9). Before, the
turn waited on nobody (`waiting_for()` was empty): nobody could vote, and the table stopped for good.
"""

from __future__ import annotations

import hashlib

import pytest
from adversary import Adversary, AttackNet
from support import short
from test_drop import vote_out

from p2pnimmt.protocol.phase import Step, turn_steps
from p2pnimmt.protocol.verify import verify_transcript

TURN = 2


def lying_reveal(players: int, deal: str, liar: int, seed: int) -> tuple[AttackNet, Adversary]:
    """A game whose seat `liar` names a commit set nobody saw in its reveal of turn TURN, run until it stalls."""
    variant, deal = ("draft", "open") if deal == "draft" else ("standard", deal)
    net = AttackNet(players, settings=short(players, variant, rounds=2, deal=deal), bots="heuristic", seed=seed)

    def rule(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind == "PLAY_REVEAL" and body["round"] == 0 and body["turn"] == TURN:
            body["commits"] = hashlib.sha256(b"a set nobody saw").digest()
            adv.fired = True

    adv = Adversary(net, liar, rule)
    net.start()
    net.run()
    return net, adv


@pytest.mark.parametrize("deal", ["open", "sealed", "draft"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_seat_whose_reveal_names_a_set_nobody_holds_is_voted_out_and_the_game_ends(players: int, deal: str) -> None:
    liar = players - 2
    net, adv = lying_reveal(players, deal, liar, seed=players)
    assert adv.fired
    honest = [p for p in net.peers if p != adv.peer]
    seats = [p for p in honest if p in [i.peer for i in net.identities]]
    for p in honest:
        s = net.sessions[p]
        assert (s.phase, s.round, s.turn) == ("turn", 0, TURN)
        assert s.waiting_for() == (liar,), s.waiting_for()  # before: () — the game waited on nobody
        assert s.table.disagreeing() == (liar,)
    vote_out(net, liar)
    net.run()
    at = Step(0, turn_steps(TURN)[1])
    found = set()
    for p in honest:
        s = net.sessions[p]
        assert not [f for f in net.faults(p) if f.fatal], net.faults(p)
        assert s.phase == "over", (p in seats, s.phase, s.round, s.turn, s.waiting_for())
        assert s.dropped.get(liar) == at
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        found.add((s.result, tuple(sorted(s.dropped.items())), tuple(sorted(s.voided)),
                   tuple(sorted(s.table.forfeits))))
    assert len(found) == 1, found
    ((result, _dropped, voided, forfeits),) = found
    if deal == "sealed":
        assert voided == (0,) and forfeits == (liar,)  # it had shuffled: the round is void, and it cannot win
        assert liar not in result.winners
    else:
        assert voided == () and forfeits == ()


def other_version_reveal(players: int, deal: str, liar: int, seed: int) -> tuple[AttackNet, Adversary]:
    """Seat `liar` signs two commits for turn TURN and sends both to everyone, its own first: every seat takes the
    first and holds the second as a version (a split commit, protocol.md 12); every other seat's reveal names the
    first, so the first is the game's and the seat keeps its seat. Its own reveal names the set with its other
    version: a set the game never uses, so it counts as missing (the leftover of issue 21)."""
    from p2pnimmt.protocol.commitments import commit_set_digest

    variant, deal = ("draft", "open") if deal == "draft" else ("standard", deal)
    net = AttackNet(players, settings=short(players, variant, rounds=2, deal=deal), bots="heuristic", seed=seed,
                    shuffle_delivery=False)

    def rule(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind == "PLAY_COMMIT" and body["round"] == 0 and body["turn"] == TURN:
            a = adv.chain(env.kind, body, env)
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, commit=hashlib.sha256(b"another").digest()))
            adv.state["other"] = b.hash
            return adv.to(a.wire) + adv.to(b.wire)
        if env.kind == "PLAY_REVEAL" and body["round"] == 0 and body["turn"] == TURN:
            commits = adv.session.slot("PLAY_COMMIT", 0, TURN)
            body["commits"] = commit_set_digest([adv.state["other"] if s == adv.seat else commits[s].hash
                                                 for s in sorted(commits)])
            adv.fired = True
        return None

    adv = Adversary(net, liar, rule)
    net.start()
    net.run()
    return net, adv


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize("players", [3, 5])
def test_a_seat_that_keeps_its_seat_after_a_split_commit_and_reveals_on_its_other_version_is_voted_out(
        players: int, deal: str) -> None:
    liar = players - 2
    net, adv = other_version_reveal(players, deal, liar, seed=players)
    assert adv.fired
    honest = [p for p in net.peers if p != adv.peer]
    seats = [i.peer for i in net.identities]
    for p in honest:
        s = net.sessions[p]
        assert (s.phase, s.round, s.turn) == ("turn", 0, TURN)
        assert liar not in s.table.expelled  # the others all named one version: it keeps its seat
        if p in seats:
            assert s.waiting_for() == (liar,), s.waiting_for()  # before: () — the game waited on nobody
    vote_out(net, liar)
    net.run()
    found = set()
    for p in honest:
        s = net.sessions[p]
        if p not in seats:
            continue  # a spectator that took no version of its own may abort: protocol.md 12, "Decided"
        assert not [f for f in net.faults(p) if f.fatal], net.faults(p)
        assert s.phase == "over" and s.dropped.get(liar) == Step(0, turn_steps(TURN)[1])
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        found.add((s.result, tuple(sorted(s.dropped.items()))))
    assert len(found) == 1, found

"""A split commit's two branches: the seat reveals on each of its versions (protocol.md 8, check 4; 12, "A split commit").

Two copies of one seat's files (tests/net/test_copied_seat.py) each commit the seat's card for the turn with a nonce
of their own, and each then reveals on its own version: two PLAY_REVEALs with one `seq`, each following another
version of the commit. A node that holds the seat's reveal on one version and then gets the other took the pair as
two messages of one `seq` and aborted (fatal), while a node that did not hold the first yet judged the second as a
fork on the version it holds (no fault) and played on: in CI the host gave up for too few players while two seats
had aborted. Now the second reveal is judged as the fork it is at every node, whatever came first: no node aborts,
the others' reveals decide, and the seat loses its seat as for any split commit shown to both halves.

Seat 0 shows version A and its reveal on A to seat 1 and the spectator, version B and its reveal on B to every other
seat (each a real commitment of the same card, with a nonce of its own), then signs nothing more (as a copy does once
it sees the other's message). Delivery is in order, so each node takes the version shown to it first, reveals on it,
and holds the seat's reveal on that version when the other comes relayed: the pair that aborted some nodes.
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet, Rule
from harness import Net
from test_attacks import at, honest

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.commitments import NONCE_SIZE, card_value, commit_set_digest, commitment
from p2pnimmt.protocol.verify import verify_transcript

TURN = 2


def branch_rule(net: Net, players: int, seed: int) -> Rule:
    """Seat 0's split of its commit of TURN and its reveal on each version (the module's docstring)."""
    first = [net.identities[1].peer, *(w.peer for w in net.watchers)]

    def rule(adv: Adversary, env, body):
        if at(env, "PLAY_COMMIT", turn=TURN):
            card, _nonce = adv.session.table.plays[(0, TURN)]
            nonce_b = bytes([seed + 1]) * NONCE_SIZE
            a = adv.chain(env.kind, body, env)
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(
                body, commit=commitment("play", net.game_id, 0, TURN, 0, card_value(card), nonce_b)))
            adv.state.update(a=a, b=b, nonce_b=nonce_b)
            return adv.to(a.wire, first) + adv.to(b.wire, [p for p in adv.others if p not in first])
        if at(env, "PLAY_REVEAL", turn=TURN):
            a, b = adv.state["a"], adv.state["b"]
            commits = adv.session.slot("PLAY_COMMIT", 0, TURN)
            on_b = commit_set_digest([b.hash if s == 0 else commits[s].hash for s in range(players)])
            reveal_a = adv.chain(env.kind, body, env)
            reveal_b = adv.seal_at(reveal_a.seq, b.hash, env.kind, dict(body, nonce=adv.state["nonce_b"], commits=on_b))
            adv.fired = True
            adv.silent = True  # a copy signs nothing more once it sees the other's message
            return adv.to(reveal_a.wire, first) + adv.to(reveal_b.wire, [p for p in adv.others if p not in first])
        return None

    return rule


def branches(players: int, seed: int) -> tuple[AttackNet, Adversary]:
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=1, deal="open"),
                    shuffle_delivery=False)
    adv = Adversary(net, 0, branch_rule(net, players, seed))
    net.start()
    net.run()
    return net, adv


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("seed", range(3))
def test_a_seat_revealing_on_each_version_of_its_split_commit_loses_its_seat_and_nobody_aborts(
        players: int, seed: int) -> None:
    net, adv = branches(players, seed)
    assert adv.fired
    ends = set()
    for p in honest(net, adv):
        s = net.sessions[p]
        assert s.phase == "over", (p, s.phase, net.faults(p))
        for f in net.faults(p):
            assert f.peer == adv.peer and not f.fatal, f
        assert s.table.expelled_for.get(0) == "equivocation"
        assert s.dropped[0] == (0, 2 + 3 * TURN, 0)  # at the turn's commit step: the stand-in plays its card
        ends.add(s.result)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
    assert len(ends) == 1, ends

"""protocol.md 11.1: at a sealed round's (r, 32, 0), once every SEALED_KEYS it needs is in, the game waits on nobody
until the round is scored (Table.waiting_for; commit 1d377e5). A shuffler expelled right after its keys is then
dropped at its ROUND_END's place (r, 32, 1) on every node, whether the proof came while a node still lacked another
seat's keys, between the last key and the scoring, or after it: its keys count and the round is scored.
"""

from __future__ import annotations

from adversary import Adversary, then_send
from sealed_adversary import SealedNet, sealed
from support import outcome

from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.steps import ROUND_END_STEP
from p2pnimmt.protocol.verify import verify_transcript

CHEAT = 2


# Its SEALED_KEYS of round 1, then a STANDIN naming itself (`unexpected`: expelled from there on).
keys_then_a_standin_for_itself = then_send("SEALED_KEYS", lambda body: body["round"] == 0,
                                           lambda body: ("STANDIN", {"round": 0, "turn": 9, "seat": CHEAT}))


def test_a_shuffler_expelled_after_its_keys_is_dropped_at_its_round_end_on_every_node() -> None:
    """Four seats, two sealed rounds, delivery order of seed 0 (some nodes get the proof after every key is in and
    before they score). Every honest node records the one `unexpected` against seat 2, drops it at (0, 32, 1),
    scores round 1 (no `absent`, no void round) and ends with the same result; every honest transcript verifies.
    Before 1d377e5 a node with every key in but the round not scored waited on the seats lacking a ROUND_END, seat
    2 among them: it dropped seat 2 at its keys and voided the round (`absent`), where the others scored it, and
    then found their ROUND_ENDs wrong (`result-mismatch` against honest seats)."""
    net = SealedNet(4, seed=0, settings=sealed(4, rounds=2))
    adv = Adversary(net, CHEAT, keys_then_a_standin_for_itself)
    net.start()
    net.run()
    assert adv.fired
    cheat = net.identities[CHEAT].peer
    ends = set()
    for i, peer in enumerate(net.peers):
        if peer == cheat:
            continue
        session = net.sessions[peer]
        assert [(f.code, f.peer) for f in net.faults(peer)] == [("unexpected", cheat)], \
            (i, [f.describe() for f in net.faults(peer)])
        assert session.phase == "over" and session.dropped == {CHEAT: Step(0, ROUND_END_STEP, 1)}, (i, session.dropped)
        assert not session.voided and sum(session.game.history[0]) > 0, (i, session.voided)
        ends.add(outcome(session))
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, (i, verdict.report())
    assert len(ends) == 1, ends

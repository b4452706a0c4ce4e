"""A new start after an equivocation leaves out the equivocator AND every seat out of the game for a proof (protocol.md
12, "Who G' leaves out"; 14, "A new start").

In memory, five seats, open deal: seat 3 signs a ROUND_END of round 1 with a wrong total (`result-mismatch`: it is
expelled and dropped at its ROUND_END's place, the game goes on without it), then seat 2 signs two PLAY_REVEALs with
one seq in round 2 (an equivocation that is no split commit: fatal where both are held). Every honest node aborts on
seat 2; the host's new start leaves out seats 2 AND 3, every honest seat's check takes it, and a START that seats seat 3
is refused by every honest seat with the reason. The new game plays the rounds left and every honest transcript
verifies. Seat 3's node is told that it is left out, with its own reason, and the words of the seats that follow name
both. A forfeit (17.9, sealed deal) is left out the same way, up to the carried round end only.

On the code before session 32, the host left out seat 2 alone (seat 3 sat in the new game with full rights, its
carried total only), no seat refused a START that seated it, and a seat left out was told the equivocator's reason."""

from __future__ import annotations

from typing import Any

from adversary import Adversary, AttackNet
from sealed_adversary import Cheat, SealedNet
from test_carry import two_reveals
from test_drop import vote_out

from p2pnimmt.app.anew import NewStart, leaves_out, own_reason
from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import refused_acks
from p2pnimmt.protocol.carry import carry_for, carry_problem, out_for_proof, round_ends
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.verify import verify_transcript

PLAYERS, FORGER, CHEAT = 5, 2, 3


def wrong_round_end(adv: Adversary, env: Any, body: dict[str, Any]) -> None:
    """The cheat's ROUND_END of round 1 gives seat 0 a point more: a `result-mismatch` every node proves alike."""
    if env.kind == "ROUND_END" and body["round"] == 0 and not adv.fired:
        body["scores"][0] += 1
        adv.fired = True
    return None


def four_rounds(deal: str) -> Settings:
    return Settings(players=PLAYERS, max_rounds=4, point_limit=None, deal=deal)


def forged_in_round_2(net: AttackNet) -> Adversary:
    """The forger signs two PLAY_REVEALs with one seq at turn 4 of round 2; the game started and run till quiet."""
    forger = Adversary(net, FORGER, two_reveals(1, 3))
    net.start()
    net.run()
    return forger


def forked_after_an_expulsion(deal: str = "open", seed: int = 3) -> tuple[AttackNet, Adversary, Adversary]:
    net = AttackNet(PLAYERS, seed=seed, settings=four_rounds(deal))
    cheat = Adversary(net, CHEAT, wrong_round_end)
    forger = forged_in_round_2(net)
    assert cheat.fired and forger.fired
    return net, cheat, forger


def honest(net: AttackNet) -> list[bytes]:
    return [i.peer for n, i in enumerate(net.identities) if n not in (FORGER, CHEAT)]


def test_the_new_start_leaves_out_the_expelled_seat_with_the_equivocator_and_every_honest_seat_agrees() -> None:
    net, cheat, forger = forked_after_an_expulsion()
    host = net.sessions[net.identities[0].peer]
    for p in honest(net):
        s = net.sessions[p]
        assert s.phase == "aborted" and (s.fault.code, s.fault.peer) == ("equivocation", forger.peer), s.fault
        assert s.table.expelled_for.get(CHEAT) == "result-mismatch", s.table.expelled_for
        assert out_for_proof(s.table) == {CHEAT: "lost its seat for a proven rule break (result-mismatch)"}
        assert refused_acks(s) == [FORGER]
        assert max(round_ends(s.table)) == 1  # round 1 ended (without the cheat's ROUND_END), round 2 lost
    gone = leaves_out(host, refused_acks(host))
    assert gone == [FORGER, CHEAT]  # before: [FORGER] alone, the cheat seated in the new game
    keys = [i.public_key for n, i in enumerate(net.identities) if n not in gone]
    carry = carry_for(host.table, keys)
    assert carry is not None and carry["rounds"] == 1
    body = {"roster": [{"key": k} for k in keys], "carry": carry}
    # the host's start: every honest seat takes it
    for p in honest(net):
        assert carry_problem(net.sessions[p].table, body) is None
    # a start that seats the expelled seat: every honest seat refuses it, with why
    cheats = [i.public_key for n, i in enumerate(net.identities) if n != FORGER]
    seated = {"roster": [{"key": k} for k in cheats], "carry": carry_for(host.table, cheats)}
    for p in honest(net):
        why = carry_problem(net.sessions[p].table, seated)
        assert why == (f"its roster seats {net.identities[CHEAT].public_key.hex()[:8]}, who is out of the game it "
                       "continues: it lost its seat for a proven rule break (result-mismatch)"), why
    # the words: those that follow name both, each for its reason; the host's record says so too
    for p in honest(net):
        s = net.sessions[p]
        new = NewStart(s, gone, "p0")
        assert new.forked and new.out == [CHEAT] and new.word == []
        assert new.why() == ("p2 signed two different messages at one place (an equivocation); the round in play is "
                             "lost (p3 left out too: out of it for a proven rule break or a forfeit)"), new.why()
    # the expelled seat's own node: its record does not hold its own expulsion (the harness never shows a cheat its
    # own lies), so the others' commit sets, which leave it out, never decide its turn for it: it holds the forger's
    # proof unjudged (protocol.md 12, "Above a split commit"), stalled at its first turn of round 2 (its own count
    # of round 1 differs from everyone's), and is left out of the new start all the same
    s = net.sessions[cheat.peer]
    assert s.phase == "turn" and (s.table.round, s.table.turn) == (1, 0) and s.fault is None, (s.phase, s.fault)
    assert refused_acks(s) == []


def test_every_honest_transcript_of_the_abandoned_game_replays_the_expulsion_and_the_equivocation() -> None:
    net, cheat, forger = forked_after_an_expulsion()
    for p in honest(net):
        verdict = verify_transcript(bytes(net.transcripts[p]))  # the replay finds every recorded fault, or fails
        report = verdict.report()
        assert not verdict.ok and verdict.peer == forger.peer and "equivocation" in verdict.fault, report
        assert [(f["code"], f["peer"], f["fatal"]) for f in verdict.faults_recorded] == [
            ("result-mismatch", cheat.peer, False), ("equivocation", forger.peer, True)], verdict.faults_recorded
        assert "the game was aborted" in report, report


def test_a_seat_left_out_is_told_its_own_reason_not_another_seats() -> None:
    """An honest seat left out of a forked new start that its record holds nothing against is told it is the host's
    word, not that its key signed two messages (before: the equivocator's words, keyed on the node's fault)."""
    net, _cheat, _forger = forked_after_an_expulsion()
    honest_left = net.sessions[net.identities[4].peer]
    new = NewStart(honest_left, [FORGER, CHEAT, 4], "p0")
    assert new.word == [4] and new.out == [CHEAT]
    assert own_reason(honest_left, new, unbroken=True) == (
        "{host} left game {code} for a new game without this seat (by its host's word: this node holds no proof "
        "against this seat)")
    assert new.why().endswith("(p3 left out too: out of it for a proven rule break or a forfeit) (p4 left out too, by "
                              "its host's word)"), new.why()
    # the equivocator's own node, once it holds the proof of its own two messages, is told its own reason
    forger_node = net.sessions[net.identities[1].peer]  # (an honest node: its record names seat 2's equivocation)
    as_forger = NewStart(forger_node, [FORGER, CHEAT], "p0")
    forger_node.table.seat = FORGER  # seen from seat 2's place: its own seat is the one that equivocated
    try:
        assert "this seat's key signed two different messages" in own_reason(forger_node, as_forger, unbroken=True)
    finally:
        forger_node.table.seat = 1


def grief_round_one(c: Cheat, kind: str, body: dict) -> list | None:
    """The griefer never unlocks in round 1: it is voted out there, the round is void and it forfeits (17.9)."""
    if kind == "SEALED_UNLOCK" and body["round"] == 0:
        c.fired = True
        return []
    return None


def forked_after_a_forfeit() -> tuple[SealedNet, Cheat, Adversary]:
    net = SealedNet(PLAYERS, seed=5, settings=four_rounds("sealed"))
    griefer = Cheat(net, CHEAT, grief_round_one)
    forger = forged_in_round_2(net)
    host = net.sessions[net.identities[0].peer]
    for _ in range(100):
        if host.phase in ("aborted", "over"):
            break
        if CHEAT in host.waiting_for():
            vote_out(net, CHEAT)
        net.run()
    assert griefer.fired and forger.fired
    return net, griefer, forger


def test_a_seat_that_forfeited_up_to_the_carried_round_end_is_left_out_and_refused() -> None:
    net, griefer, forger = forked_after_a_forfeit()
    host = net.sessions[net.identities[0].peer]
    for p in honest(net):
        s = net.sessions[p]
        assert s.phase == "aborted" and (s.fault.code, s.fault.peer) == ("equivocation", forger.peer), s.fault
        assert s.table.forfeits[CHEAT] == 0 and 0 in s.table.voided and CHEAT not in s.table.expelled
        assert max(round_ends(s.table)) == 1
        # (some nodes also expelled the forger, for the reveal that opens nothing: it is left out all the same)
        out = {seat: why for seat, why in out_for_proof(s.table, 1).items() if seat != FORGER}
        assert out == {CHEAT: "forfeited in round 1"}  # a forfeit after the carried round end counts for nothing
        assert CHEAT not in out_for_proof(s.table, 0)
    # why a forfeit in the round lost counts for nothing: the nodes differ on it (some expelled the forger for its
    # reveal that opens nothing, which voided round 2 and made it forfeit, before the proof of its two reveals came;
    # the others aborted first), where they agree on every round up to the carried one
    lost = {tuple(sorted(net.sessions[p].table.forfeits.items())) for p in honest(net)}
    assert lost == {((CHEAT, 0),), ((FORGER, 1), (CHEAT, 0))}, lost
    gone = leaves_out(host, refused_acks(host))
    assert gone == [FORGER, CHEAT]  # before: [FORGER] alone
    keys = [i.public_key for n, i in enumerate(net.identities) if n not in gone]
    carry = carry_for(host.table, keys)
    assert carry is not None and carry["rounds"] == 1
    seated = [i.public_key for n, i in enumerate(net.identities) if n != FORGER]
    for p in honest(net):
        table = net.sessions[p].table
        assert carry_problem(table, {"roster": [{"key": k} for k in keys], "carry": carry}) is None
        why = carry_problem(table, {"roster": [{"key": k} for k in seated], "carry": carry_for(host.table, seated)})
        assert why is not None and why.endswith("who is out of the game it continues: it forfeited in round 1"), why
    # the griefer's own node holds its forfeit (every node sees the same drops): it is told so
    mine = net.sessions[griefer.peer]
    assert mine.table.forfeits == {CHEAT: 0}
    assert "this seat forfeited it" in own_reason(mine, NewStart(mine, gone, "p0"), unbroken=True)
    # a forfeit in the round lost counts for nothing in the words either (session-32 review: a seat left out that its
    # own record has forfeiting in round 2 only was told "this seat forfeited it"; the host left it out by its word):
    # seat 4's record, as if its drop there had voided round 2
    s = net.sessions[net.identities[4].peer]
    s.table.forfeits[4] = 1
    try:
        new = NewStart(s, [*gone, 4], "p0")
        assert 4 not in new.out and 4 in new.word, (new.out, new.word)
        assert "by its host's word" in own_reason(s, new, unbroken=True)
    finally:
        del s.table.forfeits[4]


def test_a_seat_left_out_of_a_start_where_another_seats_start_ack_was_refused_is_told_its_own_reason() -> None:
    """A new start before the game started: seat 1's START_ACK is refused (a wrong START hash), and the host also leaves
    out seat 2, which it did not hear from in its grace. Seat 2 is told that the host did not have its START_ACK in time,
    not that its START_ACK was refused (before: the words were keyed on any seat's refusal, `new.refused`); seat 1 is
    told its own was refused."""
    from test_refused_ack import game, wrong_hash

    net, adv = game(4, 1, wrong_hash)
    assert adv.fired
    silent = net.sessions[net.identities[2].peer]
    assert silent.phase == "starting" and refused_acks(silent) == [1]
    new = NewStart(silent, [1, 2], "p0", late=True)
    assert new.refused  # the new start is made for the refused START_ACK
    assert own_reason(silent, new, unbroken=True) == (
        "{host} abandoned game {code} before it started and starts a new game without this seat (it did not have "
        "this seat's START_ACK in time)")
    assert own_reason(silent, new, unbroken=False).endswith("(it had no link to it)")
    liar = net.sessions[net.identities[0].peer]  # seen from seat 1's place: its own START_ACK was refused
    liar.table.seat = 1
    try:
        assert own_reason(liar, NewStart(liar, [1, 2], "p0"), unbroken=True).endswith(
            "(it refused this seat's START_ACK)")
    finally:
        liar.table.seat = 0


def test_the_record_of_why_is_said_in_german_with_the_seats_left_out() -> None:
    """The abandoned game's record keeps English (app.anew.NewStart.why); `p2pnimmt history` and the node's lines say
    it in the language in use (i18n._PEER_TEXTS), the seats left out for a proof or by the host's word included."""
    from p2pnimmt import i18n

    net, _cheat, _forger = forked_after_an_expulsion()
    why = NewStart(net.sessions[net.identities[4].peer], [FORGER, CHEAT, 4], "p0").why()
    i18n.use("de")
    try:
        assert i18n.said(why) == (
            "p2 hat zwei verschiedene Nachrichten an derselben Stelle signiert (eine Äquivokation); die laufende Runde "
            "ist verloren (p3 ebenfalls nicht dabei: Platz verloren wegen eines nachgewiesenen Regelbruchs, oder das "
            "Spiel verwirkt) (p4 ebenfalls nicht dabei, auf das Wort des Gastgebers)"), i18n.said(why)
    finally:
        i18n.use("en")


def test_a_seat_holding_the_proof_unjudged_is_told_the_equivocation_not_a_start() -> None:
    """A seat that lacks a reveal of the forged turn holds the host's re-sent proof unjudged (protocol.md 12, "Above a
    split commit": the turn is not decided here yet) when the host's offer comes, leaving it out (it was down as the
    new start opened): its words are those it gets once the proof is judged - the equivocation, the round lost, its
    own seat left out by its host's word. Before (session-32 review), it was told its host "abandoned game ... before
    it started" and that the others "left before acknowledging its START"."""
    net = AttackNet(4, seed=3, settings=Settings(players=4, max_rounds=4, point_limit=None, deal="open"))
    Adversary(net, FORGER, two_reveals(1, 3))
    host, late, relayed = (net.identities[s].peer for s in (0, 3, 1))
    net.withhold = lambda to, frm, wire: to == late and (e := open_envelope(wire)).sender == relayed and \
        e.kind == "PLAY_REVEAL" and (e.body["round"], e.body["turn"]) == (1, 3)
    net.start()
    net.run()
    h, n = net.sessions[host], net.sessions[late]
    for wire in h.fault.evidence:  # the host's proof, sent again before its offer
        net.queue.append((late, host, wire))
    net.run()
    gone = [FORGER, 3]

    def words() -> tuple[str, str]:
        new = NewStart(n, gone, "p0")
        return new.told(False, 0), own_reason(n, new, unbroken=False)

    assert n.phase == "turn" and sorted(n.table.held_proofs) == [FORGER]
    held = words()
    assert held[0].startswith("game ") and "p2 signed two different messages at one place (an equivocation); the round " \
        "in play is lost (p3 left out too, by its host's word)" in held[0], held
    assert held[1] == ("{host} left game {code} for a new game without this seat (by its host's word: this node holds "
                       "no proof against this seat)"), held
    for wire in h.missing_for(n.heads()):  # the reveal it lacked, in the host's answer to its heads
        net.queue.append((late, host, wire))
    net.withhold = None
    net.run()
    assert n.phase == "aborted" and words() == held

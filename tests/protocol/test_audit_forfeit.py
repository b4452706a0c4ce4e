"""A seat the round-end audit names forfeits the game (protocol.md 17.9, since session 33), and a SEALED_KEYS from a
seat that does not shuffle is no alarm (17.8).

The findings (session 33's red team): a seat the audit named (a false alarm, a key that does not open its
commitment) was dropped but neither expelled nor made to forfeit, so it asked for its seat back at once, shuffled
again and cheated again: at three seats of six rounds it voided rounds 1, 3 and 5, at four seats four of six, and
with a key that does not match it won the game it had voided half of. Now the seat the audit names forfeits as a
seat that left the round does: it may come back, dealt open (it never shuffles again, so it has no keys to lie in
and no alarm to raise), and cannot win. One cheat costs the others one round.

And a seat dealt open that signs a SEALED_KEYS with `alarm` anyway stopped the round at every node with nothing to
settle it: the reference raised ValueError('no finished round to score') out of `receive` and never moved again;
now only a shuffling seat's keys are an alarm, and the round goes on (the TypeScript node agrees:
tests/peer/test_forfeit_alarm_agrees.py).
"""

from __future__ import annotations

from sealed_adversary import Cheat, SealedNet, honest_peers, keys_body, sealed

from p2pnimmt.protocol.events import SeatDropped
from p2pnimmt.protocol.session import LocalError
from p2pnimmt.protocol.verify import verify_transcript

CHEAT = 1


def table(players: int, lie, rounds: int = 6, seed: int = 7) -> tuple[SealedNet, list[int]]:
    """A sealed game whose seat CHEAT lies as `lie(cheat, kind, body, lies)` says and asks for its seat back as soon
    as it is dropped; the rounds it lied in."""
    net = SealedNet(players, seed=seed, settings=sealed(players, rounds), bots="random")
    x = net.identities[CHEAT].peer
    lies: list[int] = []
    Cheat(net, CHEAT, lambda c, kind, body: lie(c, kind, body, lies))
    react = net.react

    def reacting(peer: bytes, event: object) -> None:
        react(peer, event)
        if peer == x and isinstance(event, SeatDropped) and event.seat == CHEAT:
            try:
                net.handle(x, net.sessions[x].rejoin())
            except LocalError:
                pass

    net.react = reacting  # type: ignore[method-assign]
    net.start()
    net.run()
    return net, lies


def false_alarm(c: Cheat, kind: str, body: dict, lies: list[int]) -> list | None:
    """After its reveal of turn 4 of each round, keys with `alarm` (its true ones while it shuffles)."""
    r = body.get("round")
    if kind == "PLAY_REVEAL" and body["turn"] == 3 and r not in lies:
        lies.append(r)
        try:
            keys = keys_body(c.session, r, alarm=True)
        except KeyError:  # dealt open (it does not shuffle): made-up keys
            keys = {"round": r, "key": bytes(31) + b"\x40", "seed": bytes(32), "nonce": bytes(32), "alarm": True}
        return [(kind, body), ("SEALED_KEYS", keys)]
    return None


def wrong_nonce(c: Cheat, kind: str, body: dict, lies: list[int]) -> list | None:
    """Its round-end keys with a nonce that does not open its commitment, each round it shuffles."""
    if kind == "SEALED_KEYS" and body["round"] not in lies:
        lies.append(body["round"])
        body["nonce"] = bytes(32)
        return [(kind, body)]
    return None


def ends(net: SealedNet) -> set[tuple]:
    """What every honest node holds at the end (one element where they agree); each transcript verifies."""
    seen = set()
    for p, who, s, faults in honest_peers(net, CHEAT):
        assert s.phase == "over", f"{who}: {s.phase}, {[f.describe() for f in faults]}"
        assert all(f.peer == net.identities[CHEAT].peer for f in faults), who
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, f"{who}: {verdict.report()}"
        seen.add((tuple(sorted(s.voided)), tuple(sorted(s.table.forfeits.items())), s.result.winners,
                  tuple(f.code for f in faults)))
    return seen


def test_a_seat_the_audit_named_forfeits_and_voids_no_other_round() -> None:
    for players in (3, 4):
        for lie, code in ((false_alarm, "sealed-false-alarm"), (wrong_nonce, "sealed-key")):
            net, lies = table(players, lie)
            (voided, forfeits, winners, codes), = ends(net)  # every honest node alike
            first = lies[0]
            assert voided == (first,), (players, lie.__name__, voided, lies)  # before: 3 or 4 rounds of 6
            assert forfeits == ((CHEAT, first),) and CHEAT not in winners, (forfeits, winners)
            assert codes[0] == code, codes
            summary = verify_transcript(bytes(net.transcripts[net.identities[0].peer])).summary
            assert "forfeited (made a round void, so cannot win): p1" in summary, summary


MADE_UP = {"key": bytes(31) + b"\x40", "seed": bytes(32), "nonce": bytes(32), "alarm": True}  # of no shuffle


def alarm_when_back(c: Cheat, kind: str, body: dict) -> list | None:
    """The griefer of test_forfeit_open_hand: it never unlocks in round 1 (voted out: the round is void, it forfeits)
    and, back dealt open, signs made-up keys with `alarm` after its reveal of turn 4, once, in round 3 or later."""
    r = body.get("round")
    if kind == "SEALED_UNLOCK" and r == 0:
        return []
    if kind == "PLAY_REVEAL" and r >= 2 and body["turn"] == 3 and "alarmed" not in c.state:
        c.state["alarmed"] = r
        c.fired = True
        return [(kind, body), ("SEALED_KEYS", {"round": r, **MADE_UP})]
    return None


def test_keys_with_an_alarm_from_a_seat_dealt_open_are_no_alarm() -> None:
    """The griefer of test_forfeit_open_hand (seat 1 of four) never unlocks in round 1, is voted out (the round is
    void, it forfeits) and is back, dealt open; in round 3 it signs keys with `alarm` after its reveal of turn 4.
    Before, that stopped the round at every node and the reference raised 'no finished round to score' out of
    `receive` (this test failed with that ValueError); now the round is played out and scored."""
    from test_forfeit_open_hand import GRIEFER, PLAYERS, ROUNDS, GrieferNet, played_out

    net = GrieferNet(PLAYERS, seed=5, settings=sealed(PLAYERS, ROUNDS), bots="heuristic")
    made = Cheat(net, GRIEFER, alarm_when_back)
    played_out(net)
    assert made.fired and made.state["alarmed"] == 2
    for p, who, s, _faults in honest_peers(net, GRIEFER):
        assert s.phase == "over", f"{who}: {s.phase}"
        assert sorted(s.voided) == [0] and dict(s.table.forfeits) == {GRIEFER: 0}, who
        assert sum(s.game.history[2]) > 0, (who, s.game.history)  # round 3 scored
        assert verify_transcript(bytes(net.transcripts[p])).ok, who


def alarm_then_bad_reveal(c: Cheat, kind: str, body: dict, lies: list[int]) -> list | None:
    """A false alarm in round 1 (the audit names it: it forfeits, dealt open from round 2), then in round 2 or
    later a reveal whose nonce does not open its commitment (bad-reveal)."""
    r = body.get("round")
    if kind == "PLAY_REVEAL" and r == 0 and body["turn"] == 3 and not lies:
        lies.append(r)
        return [(kind, body), ("SEALED_KEYS", keys_body(c.session, 0, alarm=True))]
    if kind == "PLAY_REVEAL" and r >= 1 and body["turn"] >= 3 and len(lies) == 1:
        lies.append(r)
        c.fired = True
        body["nonce"] = bytes(32)
        return [(kind, body)]
    return None


def test_a_seat_dealt_open_that_lies_in_a_reveal_costs_no_honest_seat_anything() -> None:
    """The session's review of the merged red team: the turn's reveals are checked in seat order, the cheat's fails,
    the cheat is expelled (voiding nothing: it does not shuffle) and the turn is checked again; the reference kept
    each play it had checked in that pass, so at the second check the honest seats before the cheat were found
    'played from position P a second time', expelled, and forfeited with a void round (the TypeScript verifier
    refused those transcripts). Now a play checked in the pass already is not checked twice."""
    net, lies = table(4, alarm_then_bad_reveal)
    assert len(lies) == 2, lies
    (voided, forfeits, winners, codes), = ends(net)  # every honest node alike, only the cheat blamed
    assert voided == (0,) and forfeits == ((CHEAT, 0),), (voided, forfeits)  # before: seat 0 forfeited too
    assert codes[:2] == ("sealed-false-alarm", "bad-reveal"), codes  # then its own node's later messages
    assert CHEAT not in winners

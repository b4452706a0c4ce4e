"""A seat that forfeited is dealt open for the rest of the game: it voids no more rounds (protocol.md 17.5, 17.9,
since session 29).

The finding (session 28's red team, attack8): a sealed-game seat shuffles, never unlocks, is voted out at its unlock
(the round is void and it forfeits: it cannot win), asks for its seat back at once, is back, shuffles again, stalls
at its unlock again and voids that round too: every other round of the game scored nothing, one player costing every
other seat half its game. Now a seat that forfeited never shuffles again in that game, back or not: its hand is
dealt open (its positions carry no layer of its own and are public after the unlock), it plays its own turns from
that open hand once back, and a later drop of it voids nothing (the stand-in plays its open hand).

Four seats, sealed, six rounds; seat 1 is the griefer. On main's code it voided rounds 1, 3 and 5
(its reproduction, benchmarks/attacks/void_every_round.py, exited 1; this test replaces it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adversary import Adversary
from sealed_adversary import Cheat, SealedNet
from test_drop import vote_out

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.commitments import commitment
from p2pnimmt.protocol.envelope import Envelope, open_envelope
from p2pnimmt.protocol.events import SeatBack, SeatDropped
from p2pnimmt.protocol.sealed_deal import sealed_value
from p2pnimmt.protocol.verify import replay, verify_transcript
from p2pnimmt.ui.model import TableModel

PLAYERS, GRIEFER, ROUNDS = 4, 1, 6


class GrieferNet(SealedNet):
    """The griefer's node asks for its seat back as soon as it learns it was dropped. Each seat's events also go to
    a terminal table's model (`models`), as a node's front has them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.models = {ident.peer: TableModel() for ident in self.identities}

    def react(self, peer: bytes, event: object) -> None:
        if peer in self.models:
            self.models[peer].update(self.sessions[peer], event)
        super().react(peer, event)
        x = self.identities[GRIEFER].peer
        if peer == x and isinstance(event, SeatDropped) and event.seat == GRIEFER and self.sessions[x].phase != "over":
            self.handle(x, self.sessions[x].rejoin())


def griefer(stall_turn_of: int | None = None, liar: Any = None) -> tuple[GrieferNet, Cheat]:
    """The griefer never unlocks; and, with `stall_turn_of` r, never commits its card of turn 5 of round r either
    (it stalls there once back, to be voted out again). `liar`: an adversary rule for seat 0. Every seat the game
    waits on for good is voted out."""

    def grief(c: Cheat, kind: str, body: dict) -> list | None:
        if kind == "SEALED_UNLOCK" or kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (stall_turn_of, 4):
            c.state.setdefault("withheld", []).append((kind, body["round"]))
            c.fired = True
            return []
        return None

    settings = Settings(players=PLAYERS, variant="standard", max_rounds=ROUNDS, point_limit=None, deal="sealed")
    net = GrieferNet(PLAYERS, seed=5, settings=settings, bots="heuristic")
    made = Cheat(net, GRIEFER, grief)
    if liar is not None:
        Adversary(net, 0, liar)
    played_out(net)
    return net, made


def played_out(net: GrieferNet, out: Callable[[int], bool] = lambda seat: seat == GRIEFER) -> None:
    """Start the game and play it to its end: each seat it waits on for good (the host waits on it after a pass of
    the net) that `out` names (the griefer) is voted out."""
    net.start()
    net.run()
    host = net.sessions[net.identities[0].peer]
    for _ in range(100):
        if host.phase == "over":
            break
        for seat in host.waiting_for():
            if out(seat):
                vote_out(net, seat)
        net.run()


def agreed(net: GrieferNet) -> tuple:
    """What every node and every replay of its transcript finds alike (every transcript verifies): the result, the
    void rounds, the forfeits, when the griefer came back."""
    found = set()
    for peer, session in net.sessions.items():
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, verdict.report()
        back = tuple(e.round for e in net.events[peer] if isinstance(e, SeatBack))
        for s in (session, replay(bytes(net.transcripts[peer])).session):
            found.add((str(s.phase), s.result, tuple(sorted(s.voided)), tuple(sorted(s.table.forfeits.items())), back))
    assert len(found) == 1, found
    return found.pop()


def griefers_messages(net: GrieferNet) -> list:
    host = net.sessions[net.identities[0].peer]
    x = net.identities[GRIEFER].peer
    return [env for env in map(open_envelope, host.journal.messages) if env.sender == x]


def test_a_seat_that_forfeited_voids_no_more_rounds_and_plays_with_an_open_hand() -> None:
    net, made = griefer()
    assert set(made.state["withheld"]) == {("SEALED_UNLOCK", 0)}  # nothing more to withhold: it never unlocks again
    phase, result, voided, forfeits, back = agreed(net)
    assert phase == "over" and result.rounds == ROUNDS
    assert voided == (0,) and forfeits == ((GRIEFER, 0),)  # one void round, its first; it forfeited there
    (first_back,) = back
    assert first_back <= 2  # back soon after (its ask is listed at the next round end it reaches)
    assert GRIEFER not in result.winners
    own = griefers_messages(net)
    later = [env for env in own if env.body.get("round", -1) >= first_back]
    # From its return on it does not shuffle, unlock or show keys: it is not a shuffling seat (17.5) ...
    assert not [env for env in later if env.kind.startswith("SEALED_")]
    # ... and it plays its own cards (not the stand-in's) from its open hand, each with the position it was dealt at
    reveals = [env for env in later if env.kind == "PLAY_REVEAL"]
    assert len(reveals) == 10 * (ROUNDS - first_back) and not any(env.body.get("auto") for env in reveals)
    assert all(10 * GRIEFER <= env.body["position"] < 10 * GRIEFER + 10 for env in reveals)
    # Its hand is public: every node (a spectator's too) sees it, and the reveals are those cards at those positions.
    for peer, session in net.sessions.items():
        deal = session.deal
        # The griefer's player is told that its hand is open (the terminal's log); nobody else is told so of itself.
        told = [line for line in net.models.get(peer, TableModel()).log if line.startswith("You forfeited")]
        assert len(told) == (1 if peer == net.identities[GRIEFER].peer else 0), told
        for r in range(first_back, ROUNDS):
            known = deal.rounds[r].known[GRIEFER]
            assert r not in session.voided and GRIEFER not in deal.rounds[r].seats
            for env in reveals:
                if env.body["round"] == r:
                    assert known[env.body["card"]] == env.body["position"]


def test_a_seat_that_forfeited_and_stalls_again_is_dropped_without_voiding_the_round() -> None:
    """Back, it stalls at its card of turn 5 of round 4: the others vote it out there, the stand-in plays its open
    hand and the round is scored (before, a shuffling seat dropped mid-round voided the round)."""
    net, made = griefer(stall_turn_of=3)
    assert ("PLAY_COMMIT", 3) in made.state["withheld"]
    phase, result, voided, forfeits, back = agreed(net)
    assert phase == "over" and result.rounds == ROUNDS
    assert voided == (0,) and forfeits == ((GRIEFER, 0),)
    assert len(back) == 2 and back[1] > 3  # dropped again in round 4, back again later
    host = net.sessions[net.identities[0].peer]
    assert host.table.absences[GRIEFER][1][0].round == 3  # its second drop was in round 4, which was scored
    assert sum(host.game.history[3]) > 0 and host.game.history[3][GRIEFER] >= 0


def plays_from_the_open_hand(r: int, turn: int):
    """Seat 0's rule: at `turn` of round `r` it commits to and reveals a card of the griefer's open hand, claiming
    it lay at a position of its own hand it has not played from (the commitment binds exactly what is revealed)."""

    def rule(adv: Adversary, env: Envelope, body: dict) -> None:
        if env.kind == "PLAY_COMMIT" and (env.body["round"], env.body["turn"]) == (r, turn):
            st = adv.session.deal.rounds[r]
            card = sorted(adv.session.game.round.hands[GRIEFER])[0]
            position = min(set(st.known[0].values()) - st.used.get(0, set()))
            nonce = bytes([turn + 1]) * 32
            adv.state["play"] = (card, position, nonce)
            body["commit"] = commitment("play", adv.net.game_id, r, turn, 0, sealed_value(card, position), nonce)
        elif env.kind == "PLAY_REVEAL" and (env.body["round"], env.body["turn"]) == (r, turn):
            body["card"], body["position"], body["nonce"] = adv.state["play"]
            adv.fired = True

    return rule


def test_a_card_of_the_forfeiters_open_hand_played_by_another_is_public_at_every_node_its_own_too() -> None:
    """protocol.md 17.6: a card of an open hand is public, so another seat playing it is `not-in-hand` at every
    node; the forfeiter's own node among them, whose hand is open: it raises no alarm and sends no SEALED_KEYS (it
    has no layer of its own to show). Before (the reference's SealedDeal.check_play), its node took the card for
    one of its own hidden hand: it sent an alarm with keys of a round it never shuffled in, and took the play where
    every other node expelled the liar."""
    r = 3
    net, _made = griefer(liar=plays_from_the_open_hand(r, 2))
    x, liar = net.identities[GRIEFER].peer, net.identities[0].peer
    for peer in net.peers[1:]:  # a proven rule break: the liar is expelled and the game goes on (section 12)
        assert net.sessions[peer].phase == "over", (peer == x, net.sessions[peer].phase)
        # not-in-hand, then `absent`: the liar had shuffled, and its drop voids the round (17.9)
        assert [f.code for f in net.faults(peer) if f.peer == liar] == ["not-in-hand", "absent"], (peer == x)
    assert GRIEFER not in net.sessions[x].slot("SEALED_KEYS", r)
    assert not [env for env in griefers_messages(net) if env.kind == "SEALED_KEYS" and env.body["round"] == r]


HIDDEN_CARD_ROUND = 2


def hidden_card_game() -> tuple[GrieferNet, Cheat]:
    """The griefer withholds its unlock of round 1 (voted out: the round is void, it forfeits), is back dealt open,
    and at turn 4 of round 3 commits to and reveals a card of seat 2's hidden hand at a position of its own open
    hand. Every seat the game waits on for good is voted out."""
    r, turn, owner = HIDDEN_CARD_ROUND, 3, 2

    def grief(c: Cheat, kind: str, body: dict) -> list | None:
        rnd = body.get("round")
        if kind == "SEALED_UNLOCK" and rnd == 0:
            c.fired = True
            return []  # round 1 void: it forfeits, dealt open from round 2 on
        if kind == "PLAY_COMMIT" and (rnd, body["turn"]) == (r, turn):
            st = c.session.table.deal.rounds[r]
            own_card, nonce = c.session.table.plays[(r, turn)]
            target = sorted(net.sessions[net.identities[owner].peer].table.game.round.hands[owner])[0]
            c.state.update(target=target, nonce=nonce)
            body["commit"] = commitment("play", net.game_id, r, turn, GRIEFER,
                                        sealed_value(target, st.known[GRIEFER][own_card]), nonce)
            return [(kind, body)]
        if kind == "PLAY_REVEAL" and (rnd, body["turn"]) == (r, turn) and "target" in c.state:
            body["card"] = c.state["target"]
            c.state["revealed"] = True
            return [(kind, body)]
        return None

    net = GrieferNet(PLAYERS, seed=5, settings=Settings(players=PLAYERS, variant="standard", max_rounds=ROUNDS,
                                                      point_limit=None, deal="sealed"), bots="heuristic")
    made = Cheat(net, GRIEFER, grief)
    played_out(net, lambda seat: seat != 0)
    return net, made


def test_a_card_of_a_hidden_hand_played_from_the_forfeiters_open_hand_is_not_in_hand_everywhere() -> None:
    """The session-33 review: the griefer, back with an open hand, commits to and reveals a card of an honest
    shuffler's HIDDEN hand (a lucky guess, one in three at four seats) at a position of its own open hand. Its
    owner's node checked 'a card of my own hand' first and raised an alarm, where every other node found the play
    not-in-hand; the audit (which looks at no open hand) then named the honest owner for a false alarm and it
    forfeited, and the nodes ended apart. Now an open hand's play is checked against its own cards first (17.8),
    at every node alike: the griefer is expelled, nobody raises an alarm, and every node ends the same game
    (both verifiers alike: tests/peer/test_forfeit_alarm_agrees.py)."""
    net, made = hidden_card_game()
    assert made.state.get("revealed"), made.state
    x = net.identities[GRIEFER].peer
    phase, _result, voided, forfeits, _back = agreed(net)  # every node and every replay alike; all verify
    assert phase == "over" and voided == (0,) and forfeits == ((GRIEFER, 0),), (phase, voided, forfeits)
    for peer in net.peers:
        if peer != x:
            faults = net.faults(peer)
            assert all(f.peer == x for f in faults), [f.describe() for f in faults]
            assert [f.code for f in faults][:2] == ["absent", "not-in-hand"], [f.describe() for f in faults]
            assert not [env for env in map(open_envelope, net.sessions[peer].journal.messages)
                        if env.kind == "SEALED_KEYS" and env.body["round"] == HIDDEN_CARD_ROUND and env.body.get("alarm")]

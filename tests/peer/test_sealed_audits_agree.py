"""Sections 17.7-17.9 in both verifiers: tests/protocol/test_sealed_game.py's cheats on the sealed deal (a shuffle
or an unlock that does not recompute, a key that does not open its commitment or is no key, a card played from a
position that holds another, a victim's alarm, a false alarm, an alarm before the deal is in, a row that opens to
no card, one card revealed twice in a turn, a shuffle refused on arrival) give, for every seat's and the
spectator's transcript, the same lines from `node peer.js verify` as from `p2pnimmt verify` (byte for byte, same
exit status): the audit at the round's end or at once, the verdict, the void round, the seat dropped. Then a tamper
sweep over one audited game: the same record, kind of problem and peer.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from test_verify_agrees import mutations, same_lines, typescript_verdicts, verdicts_differ

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import outcomes, steps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from sealed_adversary import (  # noqa: E402
    Cheat,
    SealedNet,
    change_field,
    cheat,
    deal_state,
    keys_body,
    run_with,
    sealed,
    swap_into_hand,
)
from test_attack_torsion import twins  # noqa: E402
from test_drop import vote_out  # noqa: E402
from test_own_steps import frame, own_hand_twin  # noqa: E402
from test_sealed_game import (  # noqa: E402
    ANOTHER_KEY,
    SHUFFLE_AT_ONCE,
    alarm_after,
    hand_position,
    keep_layer_on_a_row,
    keep_layer_on_victims_hand,
    own_layer,
    recommit,
    substitute_in_victims_hand,
    true_order,
    unplayed,
)


def substitute_undealt(c, deck):
    deck[80] = own_layer(c, g.encoding(55))
    return deck


def swap_two_of_seat_3(c, values):
    lay = deal_state(c.session).layout
    (_, i), (_, j) = hand_position(lay, 1, 3, 0), hand_position(lay, 1, 3, 3)
    values[i], values[j] = values[j], values[i]
    return values


def false_alarm(c, kind, body):
    if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, 0):
        c.fired = True
        return [("SEALED_KEYS", keys_body(c.session, alarm=True))]
    return None


def undealt_card(net):
    def choose(session) -> int:
        st = deal_state(session)
        return min(set(st.cards) - set(true_order(net)[: st.layout.dealt]))

    return swap_into_hand(net, 1, 0, choose)


def the_same_card_twice(turn: int):
    """Seat 1 plays, at `turn`, the highest card of seat 2's hand, and seat 2 plays that card too: one card
    revealed twice in a turn (the deal broke for everyone, 17.8), and seat 2's alarm."""

    def make(net):
        victim = net.sessions[net.identities[2].peer]
        honest = victim.play

        def play(card: int):
            if victim.round == 0 and victim.turn == turn:
                card = max(victim.game.round.hands[2])
            return honest(card)

        victim.play = play
        return swap_into_hand(net, 1, turn, lambda s: max(unplayed(net, s, 2)))

    return make


def fired(made) -> bool:
    if isinstance(made, list):
        return all(fired(m) for m in made)
    return made["fired"] if isinstance(made, dict) else made.fired


def swap_two_of_seat_3_by(unlocker: int):
    """A change to `unlocker`'s unlock: positions 0 and 3 of seat 3's hand swapped."""

    def swap(c, values):
        lay = deal_state(c.session).layout
        (_, i), (_, j) = hand_position(lay, unlocker, 3, 0), hand_position(lay, unlocker, 3, 3)
        values[i], values[j] = values[j], values[i]
        return values

    return swap


def undone_swap(net) -> list[Cheat]:
    """Seat 0 swaps two values of seat 3's hand in its unlock; seat 1, acting with it, unlocks what it received and
    swaps them back: a wrong step undone within the unlock (17.7 step 0)."""
    return [Cheat(net, s, change_field("SEALED_UNLOCK", "values", swap_two_of_seat_3_by(s))) for s in (0, 1)]


CHEATS = {  # name: () -> (net, what tells the cheat was made)
    "shuffle-undealt": lambda: cheat(4, 3, change_field("SEALED_SHUFFLE", "deck", substitute_undealt)),
    "shuffle-victim-alarm": lambda: cheat(4, 3, change_field("SEALED_SHUFFLE", "deck", substitute_in_victims_hand)),
    "unlock-victim-alarm": lambda: cheat(4, 1, change_field("SEALED_UNLOCK", "values", keep_layer_on_victims_hand)),
    "unlock-swapped": lambda: cheat(4, 1, change_field("SEALED_UNLOCK", "values", swap_two_of_seat_3)),
    "row-unlock-broken": lambda: cheat(4, 1, change_field("SEALED_UNLOCK", "values", keep_layer_on_a_row)),
    "play-undealt": lambda: run_with(4, undealt_card),
    "play-another-hand-9": lambda: run_with(4, lambda net: swap_into_hand(net, 1, 9, lambda s: max(unplayed(net, s, 2)))),
    "card-twice-in-a-turn": lambda: run_with(4, the_same_card_twice(4)),
    "key-another": lambda: cheat(4, 1, change_field("SEALED_KEYS", "key", lambda c, e: ANOTHER_KEY.e)),
    "key-committed-another": lambda: cheat(4, 1, recommit(ANOTHER_KEY.e)),
    "key-committed-none": lambda: cheat(4, 1, recommit(bytes(32))),
    "false-alarm": lambda: cheat(4, 1, false_alarm),
    "alarm-before-the-unlocks": lambda: cheat(4, 1, alarm_after("SEALED_UNLOCK")),
    "shuffle-duplicate-at-once": lambda: cheat(4, 1, change_field("SEALED_SHUFFLE", "deck", SHUFFLE_AT_ONCE["duplicate"])),
    "unlock-framed": lambda: cheat(4, 2, frame(3)),  # 17.5 step 3: the framer named, the framed seat kept
    "unlock-own-hand-twin": lambda: cheat(4, 1, own_hand_twin()),
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_both_verifiers_agree_on_a_sealed_cheat(name: str, tmp_path: Path) -> None:
    net, made = CHEATS[name]()
    assert fired(made), "the cheat was not made: the case is not exercised"
    outs = []
    for who in (net.watchers[0], net.identities[0]):  # a spectator's transcript and a seat's (seat 0: honest, but
        path = tmp_path / f"{name}-{who.peer.hex()[:8]}.p2pt"  # it may be the one whose alarm was false)
        path.write_bytes(bytes(net.transcripts[who.peer]))
        outs.append(same_lines(path))
    # Both verify and say the round was void (a shuffle refused on arrival drops the shuffler before it
    # shuffled: the round is played).
    verified = [out for code, out, _err in outs if code == 0]
    assert len(verified) == len(outs), [err for _c, _o, err in outs]
    if name != "shuffle-duplicate-at-once":
        assert all("round 1: void, nobody scores it: the audit of round 1 found" in out for out in verified), verified[0]


def test_both_verifiers_pass_a_wrong_step_undone_within_its_phase(tmp_path: Path) -> None:
    """17.7 step 0: seat 0's wrong unlock, undone by seat 1's, leaves the deal's outcomes an honest deal's. Every
    peer's audit finds nothing, the game is scored in full, and both verifiers say so in the same words; recomputing
    every step (17.7 steps 1-2, as before step 0) would have named seat 0."""
    net, made = run_with(4, undone_swap)
    assert fired(made), "the cheat was not made: the case is not exercised"
    session = net.sessions[net.watchers[0].peer]
    st = deal_state(session)
    slot = session.slot
    keys = {s: (env.body["key"], env.body["seed"]) for s, env in slot("SEALED_KEYS", 0).items()}
    shuffles = {s: env.body["deck"] for s, env in slot("SEALED_SHUFFLE", 0).items()}
    unlocks = {s: env.body["values"] for s, env in slot("SEALED_UNLOCK", 0).items()}
    assert outcomes(st.cards, st.layout, st.seats, shuffles, unlocks, keys) is not None
    fault = steps(st.cards, st.layout, st.seats, shuffles, unlocks, keys)
    assert (fault.seat, fault.step, fault.index) == (0, "unlock", st.layout.hand(3)[0])
    for who in (net.watchers[0], net.identities[2]):
        path = tmp_path / f"undone-{who.peer.hex()[:8]}.p2pt"
        path.write_bytes(bytes(net.transcripts[who.peer]))
        code, out, err = same_lines(path)
        assert code == 0 and "verified:" in out and "void" not in out and "fault" not in out.lower(), (out, err)


def twin_at(index: int):
    """A change to a SEALED_SHUFFLE's deck or a SEALED_UNLOCK's values: the value at `index` replaced by a twin, P + T
    with T of order 8 (protocol.md 17.1), taken on arrival (no other value of the list shares its eightfold)."""

    def change(c, values):
        values[index] = twins(values[index])[0]
        return values

    return change


@pytest.mark.parametrize("seat, kind, field, index, step", [
    (1, "SEALED_SHUFFLE", "deck", 5, "shuffle"),  # a shuffle before the last: seat 2's layer removes the twin's T
    (0, "SEALED_UNLOCK", "values", 31, "unlock"),  # position 41, a row, which seat 1 unlocks after seat 0
])
def test_both_verifiers_pass_a_twin_the_next_layer_removes(seat: int, kind: str, field: str, index: int, step: str,
                                                           tmp_path: Path) -> None:
    """17.7, "Why the outcomes suffice" (session 46): a lone seat's twin of a value, in a shuffle before the last or
    at a position a later unlocker unlocks, is removed by the next layer itself; the deal's outcomes are an honest
    deal's, every peer's audit names nobody and the round is scored, in both verifiers' words alike; recomputing
    every step would have named the seat."""
    net, made = cheat(4, seat, change_field(kind, field, twin_at(index)))
    assert made.fired, "the cheat was not made: the case is not exercised"
    session = net.sessions[net.watchers[0].peer]
    st = deal_state(session)
    keys = {s: (env.body["key"], env.body["seed"]) for s, env in session.slot("SEALED_KEYS", 0).items()}
    shuffles = {s: env.body["deck"] for s, env in session.slot("SEALED_SHUFFLE", 0).items()}
    unlocks = {s: env.body["values"] for s, env in session.slot("SEALED_UNLOCK", 0).items()}
    assert outcomes(st.cards, st.layout, st.seats, shuffles, unlocks, keys) is not None
    fault = steps(st.cards, st.layout, st.seats, shuffles, unlocks, keys)
    assert (fault.seat, fault.step) == (seat, step), fault
    for who in (net.watchers[0], net.identities[2]):
        path = tmp_path / f"twin-{who.peer.hex()[:8]}.p2pt"
        path.write_bytes(bytes(net.transcripts[who.peer]))
        code, out, err = same_lines(path)
        assert code == 0 and "verified:" in out and "void" not in out and "fault" not in out.lower(), (out, err)


def keys_after(kind: str, turn: int = 0):
    """A Cheat change: after its first `kind` message of round 1 (of `turn`), its true SEALED_KEYS, without alarm."""

    def change(c: Cheat, k: str, body: dict) -> list | None:
        if k == kind and body.get("round") == 0 and body.get("turn", 0) == turn and not c.fired:
            c.fired = True
            return [(k, body), ("SEALED_KEYS", keys_body(c.session))]
        return None

    return change


@pytest.mark.parametrize("kind, turn", [("SEALED_SHUFFLE", 0), ("SEALED_UNLOCK", 0), ("PLAY_COMMIT", 2),
                                        ("PLAY_REVEAL", 2)])
def test_both_verifiers_take_keys_sent_before_the_round_end(kind: str, turn: int, tmp_path: Path) -> None:
    """17.7 (session 46's text): a SEALED_KEYS without alarm before the round's end is no fault and stops nothing;
    it is held, the round is played out, audited and scored, in both verifiers' words alike."""
    net, made = cheat(4, 1, keys_after(kind, turn))
    assert made.fired, "the cheat was not made: the case is not exercised"
    for who in (net.watchers[0], net.identities[2]):
        path = tmp_path / f"early-{who.peer.hex()[:8]}.p2pt"
        path.write_bytes(bytes(net.transcripts[who.peer]))
        code, out, err = same_lines(path)
        assert code == 0 and "verified:" in out and "void" not in out and "fault" not in out.lower(), (out, err)


OPEN = 1  # the seat that forfeits in round 1 (a false alarm) and is back, dealt open, from round 2


def open_hand_and_hidden_hand_play_one_card(hidden: int) -> tuple[SealedNet, dict]:
    """Four seats, four rounds. Seat OPEN raises a false alarm in round 1 (the audit names it: it forfeits) and asks
    for its seat back at once; in round 3, dealt open, it plays its highest card at turn 4, and seat `hidden` (which
    shuffled) reveals that same card in that turn, claiming a position of its own hidden hand, then sends its keys."""
    from p2pnimmt.protocol.events import SeatDropped
    from p2pnimmt.protocol.session import LocalError

    round_, turn = 2, 3
    net = SealedNet(4, seed=7, settings=sealed(4, 4), bots="random")
    back, liar = net.sessions[net.identities[OPEN].peer], net.sessions[net.identities[hidden].peer]
    record: dict = {}

    def false_alarm_once(c: Cheat, kind: str, body: dict) -> list | None:
        if kind == "PLAY_REVEAL" and (body["round"], body["turn"]) == (0, 3):
            return [(kind, body), ("SEALED_KEYS", keys_body(c.session, 0, alarm=True))]
        return None

    def keys_after_the_lie(c: Cheat, kind: str, body: dict) -> list | None:
        if kind == "PLAY_REVEAL" and (body.get("round"), body["turn"]) == (round_, turn):
            c.fired = True  # its own node sees no broken deal (its faked hand holds the card): it sends its keys
            return [(kind, body), ("SEALED_KEYS", keys_body(c.session, round_))]
        return None

    Cheat(net, OPEN, false_alarm_once)
    Cheat(net, hidden, keys_after_the_lie)
    react, honest_open, honest_liar = net.react, back.play, liar.play

    def reacting(peer: bytes, event: object) -> None:
        react(peer, event)
        if peer == net.identities[OPEN].peer and isinstance(event, SeatDropped) and event.seat == OPEN:
            try:
                net.handle(peer, back.rejoin())
            except LocalError:
                pass

    def open_play(card: int) -> list:
        if (back.round, back.turn) == (round_, turn):
            card = record["card"] = max(back.game.round.hands[OPEN])
        return honest_open(card)

    def hidden_play(card: int) -> list:
        if (liar.round, liar.turn) == (round_, turn) and "lie" not in record:
            fake = max(liar.game.round.hands[OPEN])
            known = deal_state(liar, round_).known[hidden]
            position = known.pop(card)
            known[fake] = position
            hand = liar.game.round.hands[hidden]
            hand.remove(card)
            hand.append(fake)
            hand.sort()
            record["lie"] = (fake, position, card)
            return honest_liar(fake)
        return honest_liar(card)

    net.react = reacting  # type: ignore[method-assign]
    back.play, liar.play = open_play, hidden_play  # type: ignore[method-assign]
    net.start()
    net.run()
    if net.sessions[net.identities[0].peer].phase != "over":
        vote_out(net, hidden)  # the liar's node waits for the turn it sees unbroken; the table is at its keys
    return net, record


@pytest.mark.parametrize("hidden, words", [
    # revealed after the open hand's reveal: the deal is broken, the audit at once names the liar
    (2, "round 3: void, nobody scores it: the audit of round 3 found seat 2 (p2) at fault: played {card} from "
        "position {position}, which opens to {instead}"),
    # revealed first: the card lies in a known hand, not-in-hand at every node (the round void: it shuffled)
    (0, "lost its seat for a proven rule break: p0 (not-in-hand, the stand-in played it from round 3, step 12)"),
])
def test_a_hidden_hand_revealing_a_card_an_open_hand_plays_in_the_same_turn(hidden: int, words: str,
                                                                             tmp_path: Path) -> None:
    """17.6 (session 46's text): whether a hidden hand's reveal of a card of an open hand is `not-in-hand` or breaks
    the deal depends on whether the open hand revealed it earlier in the turn (still in that hand until the turn
    is resolved): the turn's earlier reveals are looked at before the public cards. Both verifiers alike."""
    net, record = open_hand_and_hidden_hand_play_one_card(hidden)
    assert "card" in record and "lie" in record and record["card"] == record["lie"][0], record
    card, position, instead = record["lie"]
    for who in (net.watchers[0], net.identities[3]):
        path = tmp_path / f"open-{hidden}-{who.peer.hex()[:8]}.p2pt"
        path.write_bytes(bytes(net.transcripts[who.peer]))
        code, out, err = same_lines(path)
        assert code == 0, err
        assert words.format(card=card, position=position, instead=instead) in out, out


def test_tamper_sweep_of_an_audited_game(compiled: Path) -> None:
    """Byte flips, records dropped, swapped, repeated and cuts of a spectator's transcript of a game whose round 1
    an alarm stopped: the same verdict from both."""
    net, made = CHEATS["play-another-hand-9"]()
    assert fired(made)
    data = bytes(net.transcripts[net.watchers[0].peer])
    rng = random.Random("audited")
    cases = rng.sample(mutations(data, rng), 40)
    differ, unsupported = verdicts_differ(cases, typescript_verdicts(compiled, cases, timeout=600))
    assert not unsupported, unsupported
    assert not differ, f"{len(differ)} of {len(cases)} verdicts differ:\n" + "\n".join(differ[:10])

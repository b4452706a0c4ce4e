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
from sealed_adversary import Cheat, change_field, cheat, deal_state, keys_body, run_with, swap_into_hand  # noqa: E402
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

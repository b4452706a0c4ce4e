"""The words of the faults a seat's own signed messages prove in play (protocol.md 8, "The words of a refusal",
informative; issue 25): a Python seat that cheats in one way, at a table where the other seats and a spectator are
TypeScript nodes, and the same table all in Python. Every node records the fault in the same bytes as the Python
node in its place: its code, its detail ("seat s (name) sent ...", the reference's words) and its evidence, so the
transcripts agree byte for byte. (Before, a TypeScript node wrote "KIND seq N: ..." for these, with the second
message alone as a duplicate's evidence and the reveal alone as a broken commitment's; until session 17 it had its
own words for a sealed hand's not-in-hand, seed-mismatch, bad-pick, bad-row, result-mismatch and the sealed deal's
arrival checks.) A fatal fault (a START or START_ACK proves it) stops the game on every node, alike; any other
costs the cheat its seat. A lie the others find only at the round-end audit is made in the cheat's own session
(`Means`), so that it plays on until they do.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest
from mixed import NodeSeats
from test_mixed_tables import (
    Table,
    check,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
    node_by_node,
)

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.commitments import NONCE_SIZE, commitment
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.sealed_deal import sealed_value
from p2pnimmt.protocol.transcript import records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from adversary import Adversary  # noqa: E402
from sealed_adversary import Cheat, change_field, silence, swap_into_hand  # noqa: E402
from test_sealed_audits_agree import false_alarm  # noqa: E402
from test_sealed_game import ANOTHER_KEY, recommit  # noqa: E402

CHEAT = 2
TURN_OF_ANOTHER, TURN_OF_NOBODY = 3, 2  # seed 11's turns where another seat chooses a row, and nobody


def duplicate(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """A second PLAY_COMMIT for turn 2, with the next seq and another commitment."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        b = adv.chain(env.kind, dict(body, commit=hashlib.sha256(b"another").digest()))
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


def broken_commitment(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """The reveal of turn 2 names another card of its hand than the one it committed to."""
    if env.kind == "PLAY_REVEAL" and body["turn"] == 1:
        hand = adv.session.table.game.round.hands[adv.seat]
        body["card"] = next(c for c in sorted(hand) if c != body["card"])
        adv.fired = True
    return None


def plays_instead(choose: Any) -> Any:
    """Turn 2's commitment and reveal are of `choose(adv, body)`'s (card, position) (position None in an open game),
    not of the card it was going to play: it opens its own commitment."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind in ("PLAY_COMMIT", "PLAY_REVEAL") and body["turn"] == 1:
            if env.kind == "PLAY_COMMIT":
                card, position = choose(adv, body)
                nonce = hashlib.sha256(b"a nonce").digest()[:NONCE_SIZE]
                adv.state["play"] = (card, position, nonce)
                value = bytes([card]) if position is None else sealed_value(card, position)
                body["commit"] = commitment("play", adv.net.game_id, body["round"], 1, adv.seat, value, nonce)
            else:
                body["card"], position, body["nonce"] = adv.state["play"]
                if position is not None:
                    body["position"] = position
                adv.fired = True
        return None
    return rule


def unseen(adv: Adversary, body: dict[str, Any]) -> tuple[int, None]:
    """A card of the deck that is neither in its hand nor in a row."""
    table = adv.session.table
    hand = table.game.round.hands[adv.seat]
    seen = {c for row in table.game.round.rows for c in row}
    return next(c for c in range(1, 105) if c not in hand and c not in seen), None


not_in_hand = plays_instead(unseen)


def own(adv: Adversary) -> tuple[dict[int, int], int]:
    """Its sealed hand (card -> deck position) and the position it played from in turn 1."""
    known = adv.session.table.deal.rounds[0].known[adv.seat]
    return known, known[adv.played[(0, 0)]]


def unplayed(adv: Adversary) -> tuple[int, int]:
    """A card of its sealed hand it has not played, and its position."""
    known, first = own(adv)
    return next((c, p) for c, p in sorted(known.items()) if p != first)


SEALED_PLAYS = {  # name: (card, position) of its play in turn 2, and Python's words
    "not-in-the-deck": (lambda adv, body: (200, unplayed(adv)[1]), "seat 2 (p2) played 200, which is not in this "
                        "game's deck"),
    "position-not-dealt": (lambda adv, body: (unplayed(adv)[0], 50), "seat 2 (p2) played from position 50, which "
                           "was not dealt (0..43)"),
    "position-of-a-row": (lambda adv, body: (unplayed(adv)[0], 41), "seat 2 (p2) played from position 41, which is "
                          "a row's"),
    "position-of-a-seat": (lambda adv, body: (unplayed(adv)[0], 3), "seat 2 (p2) played from position 3, which is "
                           "seat 0's"),
    "position-again": (lambda adv, body: (unplayed(adv)[0], own(adv)[1]),
                       "seat 2 (p2) played from position 25 a second time"),
    "a-public-card": (lambda adv, body: (adv.session.table.game.round.rows[0][0], unplayed(adv)[1]),
                      "seat 2 (p2) played 10: 10 is on the table, in a pile or in a known hand"),
}


def other_state(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Turn 2's PLAY_COMMIT names another game state."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        body["state"] = hashlib.sha256(b"another state").digest()
        adv.fired = True
    return None


def out_of_turn(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Its first DRAFT_PICK names the pick after its own (the next seat's)."""
    if env.kind == "DRAFT_PICK" and not adv.fired:
        body["pick"] += 1
        adv.fired = True
    return None


def other_start(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Its START_ACK acknowledges another START (fatal: it aborts the game on every node)."""
    if env.kind == "START_ACK":
        body["start"] = hashlib.sha256(b"another START").digest()
        adv.fired = True
    return None


def ahead(turn: int) -> Any:
    """Its PLAY_COMMIT of turn 2 names turn `turn` + 1 instead."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
            body["turn"] = turn
            adv.fired = True
        return None
    return rule


def standin_for_itself(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """After its PLAY_COMMIT of turn 2, a STANDIN asking the stand-in to play its own seat."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        b = adv.chain("STANDIN", {"round": body["round"], "turn": 1, "seat": adv.seat})
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


def drop_with_a_place(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """After its PLAY_COMMIT of turn 2, a DROP of seat 0 at that step naming a place, which the step does not have."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        at = Step.of_message(body["round"], env.kind, body, adv.seat)
        b = adv.chain("DROP", {"round": body["round"], "step": at.number, "seat": 0, "place": 1})
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


def votes_twice(first: str, second: str) -> Any:
    """After its PLAY_COMMIT of turn 2, a `first` then a `second` (DROP or KEEP) of seat 0 at that step: a seat's chain
    of slots (section 9, item 7) answers whether it signed the other vote on that seat there."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == "PLAY_COMMIT" and body["turn"] == 1 and not adv.fired:
            a = adv.chain(env.kind, body, env)
            at = Step.of_message(body["round"], env.kind, body, adv.seat)
            b = adv.chain(first, {"round": body["round"], "step": at.number, "seat": 0})
            c = adv.chain(second, {"round": body["round"], "step": at.number, "seat": 0})
            adv.fired = True
            return adv.to(a.wire) + adv.to(b.wire) + adv.to(c.wire)
        return None
    return rule


def after(kind: str, turn: int | None, extra: Any, before: bool = False) -> Any:
    """After its `kind` of turn `turn` + 1 (its first such message if `turn` is None), or just `before` it, the
    message `extra(adv, body)` = (kind, body), signed as the next of its chain."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == kind and not adv.fired and (turn is None or body.get("turn") == turn):
            first, second = ((lambda: adv.chain(*extra(adv, body))), (lambda: adv.chain(env.kind, body, env)))
            a, b = (first(), second()) if before else (second(), first())
            adv.fired = True
            return adv.to(a.wire) + adv.to(b.wire)
        return None
    return rule


def edit(kind: str, change: Any, turn: int | None = None) -> Any:
    """Its first `kind` (of turn `turn` + 1, if given) with `change(adv, body)` made to its body."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == kind and not adv.fired and (turn is None or body.get("turn") == turn):
            change(adv, body)
            adv.fired = True
        return None
    return rule


def another_contribution(adv: Adversary, body: dict[str, Any]) -> None:
    body["contribution"] = hashlib.sha256(b"another contribution").digest()


def a_card_not_open(adv: Adversary, body: dict[str, Any]) -> None:
    draft = adv.session.table.game.draft
    body["card"] = next(c for c in range(1, 105) if c not in draft.open_cards and c != body["card"])


def no_such_row(adv: Adversary, body: dict[str, Any]) -> None:
    body["row"] = 4


def another_state(adv: Adversary, body: dict[str, Any]) -> None:
    body["state"] = hashlib.sha256(b"another state").digest()


def other_winners(adv: Adversary, body: dict[str, Any]) -> None:
    body["winners"] = [3] if body["winners"] != [3] else [1]


def duplicate_point(adv: Adversary, body: dict[str, Any]) -> None:
    body["deck"][1] = body["deck"][0]


def low_order_point(adv: Adversary, body: dict[str, Any]) -> None:
    body["values"][2] = bytes(32)


def same_value_twice(adv: Adversary, body: dict[str, Any]) -> None:
    body["values"][1] = body["values"][0]


def inverse(value: bytes) -> bytes:
    """1/u: the u-coordinate of P + (0, 0), P's twin (protocol.md 17.1): valid and distinct, but the next clamped
    scalar maps the two to one value."""
    return pow(int.from_bytes(value, "little"), g.P - 2, g.P).to_bytes(32, "little")


def twin_points(adv: Adversary, body: dict[str, Any]) -> None:
    body["deck"][1] = inverse(body["deck"][0])


def twin_values(adv: Adversary, body: dict[str, Any]) -> None:
    body["values"][1] = inverse(body["values"][0])


def a_position(adv: Adversary, body: dict[str, Any]) -> None:
    body["position"] = 3


def no_card(adv: Adversary, body: dict[str, Any]) -> None:
    body["card"] = 300


def without_a_clamped_inverse() -> bytes:
    """The first clamped scalar of a fixed stream whose inverse mod l is not clamped (about half of them): a key no
    honest seat draws (17.3), which its commitment opens all the same."""
    for i in range(100):
        e = g.clamp(hashlib.sha256(b"no clamped inverse/%d" % i).digest())
        try:
            g.key_pair_from(e)
        except ValueError as exc:
            assert "no clamped inverse" in str(exc), exc
            return e
    raise AssertionError("every draw has a clamped inverse")


NO_INVERSE = without_a_clamped_inverse()


class Means:
    """A cheat made in the seat's own session, `make(net, seat)` (what tells it was made): for a lie the others find
    only later (the round-end audit), the seat's own view holds it too, so that it plays on until they do."""

    def __init__(self, make: Any) -> None:
        self.make = make


def itself(change: Any) -> Means:
    """sealed_adversary.Cheat: its session signs and accepts what `change` makes of each message it sends."""
    return Means(lambda net, seat: Cheat(net, seat, change))


def undealt_or_anothers(session: Any) -> int:
    """A card of the deck neither in its hand nor in a row (another seat's, or one nobody was dealt)."""
    rnd = session.game.round
    return min(set(range(1, 105)) - set(rnd.hands[CHEAT]) - {c for row in rnd.rows for c in row})


def swap_undealt(c: Any, deck: list[bytes]) -> list[bytes]:
    """Its shuffle output with two undealt values swapped: points as valid as before, found by the audit alone."""
    deck[100], deck[101] = deck[101], deck[100]
    return deck


def swap_seat_3s(c: Any, values: list[bytes]) -> list[bytes]:
    """Its unlock with the values of seat 3's positions 30 and 33 swapped: seat 3's hand still opens (two cards
    trade places), and the audit finds the unlock wrong."""
    values[20], values[23] = values[23], values[20]
    return values


def second_start(adv: Adversary, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "START", dict(body)


def own_ack(adv: Adversary, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "START_ACK", {"start": adv.sent[-1].hash}


def row_choice(turn: int) -> Any:
    def extra(adv: Adversary, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "ROW_CHOICE", {"round": body["round"], "turn": turn, "row": 0}
    return extra


def message(kind: str, **fields: Any) -> Any:
    def extra(adv: Adversary, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return kind, {"round": body["round"], **fields}
    return extra


H = hashlib.sha256(b"h").digest()

# (id, deal, rule, code, words, cheating seat); a START's and a START_ACK's faults are fatal (section 12)
CASES = [("duplicate", "open", duplicate, "duplicate", "seat 2 (p2) sent two PLAY_COMMIT messages for the same step"),
         ("bad-reveal", "open", broken_commitment, "bad-reveal",
          "seat 2 (p2) revealed 27, which does not match its commitment"),
         ("not-in-hand", "open", not_in_hand, "not-in-hand", "seat 2 (p2) played 1, which is not in its hand"),
         ("state-mismatch", "open", other_state, "state-mismatch",
          "seat 2 (p2) committed on a different game state (round 1, turn 2)"),
         ("out-of-turn", "draft", out_of_turn, "out-of-turn", "seat 2 (p2) sent pick 4 of round 1, which is seat 3's"),
         ("skipping-ahead", "open", ahead(3), "unexpected",
          "seat 2 (p2) sent PLAY_COMMIT for round 1, turn 4, skipping ahead of its message for round 1, turn 1"),
         ("no-such-turn", "open", ahead(10), "unexpected", "seat 2 (p2) sent PLAY_COMMIT for turn 11: a round has 10 turns"),
         ("standin-for-itself", "open", standin_for_itself, "unexpected",
          "seat 2 (p2) sent STANDIN to ask the stand-in for seat 2, which is itself or no seat"),
         ("drop-with-a-place", "open", drop_with_a_place, "unexpected",
          "seat 2 (p2) sent DROP with a place, which only step 32, step 0 of a draft and steps 0 and 1 of a sealed "
          "game have"),
         ("start-mismatch", "open", other_start, "start-mismatch", "seat 2 (p2) acknowledged a different START"),
         # issue 25, fourteenth sitting: the chain's slots as numbers (web/peer/src/session.ts, chainSlot)
         ("keep-after-its-drop", "open", votes_twice("DROP", "KEEP"), "unexpected",
          "seat 2 (p2) sent KEEP naming seat 0 at round 1, step 5, after its own DROP of that seat there"),
         ("drop-after-its-keep", "open", votes_twice("KEEP", "DROP"), "unexpected",
          "seat 2 (p2) sent DROP naming seat 0 at round 1, step 5, after it went on from that seat's message there"),
         # issue 25, session 17: the words session 16 changed but did not test
         ("second-start", "open", after("START", None, second_start), "unexpected", "seat 0 (p0) sent a second START",
          0),
         ("start-ack-of-its-own", "open", after("START", None, own_ack), "unexpected",
          "seat 0 (p0) sent START_ACK for its own START", 0),
         ("row-choice-for-a-turn-over", "open", after("PLAY_COMMIT", 1, row_choice(0), before=True),
          "wrong-chooser",
          "seat 2 (p2) chose a row for turn 1 of round 1, which is over"),
         ("row-choice-of-another", "open", after("PLAY_REVEAL", TURN_OF_ANOTHER, row_choice(TURN_OF_ANOTHER)),
          "wrong-chooser", f"seat 2 (p2) chose a row in turn {TURN_OF_ANOTHER + 1}, but it is seat 1's choice"),
         ("row-choice-of-nobody", "open", after("PLAY_REVEAL", TURN_OF_NOBODY, row_choice(TURN_OF_NOBODY)),
          "wrong-chooser", f"seat 2 (p2) chose a row in turn {TURN_OF_NOBODY + 1}, but nobody chooses"),
         ("reveal-with-a-position", "open", edit("PLAY_REVEAL", a_position, 1), "bad-reveal",
          "seat 2 (p2)'s reveal in turn 2 lacks the deck position the open deal requires, or has one it does not"),
         ("reveal-without-a-position", "sealed", edit("PLAY_REVEAL", lambda adv, body: body.pop("position"), 1),
          "bad-reveal", "seat 2 (p2)'s reveal in turn 2 lacks the deck position the sealed deal requires, or has one "
          "it does not"),
         ("not-a-card", "open", edit("PLAY_REVEAL", no_card, 1), "not-in-hand",
          "seat 2 (p2) played 300, which is not a card"),
         ("seed-kind-in-a-draft", "draft", after("DRAFT_PICK", None, message("SEED_COMMIT", commit=H)), "unexpected",
          "seat 2 (p2) sent SEED_COMMIT in a game of the draft variant"),
         ("sealed-kind-in-an-open-deal", "open",
          after("PLAY_COMMIT", 1, message("SEALED_KEYS", key=H, seed=H, nonce=H, alarm=False)), "unexpected",
          "seat 2 (p2) sent SEALED_KEYS in a game with the open deal"),
         ("no-such-pick", "draft", after("DRAFT_PICK", None, message("DRAFT_PICK", pick=200, card=1)), "unexpected",
          "seat 2 (p2) sent DRAFT_PICK for pick 201: a draft has 40 picks"),
         ("no-such-step", "open", after("PLAY_COMMIT", 1, message("DROP", step=40, seat=0)), "unexpected",
          "seat 2 (p2) sent DROP for step 40: a round has steps 0..33"),
         # issue 25, session 17: the faults TypeScript worded its own way
         ("seed-mismatch", "open", edit("SEED_REVEAL", another_contribution), "seed-mismatch",
          "seat 2 (p2)'s seed reveal for round 1 does not match its commitment"),
         ("bad-pick", "draft", edit("DRAFT_PICK", a_card_not_open), "bad-pick",
          "seat 2 picked 25, which is not among the open cards"),
         ("bad-row", "sealed", edit("ROW_CHOICE", no_such_row), "bad-row", "seat 2 (p2) chose row 4; rows are 0..3"),
         ("round-end-mismatch", "open", edit("ROUND_END", another_state), "result-mismatch",
          "seat 2 (p2) signed ROUND_END with state b'\\xb5\\x11\\x9d,\\xa2s\\xb1\\xabc\\x7f1\\xba\\xb0\\x12/\\x01FW"
          "\\xf0\\xb5*\\xa1\\x94w\\xca~\\xa5\\x900\\x91\\n\\xc6', but the game gives "
          "b'(\\xd5~\\xb2\\x00L\\xef\\xbf\\x1f"),
         ("game-end-mismatch", "open", edit("GAME_END", other_winners), "result-mismatch",
          "seat 2 (p2) signed GAME_END with winners [3], but the game gives [1]"),
         ("sealed-shuffle-on-arrival", "sealed", edit("SEALED_SHUFFLE", duplicate_point), "sealed-shuffle",
          "seat 2 (p2): its shuffle for round 1: shuffle output: values 0 and 1 are equal"),
         # session 28: twins (P and P + T, T of small order) were taken, and the next honest seat, whose layer made
         # them equal, was expelled in the cheat's place (benchmarks/attacks/torsion_pair.py)
         ("sealed-shuffle-twins", "sealed", edit("SEALED_SHUFFLE", twin_points), "sealed-shuffle",
          "seat 2 (p2): its shuffle for round 1: shuffle output: values 0 and 1 differ by a small-order point"),
         ("sealed-unlock-twins", "sealed", edit("SEALED_UNLOCK", twin_values), "sealed-unlock",
          "seat 2 (p2): its unlock for round 1: seat 2's unlock: positions 0 and 1 now differ by a small-order point"),
         ("sealed-unlock-no-point", "sealed", edit("SEALED_UNLOCK", low_order_point), "sealed-unlock",
          "seat 2 (p2): its unlock for round 1: seat 2's unlock: value 2 is a low-order point"),
         ("sealed-unlock-same-value", "sealed", edit("SEALED_UNLOCK", same_value_twice), "sealed-unlock",
          "seat 2 (p2): its unlock for round 1: seat 2's unlock: positions 0 and 1 now hold the same value"),
         ("sealed-key-unclamped", "sealed", itself(recommit(bytes(32))), "sealed-key",
          f"the audit of round 1 found seat 2 (p2) at fault: key '{'00' * 32}' is not a clamped 32-byte "
          "scalar"),
         # issue 25: a key that opens its commitment and is clamped, but has no clamped inverse
         ("sealed-key-no-inverse", "sealed", itself(recommit(NO_INVERSE)), "sealed-key",
          f"the audit of round 1 found seat 2 (p2) at fault: key {NO_INVERSE.hex()} has no clamped inverse"),
         ("sealed-key-another", "sealed", itself(change_field("SEALED_KEYS", "key", lambda c, e: ANOTHER_KEY.e)),
          "sealed-key", "the audit of round 1 found seat 2 (p2) at fault: revealed a key that does not match its "
          "commitment"),
         ("sealed-shuffle-audited", "sealed", itself(change_field("SEALED_SHUFFLE", "deck", swap_undealt)),
          "sealed-shuffle", "the audit of round 1 found seat 2 (p2) at fault: value 100 of the shuffle output is not "
          "the shuffle of the previous output under the revealed key and seed"),
         ("sealed-unlock-audited", "sealed", itself(change_field("SEALED_UNLOCK", "values", swap_seat_3s)),
          "sealed-unlock", "the audit of round 1 found seat 2 (p2) at fault: position 30 is not the previous value "
          "with the revealed key's layer removed"),
         ("sealed-play-audited", "sealed",
          Means(lambda net, seat: swap_into_hand(net, seat, 1, undealt_or_anothers)), "sealed-play",
          "the audit of round 1 found seat 2 (p2) at fault: played 1 from position 29, which opens to "
          "20"),
         ("sealed-false-alarm", "sealed", itself(false_alarm), "sealed-false-alarm",
          "the audit of round 1 found seat 2 (p2) at fault: said its hand did not open, but the audit finds every "
          "step right"),
         *((f"sealed-{name}", "sealed", plays_instead(choose), "not-in-hand", words)
           for name, (choose, words) in SEALED_PLAYS.items())]
FATAL = {"second-start", "start-ack-of-its-own"}
REFUSED = {"start-mismatch"}  # protocol.md 12, "A refused START_ACK": recorded, not fatal; the game waits for a new start


@pytest.mark.parametrize("deal, rule, code, words, cheat", [(*c[1:5], c[5] if len(c) > 5 else CHEAT) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_cheat_is_recorded_in_the_same_words_by_both(deal: str, rule: Any, code: str, words: str, cheat: int,
                                                      request: pytest.FixtureRequest, tmp_path: Path) -> None:
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, deal, 4, [1, 3, 5], seed=11, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = False
        made = rule.make(net, cheat) if isinstance(rule, Means) else Adversary(net, cheat, rule)
        net.start()
        net.run()
        assert made["fired"] if isinstance(made, dict) else made.fired
    ref, mixed = table.nets
    cheater = mixed.identities[cheat].peer
    for peer in mixed.peers:
        mixed.outcome(peer)  # a TypeScript node's transcript is read with its outcome
    for peer in mixed.peers:  # every node but the cheat's records it, TypeScript or Python
        if peer == cheater:
            continue
        faults = [body for what, body in records(bytes(mixed.transcripts[peer])) if what == "fault"]
        # (a sealed deal's seat expelled after it shuffled has voided the round as well: `absent`, 17.9)
        named = [(f["code"], f["peer"]) for f in faults]
        assert named in ([(code, cheater)], [(code, cheater), ("absent", cheater)]), faults
        assert words in faults[0]["detail"], faults[0]["detail"]
    if request.node.callspec.id in FATAL | REFUSED:  # fatal (or refused): the game stops (or never starts) on every
        for i, peer in enumerate(mixed.peers):  # node, alike (every byte sent, every transcript)
            assert mixed.sent[peer] == ref.sent[peer], f"node {i}: other bytes sent than the Python node in its place"
            assert bytes(mixed.transcripts[peer]) == bytes(ref.transcripts[peer]), f"node {i}: other transcript"
        outcomes = node_by_node(table, tmp_path)
        phases = [o["phase"] for p, o in zip(mixed.peers, outcomes) if p != cheater]  # the cheat never sees its lie
        ends = "starting" if request.node.callspec.id in REFUSED else "aborted"
        assert phases == [ends] * (len(mixed.peers) - 1), phases
    else:  # the cheat loses its seat; the others finish the game alike (every byte sent, every transcript)
        check(table, tmp_path, gone=cheat)


ABSENT = {  # name: (the first message of its own the shuffler does not send, what it stopped before sending)
    "its-unlock": (lambda env: env.kind == "SEALED_UNLOCK", "its unlock"),
    "its-card": (lambda env: env.kind == "PLAY_COMMIT" and env.body["turn"] == 3, "its card"),
    "its-keys": (lambda env: env.kind == "SEALED_KEYS", "its keys"),
}


@pytest.mark.parametrize("stop, what", ABSENT.values(), ids=list(ABSENT))
def test_a_shuffler_that_stops_is_recorded_absent_in_the_same_words_by_both(stop: Any, what: str, child: NodeSeats,
                                                                           tmp_path: Path) -> None:
    """The Python seat 2 of a sealed game shuffles, then stops (it sends nothing more and hears nothing) before its
    unlock, before its card of turn 4, or before its keys; the others, TypeScript and Python, vote it out where the
    game waits on it (11.1): the round is void and every node but its own records `absent` against it in the
    reference's words (protocol.md 8, "The words of a refusal"; 17.9), the same bytes at the mixed table as at the
    all-Python one, and both verifiers say the same of every transcript."""
    table = Table(child, "sealed", 4, [1, 3, 5], seed=11, rounds=2)
    for net in table.nets:
        stopped = silence(net, CHEAT, stop)
        net.start()
        net.run()
        assert stopped["stopped"]
        assert net.vote_out(CHEAT) == 3
        net.run()
    check(table, tmp_path, gone=CHEAT)
    mixed = table.mixed
    cheater = mixed.identities[CHEAT].peer
    words = (f"seat 2 (p2) stopped before sending {what} after it shuffled: its layer cannot be removed nor its key "
             "revealed")
    for peer in mixed.peers:
        if peer != cheater:
            faults = [body for kind, body in records(bytes(mixed.transcripts[peer])) if kind == "fault"]
            assert [(f["code"], f["peer"], f["detail"]) for f in faults] == [("absent", cheater, words)], faults

"""The sealed deal inside whole games over the in-memory network (issue 6, items 2, 3 and 5).

1. Honest sealed games for 2, 3, 5 and 10 players: every peer ends "over"
   with one result, nobody reports a fault, every transcript verifies and
   its summary names the sealed deal.
2. A curious peer (each seat, and the spectator) looks at every message it
   accepted before the round-end key reveal and cannot read a card it was
   not dealt; its session holds HIDDEN for every card of another hand until
   that card is played.
3. Cheating seats, each caught and attributed. A cheat refused at once on
   receipt (a malformed shuffle or unlock, a play from a position not its
   own, a public card, a card outside the deck) is fatal: every honest
   peer aborts on the same fault code naming the cheat, and
   verify_transcript on every honest transcript fails naming it too
   (`assert_caught`). The others show only at an audit -- at round end
   (the documented limit of the sealed deal), or at once when a public
   card does not open, or after an alarm (a victim's hand does not open, or
   a seat sees a card of its own hand played by another): the audit's
   verdict is a non-fatal fault naming the cheat, the round is void, the
   cheat is dropped, and the game goes on without it to its end; every
   honest transcript verifies and shows the void round and whose fault it
   was (`assert_audited`, two-round games).
4. Seats that stop during the deal, or before revealing their keys, are
   dropped by vote, and the game goes on without them (a seat that left
   the deal half done voids the round and is reported "absent").

Deterministic: pinned entropy and seeded delivery (harness.Net), no clock.
Cheats run at 4 players, two rounds (3 players and one round for the curious peer's table).
"""

from __future__ import annotations

from collections import Counter

import pytest
from harness import Net, pinned_entropy
from sealed_adversary import (
    accepted,
    assert_audited,
    assert_caught,
    attack,
    change_field,
    cheat,
    deal_state,
    keys_body,
    label,
    play_instead,
    run_with,
    sealed,
    secrets_of,
    silence,
    swap_into_hand,
    turns_resolved,
    vote_out,
)
from support import all_faults, check_honest, describe, play, winner_line

from p2pnimmt.engine import Settings
from p2pnimmt.engine.round import HIDDEN
from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.commitments import commitment
from p2pnimmt.protocol.events import Revealed, RoundVoided, SeatDropped
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.sealed import Layout, deck_order, open_hand
from p2pnimmt.protocol.sealed_deal import SealedDeal
from p2pnimmt.protocol.session import LocalError
from p2pnimmt.protocol.steps import ROUND_END_STEP, SEED_COMMIT_STEP, SEED_REVEAL_STEP
from p2pnimmt.protocol.verify import verify_transcript

SHUFFLE_STEP, UNLOCK_STEP = SEED_COMMIT_STEP, SEED_REVEAL_STEP


def peer_of(net: Net, seat: int) -> bytes:
    return net.identities[seat].peer


def others(net: Net, seat: int) -> list[bytes]:
    return [p for p in net.peers if p != peer_of(net, seat)]


def true_order(net: Net, r: int = 0) -> tuple[int, ...]:
    """The card at each deck position of round r, from every seat's permutation seed (the test sees all)."""
    sessions = [net.sessions[i.peer] for i in net.identities]
    st = deal_state(sessions[0], r)
    return deck_order(st.cards, [secrets_of(sessions[s], r)[0].seed for s in st.seats])


# =============================================================================== 1. honest games


def test_sealed_is_the_default_deal() -> None:
    assert Settings(players=4).deal == "sealed"


@pytest.mark.parametrize("players, rounds, seed", [(2, 2, 21), (3, 1, 22), (5, 2, 23), (10, 1, 24)])
def test_honest_sealed_games(players: int, rounds: int, seed: int) -> None:
    """Every seat and the spectator end "over" with one result and no fault; every round was dealt sealed
    (each seat shuffled, unlocked and revealed its keys once, every reveal named its deck position) and
    audited; every transcript verifies and its summary says "sealed deal"."""
    net = play(sealed(players, rounds), seed)
    result = check_honest(net, verify=False)
    assert result.rounds == rounds
    line = winner_line(net.sessions[net.peers[0]])
    for p in net.peers:
        s = net.sessions[p]
        assert isinstance(s.deal, SealedDeal)
        count = Counter((env.kind, env.body.get("round")) for env in accepted(net, p))
        for r in range(rounds):
            for kind in ("SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS"):
                assert count[(kind, r)] == players, (label(net, p), kind, r, count)
            assert count[("SEED_COMMIT", r)] == count[("SEED_REVEAL", r)] == 0
            st = deal_state(s, r)
            assert st.settled and not st.broken and st.seats == tuple(range(players))
            assert set(st.known) == ({s.seat} if s.seat is not None else set())  # only its own hand, if any
            assert len(st.plays) == 10 * players
        reveals = [env.body for env in accepted(net, p) if env.kind == "PLAY_REVEAL"]
        assert len(reveals) == 10 * players * rounds and all("position" in b for b in reveals)
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        lines = verdict.summary.splitlines()
        assert f"{players} players, variant standard, sealed deal, ends at {rounds} round{'s' if rounds != 1 else ''}" in lines[0], lines[0]
        assert "the sealed deal audited" in lines[-1] and line in lines
        assert verdict.messages == len(s.journal.messages)


# =============================================================================== 2. the curious peer


def layers_left(lay: Layout, unlocker: int, position: int) -> set[int]:
    """The seats whose layer is still on `position` once `unlocker` has unlocked it (every seat shuffled)."""
    owner = lay.owner(position)
    return {s for s in range(unlocker + 1, lay.players) if s != owner} | ({owner} if owner is not None else set())


def check_hidden(net: Net, peer: bytes, seen: dict[bytes, set[int]]) -> None:
    """During round 0, `peer`'s session knows its own hand and nothing of another's but the cards revealed."""
    s = net.sessions[peer]
    if s.phase != "turn" or s.round != 0:
        return
    seen[peer].add(s.turn)
    reveals = s.slot("PLAY_REVEAL", 0, s.turn)
    for seat, hand in enumerate(s.game.round.hands):
        assert len(hand) == 10 - s.turn
        if seat == s.seat:
            assert HIDDEN not in hand and set(hand) <= set(deal_state(s).known[seat])
            continue
        shown = [c for c in hand if c != HIDDEN]
        # The only card of another hand a peer may hold is the one that seat revealed this turn, between the
        # reveal and the turn's resolution (a row choice still to come).
        assert shown == [] or (seat in reveals and shown == [reveals[seat].body["card"]]), (label(net, peer), seat,
                                                                                            hand)


def test_hands_stay_hidden_from_a_curious_peer() -> None:
    """A "curious" peer -- each seat in turn, and the spectator -- keeps every message it accepted in round 0
    up to the first SEALED_KEYS (the shuffle decks, the unlock values and the reveals) and tries to read cards.

    Claimed and checked, with every key the peer holds (a seat: its own e and d; the spectator: none):
    (a) no published value is a card encoding C_k, except the row positions in the last unlock;
    (b) re-encrypting every C_k under its keys (and, equivalently, stripping its own layer off every
        published value) matches exactly the values it is entitled to read -- those with no layer but its
        own left: its own hand, and the rows as soon as only its layer is on them -- and nothing else;
    (c) for every other seat, none of the 10 values its hand holds after the last unlock is C_k, e*C_k or
        d*C_k for any card k and the curious seat's (e, d); yet that seat's own d opens them to exactly its
        hand (the values do carry the cards: the check is not vacuous);
    (d) all along the round, the curious session itself holds HIDDEN for every unplayed card of every other
        hand, and its sealed deal knows no hand but its own.
    Not claimed: a "ratio" test y = r*x between two ciphertexts of one hand needs the discrete log of
    C_j / C_i, which nobody knows for hash-to-curve encodings (test_sealed.py shows, as a control, that the
    same attack reads a whole deck encoded as k*G); nor anything against an attacker who can solve
    discrete logs or decide Diffie-Hellman on Curve25519. Played cards are public, with their positions.
    """
    players = 3
    net = Net(players, settings=sealed(players), seed=31, bots="random")
    net.start()
    seen: dict[bytes, set[int]] = {p: set() for p in net.peers}
    while net.queue:
        net.run(limit=1)
        for p in net.peers:
            check_hidden(net, p, seen)
    check_honest(net, verify=False)
    assert all(turns == set(range(10)) for turns in seen.values()), seen  # (d) was checked at every turn

    sessions = [net.sessions[i.peer] for i in net.identities]
    st0 = deal_state(sessions[0])
    lay, cards = st0.layout, st0.cards
    order = true_order(net)
    encodings = {g.encoding(k): k for k in cards}
    last = players - 1
    for p in net.peers:
        s = net.sessions[p]
        me = s.seat
        st = deal_state(s)
        assert set(st.known) == ({me} if me is not None else set())  # (d)
        before = []
        for env in accepted(net, p):
            if env.kind == "SEALED_KEYS":
                break
            before.append((s.roster.index(env.sender), env))
        shuffles = {seat: env.body["deck"] for seat, env in before if env.kind == "SEALED_SHUFFLE"}
        unlocks = {seat: env.body["values"] for seat, env in before if env.kind == "SEALED_UNLOCK"}
        reveals = [(seat, env.body["card"], env.body["position"]) for seat, env in before if env.kind == "PLAY_REVEAL"]
        # every shuffle and unlock; and at least the reveals of turns 1-9 (nobody reveals keys before turn 10)
        assert set(shuffles) == set(unlocks) == set(range(players)) and len(reveals) >= 9 * players
        assert all(lay.owner(pos) == seat and order[pos] == card for seat, card, pos in reveals)
        published = [(("shuffle", seat, j), v) for seat, out in shuffles.items() for j, v in enumerate(out)]
        published += [(("unlock", seat, pos), v) for seat, out in unlocks.items()
                      for pos, v in zip(lay.unlocked_by(seat), out)]
        assert len(published) == players * (len(cards) + lay.dealt - 10)

        # (a) plain encodings: only the rows, after the last unlock
        plain = {where for where, v in published if v in encodings}
        assert plain == {("unlock", last, pos) for pos in lay.rows}, label(net, p)

        # (b) re-encryption under every key it holds
        keys = [] if me is None else [secrets_of(s)[0].key.e, secrets_of(s)[0].key.d]
        known = dict(encodings)
        for key in keys:
            known.update(zip(g.apply_all(key, list(encodings)), encodings.values()))
        learned = {where: known[v] for where, v in published
                   if v in known and not (where[0] == "shuffle" and where[1] == me)}  # its own output: it made it
        mine = set() if me is None else {me}
        entitled = {("unlock", seat, pos): order[pos] for seat in range(players) for pos in lay.unlocked_by(seat)
                    if layers_left(lay, seat, pos) <= mine}
        assert learned == entitled, f"{label(net, p)} read {set(learned.items()) - set(entitled.items())}"
        if me is not None:  # it does read its own hand this way: the method works
            final = last if me != last else last - 1
            assert {learned[("unlock", final, pos)] for pos in lay.hand(me)} == set(st.known[me])

        # (c) the other hands after the last unlock
        for other in range(players):
            if other == me:
                continue
            values = [st.current[pos] for pos in lay.hand(other)]
            assert not set(values) & set(known), f"{label(net, p)} matched a value of seat {other}'s hand"
            theirs = net.sessions[peer_of(net, other)]
            assert open_hand(lay, other, secrets_of(theirs)[0].key.d, st.current) == \
                [order[pos] for pos in lay.hand(other)]


# =============================================================================== 3. cheats


def hand_position(lay: Layout, cheater: int, seat: int, index: int = 5) -> tuple[int, int]:
    """(position, its index in `cheater`'s unlock list) of position `index` of `seat`'s hand."""
    position = lay.hand(seat)[index]
    return position, lay.unlocked_by(cheater).index(position)


def own_layer(c, point: bytes) -> bytes:
    return g.apply(secrets_of(c.session)[0].key.e, point)


def no_audit_needed(net: Net, seat: int) -> None:
    """Refused at once: no honest peer got to any key reveal or turn of round 1 (the cheat lost its seat
    before anyone played it; the game went on from the next round without it)."""
    for p in others(net, seat):
        kinds = {env.kind for env in accepted(net, p) if env.body.get("round") == 0}
        assert "SEALED_KEYS" not in kinds and "PLAY_COMMIT" not in kinds, (label(net, p), kinds)


def played_out(net: Net, seat: int) -> None:
    """Shown only at the round-end audit: every honest peer played all ten turns of round 1 first."""
    for p in others(net, seat):
        assert turns_resolved(net, p) == 10, label(net, p)


def stopped_before_a_turn(net: Net, seat: int) -> None:
    """Audited before any play: no honest peer resolved a turn of round 1, nor accepted a reveal in it."""
    for p in others(net, seat):
        assert turns_resolved(net, p) == 0, label(net, p)
        assert not any(e.kind == "PLAY_REVEAL" and e.body["round"] == 0 for e in accepted(net, p)), label(net, p)


def alarms(net: Net, peer: bytes, r: int = 0) -> list[bytes]:
    """The senders of the alarms `peer` accepted in round r."""
    return [e.sender for e in accepted(net, peer) if e.kind == "SEALED_KEYS" and e.body["round"] == r
            and e.body["alarm"]]


def details(faults, text: str) -> None:
    assert all(text in f.detail for f in faults), [f.detail for f in faults]


# ----------------------------------------------------------------- shuffle


SHUFFLE_AT_ONCE = {
    "duplicate": lambda c, deck: deck[:40] + [deck[3]] + deck[41:],
    "drop": lambda c, deck: deck[:-1],
    "low-order-point": lambda c, deck: deck[:7] + [bytes(32)] + deck[8:],
}


@pytest.mark.parametrize("how", list(SHUFFLE_AT_ONCE))
def test_shuffle_that_duplicates_or_drops_a_value_is_refused_at_once(how: str) -> None:
    """A shuffle output with a value twice, one value short, or a value that is no point: "sealed-shuffle" at
    once, before anyone builds on it: the shuffler loses its seat at the shuffle (it does not shuffle in the
    round, whose deal goes on from the last shuffle accepted) and the round is played and scored."""
    net, c = cheat(4, 1, change_field("SEALED_SHUFFLE", "deck", SHUFFLE_AT_ONCE[how]))
    assert c.fired
    details(assert_caught(net, 1, "sealed-shuffle"), "its shuffle for round 1")
    for p in others(net, 1):
        session = net.sessions[p]
        assert session.dropped[1] == Step(0, 0, 1) and 0 not in session.voided, label(net, p)  # at its own shuffle


def test_substituted_card_dealt_to_an_honest_seat_is_blamed_on_the_shuffler() -> None:
    """The first shuffler swaps one card of the deck for a card that is not in it (tactical: 1..44; it puts
    in C_104 under its own layer). Every later layer goes on and comes off it like any card's, so it opens
    for the honest seat it is dealt to (seat 2). Whatever that seat does with it, the audit must name the
    shuffle ("sealed-shuffle"): the round is void, seat 0 dropped, and nobody honest blamed."""

    def substitute(c, deck):
        deck[5] = own_layer(c, g.encoding(104))
        return deck

    net, c = cheat(4, 0, change_field("SEALED_SHUFFLE", "deck", substitute), variant="tactical")
    assert c.fired
    owner = net.sessions[peer_of(net, 2)]
    st = deal_state(owner)
    assert 104 in open_hand(st.layout, 2, secrets_of(owner)[0].key.d, st.current)  # it is in an honest hand
    blamed = [f for p in others(net, 0) for f in net.faults(p)
              if f.fatal and f.peer == peer_of(net, 2) and "not in this game's deck" in f.detail]
    assert not blamed, blamed[0].describe()  # the owner raises an alarm instead of playing it
    details(assert_audited(net, 0, "sealed-shuffle"), "value 5 of the shuffle output")


def test_substituted_value_in_the_undealt_cards_is_caught_by_the_round_end_audit() -> None:
    """The last shuffler replaces an undealt position's value by another point (C_55 under its layer only):
    nobody opens it during the round; the round-end audit names the shuffle at that index, the round is void
    and round 2 is played without the cheat."""

    def substitute(c, deck):
        deck[80] = own_layer(c, g.encoding(55))
        return deck

    net, c = cheat(4, 3, change_field("SEALED_SHUFFLE", "deck", substitute))
    assert c.fired
    details(assert_audited(net, 3, "sealed-shuffle"), "value 80 of the shuffle output")
    played_out(net, 3)


# ----------------------------------------------------------------- a victim's hand does not open: alarm


def substitute_in_victims_hand(c, deck):
    """The last shuffler puts a point no one can open at position 5 (seat 0's hand)."""
    deck[5] = own_layer(c, g.encoding(55))
    return deck


def keep_layer_on_victims_hand(c, values):
    """Seat 1 does not remove its layer from position 35 (seat 3's hand): it republishes the value unchanged."""
    st = deal_state(c.session)
    position, index = hand_position(st.layout, c.seat, 3)
    values[index] = st.current[position]
    return values


@pytest.mark.parametrize("cheater, kind, field, change, victim, code", [
    pytest.param(3, "SEALED_SHUFFLE", "deck", substitute_in_victims_hand, 0, "sealed-shuffle", id="shuffle"),
    pytest.param(1, "SEALED_UNLOCK", "values", keep_layer_on_victims_hand, 3, "sealed-unlock", id="unlock"),
])
def test_victim_whose_hand_does_not_open_raises_an_alarm(cheater, kind, field, change, victim, code) -> None:
    """A cheat in the shuffle or the unlock aimed at one position of a victim's hand: the victim's hand does not
    open, it reveals its keys at once with alarm=True, everyone reveals, and the audit names the cheat before
    a single turn is played; the round is void and the next one is played without the cheat."""
    net, c = cheat(4, cheater, change_field(kind, field, change))
    assert c.fired
    assert_audited(net, cheater, code)
    stopped_before_a_turn(net, cheater)
    for p in others(net, cheater):
        assert alarms(net, p) == [peer_of(net, victim)], label(net, p)


# ----------------------------------------------------------------- unlock


def copy_a_row_onto_a_hand(c, values):
    """The value for the first row position, copied onto position 5 (seat 0's hand)."""
    lay = deal_state(c.session).layout
    positions = lay.unlocked_by(c.seat)
    values[positions.index(5)] = values[positions.index(lay.rows[0])]
    return values


UNLOCK_AT_ONCE = {"duplicate": copy_a_row_onto_a_hand, "short": lambda c, values: values[:-1]}


@pytest.mark.parametrize("how", list(UNLOCK_AT_ONCE))
def test_unlock_with_a_duplicate_or_missing_value_is_refused_at_once(how: str) -> None:
    net, c = cheat(4, 1, change_field("SEALED_UNLOCK", "values", UNLOCK_AT_ONCE[how]))
    assert c.fired
    details(assert_caught(net, 1, "sealed-unlock"), "its unlock for round 1")
    no_audit_needed(net, 1)


def test_wrong_unlock_is_caught_by_the_round_end_audit() -> None:
    """Seat 1 swaps the values of two positions of seat 3's hand in its unlock: seat 3's hand opens (the same
    ten cards, two at each other's position), the round is played out, and the audit names seat 1's unlock."""

    def swap(c, values):
        lay = deal_state(c.session).layout
        (_, i), (_, j) = hand_position(lay, 1, 3, 0), hand_position(lay, 1, 3, 3)
        values[i], values[j] = values[j], values[i]
        return values

    net, c = cheat(4, 1, change_field("SEALED_UNLOCK", "values", swap))
    assert c.fired
    details(assert_audited(net, 1, "sealed-unlock"), "position 30 is not the previous value")
    played_out(net, 1)


def keep_layer_on_a_row(c, values):
    st = deal_state(c.session)
    row = st.layout.rows[0]
    values[st.layout.unlocked_by(c.seat).index(row)] = st.current[row]
    return values


def substitute_in_a_row(c, deck):
    deck[41] = own_layer(c, g.encoding(55))
    return deck


@pytest.mark.parametrize("cheater, kind, field, change, code", [
    pytest.param(1, "SEALED_UNLOCK", "values", keep_layer_on_a_row, "sealed-unlock", id="unlock"),
    pytest.param(3, "SEALED_SHUFFLE", "deck", substitute_in_a_row, "sealed-shuffle", id="shuffle"),
])
def test_cheat_on_a_row_card_is_audited_at_once(cheater, kind, field, change, code) -> None:
    """A row position that opens to no card (an unlock that kept its layer there, or a substituted point):
    everyone sees it after the last unlock, so everyone reveals keys at once (no alarm needed) and the audit
    names the cheat before any turn; the round is void and the next one is played without the cheat."""
    net, c = cheat(4, cheater, change_field(kind, field, change))
    assert c.fired
    assert_audited(net, cheater, code)
    stopped_before_a_turn(net, cheater)
    for p in others(net, cheater):
        assert alarms(net, p) == [], label(net, p)
        assert deal_state(net.sessions[p]).broken == "a public card of the deal opens to no card", label(net, p)


# ----------------------------------------------------------------- plays


def first_unplayed(adv) -> tuple[int, int]:
    """(card, position) of the lowest unplayed position of the adversary's own hand."""
    st = deal_state(adv.session)
    used = st.used.get(adv.seat, set())
    return min(((card, pos) for card, pos in st.known[adv.seat].items() if pos not in used), key=lambda x: x[1])


NOT_OWNED = {
    "another-seats-position": (lambda adv: (first_unplayed(adv)[0], 22), "position 22, which is seat 2's"),
    "a-row-position": (lambda adv: (first_unplayed(adv)[0], 41), "position 41, which is a row's"),
    "an-undealt-position": (lambda adv: (first_unplayed(adv)[0], 60), "position 60, which was not dealt"),
    "a-position-already-played": (lambda adv: (first_unplayed(adv)[0], min(deal_state(adv.session).used[adv.seat])),
                                  "a second time"),
    "a-row-card": (lambda adv: (adv.session.game.round.rows[0][0], first_unplayed(adv)[1]),
                   "is on the table"),
    "a-card-outside-the-deck": (lambda adv: (105, first_unplayed(adv)[1]), "105, which is not in this game's deck"),
}


@pytest.mark.parametrize("what", list(NOT_OWNED))
def test_play_from_a_position_not_owned_is_refused_at_once(what: str) -> None:
    """At turn 4, seat 1 commits to and reveals a card from a position that is not its own unplayed one (or a
    card everyone can see is not in any hand, or no card of the deck): fatal "not-in-hand" at once, at every
    honest peer."""
    choose, detail = NOT_OWNED[what]
    net, adv = attack(4, 1, play_instead(3, choose))
    assert adv.fired
    details(assert_caught(net, 1, "not-in-hand"), detail)
    for p in others(net, 1):
        assert turns_resolved(net, p) == 3


def test_undealt_card_played_from_its_own_position_is_caught_by_the_round_end_audit() -> None:
    """A modified client plays, at turn 1, a card that was dealt to nobody, from one of its own positions.
    Nobody can tell at once (the card is in no hand anyone can see); the round-end audit finds the position
    opens to another card: "sealed-play", the round is void and round 2 is played without the cheat."""

    def make(net: Net):
        def choose(session) -> int:
            st = deal_state(session)
            return min(set(st.cards) - set(true_order(net)[: st.layout.dealt]))

        return swap_into_hand(net, 1, 0, choose)

    net, record = run_with(4, make)
    assert record["fired"]
    details(assert_audited(net, 1, "sealed-play"),
            f"played {record['card']} from position {record['position']}, which opens to {record['instead']}")
    played_out(net, 1)


def unplayed(net: Net, session, seat: int) -> list[int]:
    """The cards of `seat`'s hand not yet revealed, as far as `session` knows (from the true deck order)."""
    st = deal_state(session)
    gone = {card for _s, card, _p in st.plays + st.pending}
    return [card for card in (true_order(net)[p] for p in st.layout.hand(seat)) if card not in gone]


@pytest.mark.parametrize("turn", [0, 5, 9])
def test_card_from_another_players_hand_makes_its_owner_raise_an_alarm(turn: int) -> None:
    """A modified client (seat 1) plays, at turn `turn`, the highest unplayed card of seat 2's hand, from one
    of its own positions. Only seat 2 can see the card is its own: it raises an alarm, everyone reveals its
    keys, and the audit of the plays up to that turn names seat 1 ("sealed-play"); the round is void, seat 1
    dropped, and round 2 is played without it."""
    net, record = run_with(4, lambda net: swap_into_hand(net, 1, turn, lambda s: max(unplayed(net, s, 2))))
    assert record["fired"]
    details(assert_audited(net, 1, "sealed-play"),
            f"played {record['card']} from position {record['position']}, which opens to {record['instead']}")
    victim = peer_of(net, 2)
    assert turns_resolved(net, victim) == turn  # it stopped at the turn of the theft
    for p in others(net, 1):
        assert alarms(net, p) == [victim], label(net, p)
        assert turns_resolved(net, p) in (turn, turn + 1), label(net, p)  # a turn complete before the alarm


def test_a_bot_move_after_a_void_is_not_made_and_a_late_play_is_a_local_error() -> None:
    """One `receive` resolves a turn (PlayNeeded for the next) and then accepts the alarm whose audit voids the
    round: the ask reaches the bot after the void. The bot's driver makes no move for an ask the game has moved
    past (bots/drive.py), and a move made anyway is refused with LocalError -- the only refusal a driver
    expects (net/node.py, _bot_move, lets anything else out of the link's reader)."""
    net, record = run_with(4, lambda net: swap_into_hand(net, 1, 0, lambda s: min(unplayed(net, s, 2))), seed=10)
    assert record["fired"]
    assert_audited(net, 1, "sealed-play")
    assert net.late, "no ask reached a bot after the void: the case is not exercised"
    assert not net.stale, [(label(net, p), e, repr(exc)) for p, e, exc in net.stale]
    peer, _event = net.late[0]
    session = net.sessions[peer]
    with pytest.raises(LocalError):
        session.play(10)


# ----------------------------------------------------------------- keys


ANOTHER_KEY = g.new_key_pair(pinned_entropy("another key"))


def recommit(e: bytes):
    """A Cheat that commits to key e (with its true seed and nonce) in its shuffle, shuffles with its true key,
    and reveals e at round end: the revealed key matches the commitment but not the shuffle."""

    def change(c, kind, body):
        if body.get("round") != 0:
            return None
        if kind == "SEALED_SHUFFLE":
            secrets, nonce = secrets_of(c.session)
            body["commit"] = commitment("sealed", c.session.game_id, 0, 0, c.seat, e + secrets.seed, nonce)
            return [(kind, body)]
        if kind == "SEALED_KEYS":
            body["key"] = e
            c.fired = True
            return [(kind, body)]
        return None

    return change


WRONG_KEYS = {
    "another-key": (change_field("SEALED_KEYS", "key", lambda c, e: ANOTHER_KEY.e), "sealed-key",
                    "does not match its commitment"),
    "another-seed": (change_field("SEALED_KEYS", "seed", lambda c, seed: bytes(32)), "sealed-key",
                     "does not match its commitment"),
    "another-nonce": (change_field("SEALED_KEYS", "nonce", lambda c, nonce: bytes(32)), "sealed-key",
                      "does not match its commitment"),
    "committed-another-key": (recommit(ANOTHER_KEY.e), "sealed-shuffle", "value 0 of the shuffle output"),
    "committed-no-key": (recommit(bytes(32)), "sealed-key", "not a clamped"),
}


@pytest.mark.parametrize("what", list(WRONG_KEYS))
def test_wrong_key_revealed_at_round_end(what: str) -> None:
    """At round end seat 1 reveals a key, seed or nonce other than the committed ones ("sealed-key"), or the
    committed key is not the one it shuffled with ("sealed-shuffle") or no key at all ("sealed-key"): the
    round is void, seat 1 dropped, and round 2 is played without it."""
    change, code, detail = WRONG_KEYS[what]
    net, c = cheat(4, 1, change)
    assert c.fired
    details(assert_audited(net, 1, code), detail)
    played_out(net, 1)


# ----------------------------------------------------------------- alarms


def test_false_alarm_is_the_alarm_senders_fault() -> None:
    """Seat 1's hand opened, yet instead of its first commitment it reveals its keys with alarm=True:
    everyone reveals, the audit finds every step right, and the alarm is seat 1's fault (the round is void,
    seat 1 dropped, round 2 played without it)."""

    def alarm(c, kind, body):
        if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, 0):
            c.fired = True
            return [("SEALED_KEYS", keys_body(c.session, alarm=True))]
        return None

    net, c = cheat(4, 1, alarm)
    assert c.fired
    details(assert_audited(net, 1, "sealed-false-alarm"), "said its hand did not open")
    stopped_before_a_turn(net, 1)


def alarm_after(kind: str):
    def change(c, k, body):
        if k == kind and body["round"] == 0:
            c.fired = True
            return [(k, body), ("SEALED_KEYS", keys_body(c.session, alarm=True))]
        return None

    return change


@pytest.mark.parametrize("seat, kind", [
    pytest.param(0, "SEALED_SHUFFLE", id="before-the-shuffles"),
    pytest.param(1, "SEALED_UNLOCK", id="before-the-unlocks"),
])
def test_alarm_before_the_deal_is_in_is_the_alarm_senders_fault(seat: int, kind: str) -> None:
    """Seat 0 raises an alarm right after its own shuffle, before the others have shuffled; or seat 1 right
    after its own unlock, before seats 2 and 3 have unlocked. The alarm waits for the whole deal, the audit
    finds every step right: the alarm is its sender's fault."""
    net, c = cheat(4, seat, alarm_after(kind))
    assert c.fired
    details(assert_audited(net, seat, "sealed-false-alarm"), "said its hand did not open")
    stopped_before_a_turn(net, seat)


# =============================================================================== 4. dropping


def remaining(net: Net, gone: int) -> list[bytes]:
    return others(net, gone)


def check_finished_without(net: Net, gone: int, step: int, absent: str = "") -> None:
    """Every remaining peer dropped `gone` at (0, step) by vote, finished the game with one result, and its
    transcript verifies. No fault, unless `gone` left the deal half done (`absent` is then what it did not
    send): one non-fatal "absent" fault naming it, whose detail is the reason round 1 is void."""
    outcomes = set()
    for p in remaining(net, gone):
        s = net.sessions[p]
        faults = all_faults(net)[p]
        assert s.phase == "over", f"{label(net, p)}: phase {s.phase}, {[describe(f) for f in faults]}"
        if absent:
            reason = (f"seat {gone} ({s.names[gone]}) stopped before sending {absent} after it shuffled: its layer "
                      "cannot be removed nor its key revealed")
            assert [(f.code, f.fatal, f.peer, f.detail) for f in net.faults(p)] == \
                [("absent", False, peer_of(net, gone), reason)], [describe(f) for f in faults]
            assert list(s.journal.faults) == net.faults(p)
            assert s.voided == {0: reason}
        else:
            assert not faults, [describe(f) for f in faults]
            assert s.voided == {}
        assert s.dropped == {gone: Step(0, step, gone if step <= 1 else 0)}  # a shuffle's, an unlock's place: its seat
        assert [(e.seat, e.round, e.step) for e in net.events[p] if isinstance(e, SeatDropped)] == [(gone, 0, step)]
        outcomes.add((s.result, tuple(s.game.history)))
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        assert "sealed deal" in verdict.summary
    assert len(outcomes) == 1, outcomes


def test_seat_that_never_shuffles_is_dropped_and_plays_open() -> None:
    """Seat 2 crashes instead of sending its SEALED_SHUFFLE. The others vote it out at the shuffle step; the
    deal goes on without its layer, so its hand is public and the stand-in plays it, lowest card first; the
    round counts, and the next round is dealt without it too."""
    players, gone = 4, 2
    net = Net(players, settings=sealed(players, rounds=2), seed=3, bots="random")
    stopped = silence(net, gone, lambda env: env.kind == "SEALED_SHUFFLE")
    net.start()
    net.run()
    first = net.sessions[peer_of(net, 0)]
    assert stopped["stopped"] and (first.phase, first.step_now(), first.waiting_for()) == ("deal", SHUFFLE_STEP,
                                                                                            (gone,))
    vote_out(net, gone)
    check_finished_without(net, gone, SHUFFLE_STEP)
    for p in remaining(net, gone):
        s = net.sessions[p]
        assert not any(isinstance(e, RoundVoided) for e in net.events[p])
        for r in range(2):
            st = deal_state(s, r)
            assert st.seats == (0, 1, 3) and st.settled
            hand = sorted(st.known[gone])  # public to everyone: its cards carry no layer of its own
            assert len(hand) == 10
            played = [e.cards[gone] for e in net.events[p] if isinstance(e, Revealed) and e.round == r]
            assert played == hand  # the stand-in plays the lowest card each turn
        assert sum(s.game.history[0]) > 0 and sum(s.game.history[1]) > 0


def check_voided_then_dealt_without(net: Net, gone: int, step: int, absent: str) -> None:
    """As check_finished_without, with round 1 void (its reason in the transcript's summary) and round 2 dealt
    without `gone`."""
    check_finished_without(net, gone, step, absent)
    for p in remaining(net, gone):
        s = net.sessions[p]
        voided = [e for e in net.events[p] if isinstance(e, RoundVoided)]
        assert [(e.round, e.reason, e.absent) for e in voided] == [(0, s.voided[0], gone)]
        assert f"round 1: void, nobody scores it: {s.voided[0]}" in verify_transcript(
            bytes(net.transcripts[p])).summary.splitlines()
        assert s.game.history[0] == (0,) * 4  # the void round scores nothing
        assert sum(s.game.history[1]) > 0 and s.game.rounds_played == 2
        st = deal_state(s, 1)
        assert st.seats == (0, 1, 3) and st.settled and len(st.known[gone]) == 10


def test_seat_that_withholds_its_keys_is_dropped_and_the_round_is_void() -> None:
    """Seat 2 plays the round, then crashes instead of sending its SEALED_KEYS. The others vote it out at the
    round end: the round cannot be audited, so it is void (no bull heads for anyone) and seat 2 is reported
    "absent" (non-fatal); round 2 is dealt without seat 2 and the game finishes."""
    players, gone = 4, 2
    net = Net(players, settings=sealed(players, rounds=2), seed=3, bots="random")
    silence(net, gone, lambda env: env.kind == "SEALED_KEYS")
    net.start()
    net.run()
    first = net.sessions[peer_of(net, 0)]
    assert (first.phase, first.waiting_for()) == ("round-end", (gone,)) and turns_resolved(net, peer_of(net, 0)) == 10
    vote_out(net, gone)
    check_voided_then_dealt_without(net, gone, ROUND_END_STEP, "its keys")


def test_seat_that_stops_at_its_unlock_is_dropped_and_the_round_is_void() -> None:
    """Seat 2 shuffles, then crashes instead of sending its SEALED_UNLOCK: its layer can never come off, so once
    it is voted out the round is void, seat 2 is reported "absent" (non-fatal), and round 2 is dealt without it."""
    players, gone = 4, 2
    net = Net(players, settings=sealed(players, rounds=2), seed=3, bots="random")
    silence(net, gone, lambda env: env.kind == "SEALED_UNLOCK")
    net.start()
    net.run()
    first = net.sessions[peer_of(net, 0)]
    assert (first.phase, first.step_now(), first.waiting_for()) == ("deal", UNLOCK_STEP, (gone,))
    vote_out(net, gone)
    check_voided_then_dealt_without(net, gone, UNLOCK_STEP, "its unlock")


def test_a_seat_dropped_before_its_shuffle_arrived_does_not_crash() -> None:
    """As in the never-shuffles case, but seat 2 is only cut off from sending (it still hears everything):
    being dropped must not crash its session, and the others still finish."""
    players, gone = 4, 2
    net = Net(players, settings=sealed(players, rounds=2), seed=3, bots="random")
    silence(net, gone, lambda env: env.kind == "SEALED_SHUFFLE", deaf=False)
    net.start()
    net.run()
    vote_out(net, gone)
    check_finished_without(net, gone, SHUFFLE_STEP)

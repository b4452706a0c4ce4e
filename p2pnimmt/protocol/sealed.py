"""The sealed deal of one round as pure functions over lists of points (protocol.md, "Sealed deal").

The group, keys and card encodings are in sealed_group.py. Notation:
N = cards in the round's deck, M = 10 * players + 4 dealt positions, the
shuffling seats s_1 < s_2 < ... < s_n (every seat, unless a seat was
dropped before the deal), each holding a key pair (e, d) and a 32-byte
permutation seed drawn by `new_secrets` (key draws first, then the seed)
and committed to before the deal.

1. Shuffle, in seat order. D_0 = [C_k for k in the deck, ascending].
   Seat s_i publishes D_i with D_i[j] = X25519(e_i, D_{i-1}[pi_i[j]]),
   where pi_i = engine.shuffle(seed_i, [0, 1, ..., N-1]) (the specified
   Fisher-Yates, applied to the indices).
2. Layout of D_n: position p holds the card dealt there. Seat s holds
   positions 10s..10s+9, the rows 10*players..10*players+3; positions M..N-1
   are undealt and never unlocked.
3. Unlock, in seat order. U_0 = D_n[0:M]. Seat s_i publishes, for every
   dealt position p not in its own hand, in ascending order,
   X25519(d_i, U_{i-1}[p]); U_i is U_{i-1} with those values. After the
   last unlock a row position holds C_k, public; a hand position of a
   shuffling seat s holds X25519(e_s, C_k), which s opens with d_s; a seat
   that did not shuffle has no layer, so its hand is public like the rows.
4. Play: a reveal names the card and the position it came from.
5. Round end: every seat reveals e and its seed; `audit` checks the deal's
   outcomes (the last shuffle, the dealt values after every unlock) against
   what the keys and seeds make them, recomputes every step from D_0 only
   when one is wrong (naming the first seat at fault), and checks every play.

Every received list goes through `take_shuffle` / `take_unlock` first
(length, points, distinct): a ValueError there is the sender's fault at
once. An unlock's collision that is not its sender's own work (with a
value of its own hand, which an earlier unlock wrote) is taken with the
deal broken at it (`Taken.broken`, protocol.md 17.5 step 3): the audit,
every step recomputed, names who deviated. Everything else (a substituted
card, a wrong unlock) shows only in the round-end audit: there are no
zero-knowledge proofs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from ..engine.cards import HAND_SIZE, HIGHEST_CARD, ROW_COUNT, check_players
from ..engine.shuffle import shuffle
from .codec import bytes_of_size
from .round_texts import SHUFFLE_OUTPUT, UNLOCK_OF
from .sealed_group import (
    SIZE,
    KeyPair,
    apply_all,
    card_table,
    checked_points,
    encode_deck,
    encodings_under,
    first_repeat,
    key_pair_from,
    new_key_pair,
    read_points,
    twin_keys,
    twin_keys_with,
)

SEED_SIZE = 32


@dataclass(frozen=True, slots=True)
class RoundSecrets:
    """One seat's secrets for one round: its key pair and its permutation seed."""

    key: KeyPair
    seed: bytes

    def __repr__(self) -> str:
        return "RoundSecrets(...)"


def new_secrets(entropy: Callable[[int], bytes]) -> RoundSecrets:
    """A fresh key pair (rejection method), then a fresh 32-byte permutation seed, from `entropy`."""
    key = new_key_pair(entropy)
    seed = entropy(SEED_SIZE)
    if not isinstance(seed, (bytes, bytearray)) or len(seed) != SEED_SIZE:
        raise ValueError(f"entropy({SEED_SIZE}) returned {seed!r}")
    return RoundSecrets(key, bytes(seed))


@dataclass(frozen=True, slots=True)
class Layout:
    """Which deck position belongs to whom, for `players` seats and a deck of `deck_size` cards."""

    players: int
    deck_size: int

    def __post_init__(self) -> None:
        check_players(self.players)
        if type(self.deck_size) is not int or not self.dealt <= self.deck_size <= HIGHEST_CARD:
            raise ValueError(f"a deck for {self.players} players holds {self.dealt}..{HIGHEST_CARD} cards, "
                             f"got {self.deck_size!r}")

    @property
    def dealt(self) -> int:
        return HAND_SIZE * self.players + ROW_COUNT

    @property
    def rows(self) -> range:
        return range(HAND_SIZE * self.players, self.dealt)

    def hand(self, seat: int) -> range:
        self.check_seat(seat)
        return range(HAND_SIZE * seat, HAND_SIZE * seat + HAND_SIZE)

    def owner(self, position: int) -> int | None:
        """The seat whose hand holds `position`, or None for a row position; ValueError if not dealt."""
        if type(position) is not int or not 0 <= position < self.dealt:
            raise ValueError(f"position {position!r} is not a dealt position (0..{self.dealt - 1})")
        return position // HAND_SIZE if position < HAND_SIZE * self.players else None

    def unlocked_by(self, seat: int) -> tuple[int, ...]:
        """The positions `seat` unlocks, ascending: every dealt position not in its hand."""
        own = self.hand(seat)
        return (*range(own.start), *range(own.stop, self.dealt))  # (two ranges unpacked in C: no test a position)

    def public(self, seats: Sequence[int]) -> tuple[int, ...]:
        """Positions everyone can open after the last unlock: the hands of seats not shuffling, then the rows."""
        return tuple(p for s in range(self.players) if s not in seats for p in self.hand(s)) + tuple(self.rows)

    def check_seat(self, seat: int) -> None:
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"seat {seat!r} is not a seat (0..{self.players - 1})")

    def check_seats(self, seats: Sequence[int]) -> tuple[int, ...]:
        """The shuffling seats, which must be increasing seats of this table."""
        seats = tuple(seats)
        for s in seats:
            self.check_seat(s)
        if not seats or any(a >= b for a, b in zip(seats, seats[1:])):
            raise ValueError(f"the shuffling seats must be increasing and not empty, got {seats!r}")
        return seats


def initial_deck(cards: Sequence[int]) -> list[bytes]:
    """D_0: [C_k for k in cards]; ValueError unless the cards are increasing cards (the round's deck)."""
    cards = list(cards)
    if any(a >= b for a, b in zip(cards, cards[1:])):
        raise ValueError(f"the round's deck is listed in increasing order, got {cards!r}")
    return encode_deck(cards)


def permutation(seed: bytes, size: int) -> tuple[int, ...]:
    """pi = engine.shuffle(seed, [0..size-1]): the step's output j takes input pi[j]."""
    return shuffle(seed, range(size))


def shuffle_step(e: bytes, seed: bytes, previous: Sequence[bytes]) -> list[bytes]:
    """D_i from D_{i-1}: [X25519(e, previous[pi[j]]) for j], pi = permutation(seed, len(previous))."""
    layered = apply_all(e, previous)
    return [layered[j] for j in permutation(seed, len(layered))]


@dataclass(frozen=True, slots=True)
class Taken:
    """A list a receiver took (a shuffle output, or the dealt values after an unlock), with the twin keys of its
    values (sealed_group.twin_keys: equal exactly when the eightfolds are) when it found them (None when it took the
    list without: its own shuffle, `take_shuffle`)."""

    values: list[bytes]
    folds: list[int] | None
    broken: str = ""  # an unlock's collision that is not its sender's fault (17.5 step 3): the deal broke at it


def check_shuffle(previous: Sequence[bytes], output: object) -> list[bytes]:
    """A received shuffle output as a list; ValueError unless it is len(previous) distinct points."""
    return take_shuffle(previous, output).values


def take_shuffle(previous: Sequence[bytes], output: object, own: Sequence[bytes] | None = None) -> Taken:
    """check_shuffle, keeping the twin keys it found (for the first unlock's check).

    own: the output this node computed itself, shuffle_step(e, seed, previous), from this very `previous`, a list
    it took (the deck's encodings, or a checked shuffle). An output equal to it (and all bytes) is taken without
    the check, which it cannot fail: every value of `previous` is a canonical u-coordinate of a point Q_j of the
    curve or its twist, not of low order, their eightfolds distinct (17.1); X(e, Q_j) = e'*(8 Q_j) with e = 8 e',
    2^251 <= e' < 2^252 below both large primes, so each output is canonical, of large prime order (never low
    order), and output i's eightfold is 8 e'*(8 Q_pi(i)): one map, injective up to sign, of distinct eightfolds.
    So the outputs are distinct points with distinct eightfolds (tests/protocol/test_own_steps.py). Anything
    else (another output: a cheat's own session signing an altered deck) is checked in full as before.
    """
    if own is not None and type(output) is list and output == own and all(type(v) is bytes for v in output):
        return Taken(list(output), None)
    return Taken(*checked_points(output, len(previous), SHUFFLE_OUTPUT))


def unlock_start(layout: Layout, last_shuffle: Sequence[bytes]) -> list[bytes]:
    """U_0: the dealt positions of the last shuffle output."""
    if len(last_shuffle) != layout.deck_size:
        raise ValueError(f"the last shuffle has {len(last_shuffle)} values, expected {layout.deck_size}")
    return list(last_shuffle[: layout.dealt])


def unlock_step(layout: Layout, seat: int, d: bytes, current: Sequence[bytes]) -> list[bytes]:
    """What `seat` publishes: X25519(d, current[p]) for p in layout.unlocked_by(seat)."""
    if len(current) != layout.dealt:
        raise ValueError(f"the dealt positions are {layout.dealt} values, got {len(current)}")
    return apply_all(d, [current[p] for p in layout.unlocked_by(seat)])


def after_unlock(layout: Layout, seat: int, current: Sequence[bytes], published: object) -> list[bytes]:
    """U_i from U_{i-1} and seat's published unlock, as take_unlock takes it (a list the deal broke at included: where,
    it does not tell); ValueError for what take_unlock refuses."""
    return take_unlock(layout, seat, current, None, published).values


def take_unlock(layout: Layout, seat: int, current: Sequence[bytes], folds: Sequence[int] | None,
                published: object) -> Taken:
    """after_unlock, with `folds` the twin keys of `current` if known (else None): the positions the unlock leaves
    as they were (seat's own hand) keep theirs, only the published values' are found; the same verdict and words
    (tests/protocol/test_own_steps.py).

    Refused (ValueError) only for the sender's own work (protocol.md 17.5 step 3): two published values equal, then
    two twins (sharing an eightfold), at positions whose values before did not collide; twin-free inputs give
    twin-free outputs. Any other collision in the new list (a published value and one of the seat's own hand
    positions, which the unlock leaves as the earlier unlocks left them and an earlier cheat may have written: "a
    framed unlock", 17.10; or two published values whose inputs collided) is taken, with `broken` saying where:
    the deal broke at this unlock, and the audit names whoever deviated."""
    positions = layout.unlocked_by(seat)
    who = UNLOCK_OF.format(seat=seat)
    unkeyed = read_points(published, len(positions), who)  # the u-coordinates whose twin keys are not known yet
    new = list(current)
    for p, v in zip(positions, cast("Sequence[bytes]", published)):  # read_points checked them
        new[p] = v
    memo = folds is not None and len(folds) == len(new)
    if memo:
        known: list[int | None] = list(cast("Sequence[int]", folds))
        for p in positions:
            known[p] = None
    else:
        known = [None] * len(new)
        unkeyed = [int.from_bytes(v, "little") for v in new]  # no memo: every value's
    new_folds = twin_keys_with(known, unkeyed)
    before: list[int] | None = list(cast("Sequence[int]", folds)) if memo else None

    def collided(p: int, q: int) -> bool:
        nonlocal before
        if before is None:
            before = twin_keys(current)
        return before[p] == before[q]

    twins = first_repeat(new_folds)
    if twins is None:
        return Taken(new, new_folds)  # no two values of the list collide: none of the sender's outputs either
    keys: tuple[Sequence[object], Sequence[object]] = (new, new_folds)
    for key, words in zip(keys, ("hold the same value", "differ by a small-order point")):
        seen: dict[object, int] = {}
        for p in positions:
            if key[p] not in seen:
                seen[key[p]] = p
            elif not collided(seen[key[p]], p):  # one class of inputs: the first output of a value stands for all
                raise ValueError(f"{who}: positions {seen[key[p]]} and {p} now {words}")
    i, j = twins
    words = "hold the same value" if new[i] == new[j] else "differ by a small-order point"
    return Taken(new, new_folds, f"{who}: positions {i} and {j} now {words}")


def open_values(d: bytes, values: Sequence[bytes]) -> list[int | None]:
    """The card each value opens to with d (X25519(d, value) = C_k), None where it opens to no card."""
    table = card_table()
    return [table.get(v) for v in apply_all(d, values)]


def open_hand(layout: Layout, seat: int, d: bytes, current: Sequence[bytes]) -> list[int | None]:
    """The owner's cards at its positions 10s..10s+9 after the last unlock (None: someone cheated)."""
    return open_values(d, [current[p] for p in layout.hand(seat)])


def open_public(layout: Layout, seats: Sequence[int], current: Sequence[bytes]) -> dict[int, int | None]:
    """Position -> card for the public positions after the last unlock (None: someone cheated)."""
    table = card_table()
    return {p: table.get(current[p]) for p in layout.public(seats)}


def deck_order(cards: Sequence[int], seeds: Iterable[bytes]) -> tuple[int, ...]:
    """The card at each position of D_n: the deck (ascending) permuted by each seat's seed in seat order."""
    order = tuple(cards)
    for seed in seeds:
        order = tuple(order[j] for j in permutation(seed, len(order)))
    return order


@dataclass(frozen=True, slots=True)
class AuditFault:
    """The first thing the round-end audit found wrong, and the seat at fault.

    step: "key" (revealed key or seed unusable), "shuffle", "unlock" or "play".
    index: for "shuffle" the index in that seat's output, for "unlock" and
    "play" the deck position; None when the whole message is at fault.
    """

    seat: int
    step: str
    index: int | None
    reason: str


def _shape(values: object, count: int) -> tuple[int | None, str] | None:
    if not isinstance(values, (list, tuple)):
        return None, f"is a {type(values).__name__}, not a list"
    if len(values) != count:
        return None, f"has {len(values)} values, expected {count}"
    if bytes_of_size(values, SIZE):
        return None  # the usual answer, found in C
    for i, v in enumerate(values):
        if not isinstance(v, bytes) or len(v) != SIZE:
            return i, f"value {i} is not {SIZE} bytes"
    return None


def _revealed(seat: int, revealed: object) -> tuple[KeyPair, bytes] | AuditFault:
    if revealed is None:
        return AuditFault(seat, "key", None, "revealed no key")
    if not isinstance(revealed, (tuple, list)) or len(revealed) != 2:
        return AuditFault(seat, "key", None, "the reveal is not (e, seed)")
    e, seed = revealed
    try:
        pair = key_pair_from(e)
    except ValueError as exc:
        return AuditFault(seat, "key", None, str(exc))
    if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
        return AuditFault(seat, "key", None, f"the permutation seed is not {SEED_SIZE} bytes")
    return pair, seed


def audit(
    cards: Sequence[int],
    players: int,
    seats: Sequence[int],
    shuffles: Mapping[int, object],
    unlocks: Mapping[int, object],
    keys: Mapping[int, object],
    plays: Iterable[tuple[int, int, int]],
    trusted: int | None = None,
    recompute: bool = False,
) -> AuditFault | None:
    """Check the round's deal against the revealed keys and seeds, then every play; the first fault, or None.

    cards: the round's deck, ascending; seats: the shuffling seats in seat
    order; shuffles / unlocks: what each seat published; keys: seat ->
    (e, seed) as revealed; plays: (seat, card, position) for every card
    played, in play order. First the outcome of each phase (protocol.md
    17.7 step 0: `outcomes`): if every key is usable and the last
    shuffle and the dealt values after every unlock are what the keys and
    seeds make them, the deal is right. Otherwise every step is recomputed
    (`steps`), in protocol order: each seat's key and seed, then its
    shuffle output against the recomputation from the (already checked)
    previous one; then each unlock likewise; the first step that differs is
    the fault. Then each play: a dealt position of the player's own hand,
    not played before, that opens to the card played. ValueError only for
    bad local arguments (cards, players, seats); everything a peer sent
    gives a fault. trusted: the auditing node's own seat, whose steps it
    computed itself and need not recompute when steps are recomputed (a
    spectator and `verify` trust no seat). recompute: skip the outcomes and recompute every step (a deal broken at
    an unlock, 17.5 step 3: its collision shows a wrong step even when a later one undid its outcome).
    """
    if not seats:  # no seat shuffled (each dropped at or before its shuffle, or forfeited): nothing to audit (17.7)
        return None
    layout = Layout(players, len(cards))
    seats = layout.check_seats(seats)
    initial_deck(cards)  # ValueError unless increasing cards
    order = None if recompute else outcomes(cards, layout, seats, shuffles, unlocks, keys)
    if order is None:
        got = steps(cards, layout, seats, shuffles, unlocks, keys, trusted)
        if isinstance(got, AuditFault):
            return got
        order = got
    return _check_plays(layout, order, plays)


def outcomes(cards: Sequence[int], layout: Layout, seats: Sequence[int], shuffles: Mapping[int, object],
             unlocks: Mapping[int, object], keys: Mapping[int, object]) -> tuple[int, ...] | None:
    """The card at each position if the deal's two outcomes are right (protocol.md 17.7 step 0), else None.

    Right: every seat revealed a usable key and seed; every shuffle and unlock is a list of as many 32-byte values
    as it should hold; the last shuffle is D_n[j] = X(E, C_order[j]) (E the product of
    every e, order the deck permuted by every seed); and after every published unlock, a row position and a hand of a
    seat that did not shuffle hold C_order[p], a hand position of a shuffling seat o holds X(e_o, C_order[p]).
    Honest steps give exactly these, so an honest deal costs about 2N X25519 here instead of one per published
    value (2 n N). A wrong step shows in an outcome unless a later step undoes it, and only a seat that knows what
    was done wrong can undo it across the steps of the seats between (see protocol.md 17.7): `steps` then names
    the first wrong step."""
    pairs: dict[int, KeyPair] = {}
    seeds = []
    for s in seats:
        got = _revealed(s, keys.get(s))
        if isinstance(got, AuditFault):
            return None
        pairs[s], seed = got
        seeds.append(seed)
        if _shape(shuffles.get(s), layout.deck_size):
            return None
    last = cast("Sequence[bytes]", shuffles[seats[-1]])  # _shape checked it
    current = list(last[: layout.dealt])
    for s in seats:
        positions = layout.unlocked_by(s)
        published = unlocks.get(s)
        if _shape(published, len(positions)):
            return None
        for p, v in zip(positions, cast("Sequence[bytes]", published)):
            current[p] = v
    order = deck_order(cards, seeds)
    if list(last) != encodings_under([pairs[s].e for s in seats], order):
        return None
    for s in range(layout.players):
        hand = [order[p] for p in layout.hand(s)]
        want = apply_all(pairs[s].e, encode_deck(hand)) if s in pairs else encode_deck(hand)
        if [current[p] for p in layout.hand(s)] != want:
            return None
    if [current[p] for p in layout.rows] != encode_deck([order[p] for p in layout.rows]):
        return None
    return order


def steps(cards: Sequence[int], layout: Layout, seats: Sequence[int], shuffles: Mapping[int, object],
          unlocks: Mapping[int, object], keys: Mapping[int, object],
          trusted: int | None = None) -> tuple[int, ...] | AuditFault:
    """Every step recomputed from D_0 (protocol.md 17.7 steps 1 and 2): the first fault, or the card at each
    position."""
    previous = initial_deck(cards)
    seeds: list[bytes] = []
    pairs: dict[int, KeyPair] = {}
    for s in seats:
        got = _revealed(s, keys.get(s))
        if isinstance(got, AuditFault):
            return got
        pairs[s], seed = got
        output = shuffles.get(s)
        if output is None:
            return AuditFault(s, "shuffle", None, "published no shuffle")
        bad = _shape(output, len(previous))
        if bad:
            return AuditFault(s, "shuffle", bad[0], f"the shuffle output {bad[1]}")
        output = cast("Sequence[bytes]", output)  # _shape checked it
        expected = list(output) if s == trusted else shuffle_step(pairs[s].e, seed, previous)
        for j, (have, want) in enumerate(zip(output, expected)):
            if have != want:
                return AuditFault(s, "shuffle", j, f"value {j} of the shuffle output is not the shuffle of the "
                                  f"previous output under the revealed key and seed")
        previous = expected
        seeds.append(seed)
    current = unlock_start(layout, previous)
    for s in seats:
        positions = layout.unlocked_by(s)
        published = unlocks.get(s)
        if published is None:
            return AuditFault(s, "unlock", None, "published no unlock")
        bad = _shape(published, len(positions))
        if bad:
            return AuditFault(s, "unlock", None if bad[0] is None else positions[bad[0]], f"the unlock {bad[1]}")
        published = cast("Sequence[bytes]", published)  # _shape checked it
        expected = list(published) if s == trusted else unlock_step(layout, s, pairs[s].d, current)
        for p, have, want in zip(positions, published, expected):
            if have != want:
                return AuditFault(s, "unlock", p, f"position {p} is not the previous value with the revealed key's "
                                  f"layer removed")
            current[p] = want
    return deck_order(cards, seeds)


def _check_plays(layout: Layout, order: Sequence[int], plays: Iterable[tuple[int, int, int]]) -> AuditFault | None:
    """Each play (seat, card, position), in play order: a dealt position of the seat's own hand, not played from
    before, where `order` has the card; the first that is not, or None."""
    played: dict[int, int] = {}
    for seat, card, position in plays:
        layout.check_seat(seat)
        if type(position) is not int or not 0 <= position < layout.dealt:
            return AuditFault(seat, "play", None, f"position {position!r} is not a dealt position")
        owner = layout.owner(position)
        if owner != seat:
            whose = "a row" if owner is None else f"seat {owner}'s"
            return AuditFault(seat, "play", position, f"played position {position}, which is {whose}")
        if position in played:
            return AuditFault(seat, "play", position, f"played position {position} twice")
        played[position] = card
        if card != order[position]:
            return AuditFault(seat, "play", position, f"played {card!r} from position {position}, "
                              f"which opens to {order[position]}")
    return None

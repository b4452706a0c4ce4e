"""What a node takes without judging it in the sealed deal's arrival checks (protocol.md 17.1, 17.5), and what not.

Two cuts of the eightfolds' work that change no verdict (issue 24, seventeenth sitting):
- its own shuffle, when it comes back into its slot equal to what it computed, is taken unchecked
  (sealed.take_shuffle): X25519 under a clamped key maps a list the node took to one that passes the check;
- an unlock's check keeps the eightfolds of the positions the unlock leaves as they were (sealed.take_unlock),
  finding only the published values' own.

Its own unlock is judged as before: the positions outside its hand are mapped, its hand's values are not, and an
earlier unlock can have put into its hand a value that one of the mapped values then equals: "a framed unlock"
(protocol.md 17.10), closed in session 36: such a collision is not the unlock's fault on arrival (17.5 step 3), the
deal breaks at it and the audit, every step recomputed, names the seat that wrote the value.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sealed_adversary import Cheat, assert_audited, deal_state, run_with, secrets_of
from test_attack_torsion import twins

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import (
    Layout,
    after_unlock,
    deck_order,
    initial_deck,
    new_secrets,
    shuffle_step,
    take_shuffle,
    take_unlock,
    unlock_start,
    unlock_step,
)

CARDS = list(range(1, 105))


def twist_value(rng: random.Random) -> bytes:
    """A valid value of the twist (not on the curve, not of low order)."""
    while True:
        u = rng.randrange(2, g.P - 1)
        if u not in g.LOW_ORDER and not g.on_curve(u):
            return u.to_bytes(32, "little")


def taken_list(rng: random.Random, size: int) -> list[bytes]:
    """A list the check takes: card encodings, each moved by a random small-order point or not (a cheat's
    legal-looking values), and values of the twist; no two with one eightfold."""
    cards = rng.sample(CARDS, size)
    out = []
    for k in cards:
        shift = rng.randrange(9)
        out.append(twist_value(rng) if shift == 8 else g.encoding(k) if shift == 7 else twins(g.encoding(k))[shift])
    assert g.first_twins(out) is None
    return out


def entropy(rng: random.Random):
    return lambda n: bytes(rng.randrange(256) for _ in range(n))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(2, 40))
def test_an_own_shuffle_of_a_taken_list_always_passes_the_check(seed, size):
    """The argument of take_shuffle, tried: whatever list the node took (small-order parts, twist values), its own
    shuffle of it passes the full check, so taking it unchecked refuses nothing the check would have taken."""
    rng = random.Random(seed)
    previous = taken_list(rng, size)
    secrets = new_secrets(entropy(rng))
    mine = shuffle_step(secrets.key.e, secrets.seed, previous)
    full = take_shuffle(previous, mine)
    assert full.values == mine and full.folds == g.twin_keys(mine)
    assert take_shuffle(previous, mine, own=mine).values == mine


def test_an_own_shuffle_altered_is_checked_in_full():
    """`own` spares only an equal list of bytes: twins, a list of another type, a bytearray in it are judged with
    the check's words."""
    rng = random.Random(3)
    previous = initial_deck(CARDS)
    secrets = new_secrets(entropy(rng))
    mine = shuffle_step(secrets.key.e, secrets.seed, previous)
    altered = [mine[0], twins(mine[0])[2], *mine[2:]]
    with pytest.raises(ValueError, match="^shuffle output: values 0 and 1 differ by a small-order point$"):
        take_shuffle(previous, altered, own=mine)
    with pytest.raises(ValueError, match="^shuffle output: value 3 is a bytearray, not bytes$"):
        take_shuffle(previous, [*mine[:3], bytearray(mine[3]), *mine[4:]], own=mine)
    assert take_shuffle(previous, tuple(mine), own=mine).folds is not None  # not a list: checked


def pool(rng: random.Random) -> list[object]:
    """Values an unlock may hold or publish: encodings, their twins, twist values, and some a check refuses."""
    base = [g.encoding(k) for k in rng.sample(CARDS, 6)]
    return [*base, *(twins(b)[rng.randrange(7)] for b in base), twist_value(rng), twist_value(rng),
            (1).to_bytes(32, "little"), (g.P + 3).to_bytes(32, "little"), b"\x09" * 31, bytearray(base[0])]


def outcome(fn):
    try:
        taken = fn()
    except ValueError as exc:
        return "refused", str(exc)
    return ("taken", taken) if isinstance(taken, list) else ("taken", taken.values, taken.broken)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 3))
def test_the_memo_of_unchanged_positions_never_changes_a_verdict(data, seed, players):
    """take_unlock with the twin keys of the list before (kept by position, the published positions' dropped) and
    after_unlock without: the same list taken, or the same words refused, whatever the list before held (twins,
    equal values) and whatever was published at a position (a twin or a copy of a kept value, a bad value); the
    twin keys it returns are the new list's."""
    rng = random.Random(seed)
    lay = Layout(players, 104)
    seat = data.draw(st.integers(0, players - 1))
    values = pool(rng)
    valid = [v for v in values if isinstance(v, bytes) and g.point_error(v, False) is None]
    current = [data.draw(st.sampled_from(valid)) if data.draw(st.booleans()) else twist_value(rng)
               for _ in range(lay.dealt)]
    folds = g.twin_keys(current)
    published: list[object] = [twist_value(rng) for _ in lay.unlocked_by(seat)]
    for _ in range(data.draw(st.integers(0, 4))):
        published[data.draw(st.integers(0, len(published) - 1))] = data.draw(st.sampled_from(values))
    if data.draw(st.booleans()):  # a twin of a value the unlock keeps (seat's own hand), at a published position
        kept = current[lay.hand(seat)[data.draw(st.integers(0, 9))]]
        published[data.draw(st.integers(0, len(published) - 1))] = twins(kept)[data.draw(st.integers(0, 6))] \
            if g.on_curve(int.from_bytes(kept, "little")) else kept
    with_memo = outcome(lambda: take_unlock(lay, seat, current, folds, published))
    assert with_memo == outcome(lambda: take_unlock(lay, seat, current, None, published))
    assert with_memo[:2] == outcome(lambda: after_unlock(lay, seat, current, published))
    if with_memo[0] == "taken":
        assert take_unlock(lay, seat, current, folds, published).folds == g.twin_keys(with_memo[1])


def test_a_published_value_replaces_its_positions_memo():
    """The memo of a position the unlock publishes is not used: a twin put where a value of another eightfold was is
    found (its old eightfold would have passed)."""
    rng = random.Random(7)
    lay = Layout(2, 104)
    current = [g.encoding(k) for k in rng.sample(CARDS, lay.dealt)]
    folds = g.twin_keys(current)
    published = [current[p] for p in lay.unlocked_by(1)]  # seat 1's unlock: every position but 10..19
    published[1] = twins(published[0])[3]  # position 1 now differs from position 0 by a small-order point
    with pytest.raises(ValueError, match="^seat 1's unlock: positions 0 and 1 now differ by a small-order point$"):
        take_unlock(lay, 1, current, folds, published)


def test_a_collision_with_the_own_hand_breaks_the_deal_and_refuses_nothing():
    """A published value that is a twin of (or equal to) a value at the sender's own hand (which it leaves as it
    was) is taken, the deal broken at the unlock (17.5 step 3), the memo of the kept position notwithstanding; two
    published values that collide are taken too when their values before collided, and refused when not."""
    rng = random.Random(7)
    lay = Layout(2, 104)
    current = [g.encoding(k) for k in rng.sample(CARDS, lay.dealt)]
    folds = g.twin_keys(current)
    published = [current[p] for p in lay.unlocked_by(1)]  # seat 1's unlock: every position but 10..19
    published[0] = twins(current[10])[3]
    for memo in (folds, None):
        taken = take_unlock(lay, 1, current, memo, published)
        assert taken.broken == "seat 1's unlock: positions 0 and 10 now differ by a small-order point"
        assert taken.values[0] == published[0] and taken.folds == g.twin_keys(taken.values)
    published[0] = current[10]
    assert take_unlock(lay, 1, current, folds, published).broken == \
        "seat 1's unlock: positions 0 and 10 now hold the same value"
    before = list(current)
    before[1] = twins(before[0])[2]  # an earlier collision between two positions the unlock maps
    published = [before[p] for p in lay.unlocked_by(1)]
    published[1] = published[0]  # what a clamped key makes of twins: one value
    taken = take_unlock(lay, 1, before, g.twin_keys(before), published)
    assert taken.broken == "seat 1's unlock: positions 0 and 1 now hold the same value"
    published[2] = published[0]  # position 2's value before did not collide: the sender's own work
    with pytest.raises(ValueError, match="^seat 1's unlock: positions 0 and 2 now hold the same value$"):
        take_unlock(lay, 1, before, g.twin_keys(before), published)


def framed_unlock(players: int = 3, seed: int = 5) -> tuple[Layout, list[bytes], list[bytes]]:
    """The list before the last shuffler's unlock, after the seat before it put into the last shuffler's hand the
    twin of a row card's encoding (what that card's row position will hold after the last unlock), and that honest
    unlock."""
    rng = random.Random(seed)
    lay = Layout(players, 104)
    secrets = {s: new_secrets(entropy(rng)) for s in range(players)}
    previous = initial_deck(CARDS)
    for s in range(players):
        previous = shuffle_step(secrets[s].key.e, secrets[s].seed, previous)
    current = unlock_start(lay, previous)
    for s in range(players - 1):
        current = after_unlock(lay, s, current, unlock_step(lay, s, secrets[s].key.d, current))
    order = deck_order(CARDS, [secrets[s].seed for s in range(players)])
    last = players - 1
    row_card = order[lay.rows[0]]
    current[lay.hand(last)[0]] = twins(g.encoding(row_card))[1]
    assert g.first_twins(current) is None  # the cheat's own unlock passes the check
    return lay, current, unlock_step(lay, last, secrets[last].key.d, current)


def test_an_honest_own_unlock_framed_is_taken_with_the_deal_broken():
    """Why a node judges its own unlock: it maps only the positions outside its hand; a value an earlier unlock put
    into its hand can be a twin of one it maps there (here the last shuffler's: a row's card encoding). The check
    takes the honest unlock and says the deal broke at it (17.5 step 3: the collision is not its fault); every node
    must find that, the node itself included."""
    lay, current, honest = framed_unlock()
    taken = take_unlock(lay, 2, current, g.twin_keys(current), honest)
    assert taken.broken == "seat 2's unlock: positions 20 and 30 now differ by a small-order point"
    assert taken.values[30] == honest[lay.unlocked_by(2).index(30)]


def test_every_node_refuses_a_twin_shuffle_the_cheat_itself_included():
    """A cheat's own session signs a deck with twins in place of the one it shuffled: every node refuses it with
    the same fault, the cheat's own node too (it does not take its altered deck as its own)."""

    def change(c: Cheat, kind: str, body: dict) -> list | None:
        if kind != "SEALED_SHUFFLE" or body["round"] != 0 or c.fired:
            return None
        body["deck"][1] = twins(body["deck"][0])[3]
        c.fired = True
        return [(kind, body)]

    net, made = run_with(4, lambda n: Cheat(n, 1, change))
    assert made.fired
    culprit = net.identities[1].peer
    found = {}
    for peer in net.peers:
        faults = [f for f in net.faults(peer) if f.code == "sealed-shuffle"]
        assert len(faults) == 1 and faults[0].peer == culprit, faults
        found[peer] = faults[0].detail
    assert len(set(found.values())) == 1 and "values 0 and 1 differ by a small-order point" in found[culprit]


def frame(victim: int, secrets_from: Any = None):
    """A change for the seat before `victim` in the unlock order: it puts into the victim's hand the twin of a row
    card's encoding (what that row position holds after the victim's unlock, the victim being the last).
    secrets_from: the net whose Python sessions tell every seat's permutation seed (the cheat's own, by default; a
    mixed table's TypeScript nodes draw the seeds the Python table's nodes drew)."""

    def change(c: Cheat, kind: str, body: dict) -> list | None:
        if kind != "SEALED_UNLOCK" or body["round"] != 0 or c.fired:
            return None
        net = secrets_from or c.net
        sessions = [net.sessions[i.peer] for i in net.identities]
        st_ = deal_state(c.session)
        order = deck_order(st_.cards, [secrets_of(s)[0].seed for s in sessions])
        positions = st_.layout.unlocked_by(c.seat)
        row_card = order[st_.layout.rows[0]]
        body["values"][positions.index(st_.layout.hand(victim)[0])] = twins(g.encoding(row_card))[1]
        c.fired = True
        return [(kind, body)]

    return change


def own_hand_twin(equal: bool = False):
    """A change for an unlocker that makes its output at the first row position a twin of (or equal to) the value
    at its own first hand position: a collision with its own hand, which the arrival check cannot blame on it."""

    def change(c: Cheat, kind: str, body: dict) -> list | None:
        if kind != "SEALED_UNLOCK" or body["round"] != 0 or c.fired:
            return None
        st_ = deal_state(c.session)
        assert st_.current is not None
        kept = st_.current[st_.layout.hand(c.seat)[0]]
        positions = st_.layout.unlocked_by(c.seat)
        body["values"][positions.index(st_.layout.rows[0])] = kept if equal else twins(kept)[1]
        c.fired = True
        return [(kind, body)]

    return change


def test_every_node_names_the_framer_of_an_unlock_the_victim_keeps_its_seat():
    """Seat 2 of 4 (the last unlocker before seat 3) puts into seat 3's hand the twin of a row card's encoding:
    seat 3's honest unlock then holds twins. Every node, seat 3's own included, takes it (the collision is not its
    fault, 17.5 step 3), audits at once with every step recomputed and names seat 2 (`sealed-unlock`, at the hand
    position it wrote); seat 3 keeps its seat and plays on. The same game delivered in order and in five shuffled
    orders: the same verdict, in the same words, at every node. (Before session 36 every node expelled seat 3 and
    the cheat was never named: "a framed unlock", 17.10.)"""
    details = set()
    for delivery in (None, 1, 2, 3, 4, 5):

        def make(net: Any, delivery: int | None = delivery) -> Cheat:
            if delivery is None:
                net.shuffle_delivery = False
            else:
                net.rng = random.Random(delivery)
            return Cheat(net, 2, frame(3))

        net, made = run_with(4, make)
        assert made.fired
        found = assert_audited(net, 2, "sealed-unlock")
        details |= {f.detail for f in found}
        victim = net.identities[3].peer
        assert 3 not in net.sessions[victim].dropped and 3 not in net.sessions[victim].table.expelled
    assert len(details) == 1 and "position 30 " in next(iter(details)), details


@pytest.mark.parametrize(("seat", "equal"), [(3, False), (1, False), (1, True)])
def test_an_unlocker_whose_outputs_collide_with_its_own_hand_is_named_by_the_audit(seat, equal):
    """The other side: an unlocker (the last, or one with unlocks after it, which go on over the broken deal) whose
    own output is a twin of (or equal to) a value of its own hand is taken on arrival, and the audit names it."""
    net, made = run_with(4, lambda n: Cheat(n, seat, own_hand_twin(equal)))
    assert made.fired
    found = assert_audited(net, seat, "sealed-unlock")
    assert len({f.detail for f in found}) == 1 and "position 40 " in found[0].detail, found[0].detail


def eightfold_as_written(value: bytes) -> int:
    """17.1's eightfold by its words: three times (X, Z) -> ((X^2 - Z^2)^2, 4XZ(X^2 + AXZ + Z^2)) mod p from (u, 1),
    then X Z^(p-2); -1 at the point at infinity."""
    x, z = int.from_bytes(value, "little") % g.P, 1
    for _ in range(3):
        xx, zz, xz = x * x % g.P, z * z % g.P, x * z % g.P
        x, z = (xx - zz) ** 2 % g.P, 4 * xz * (xx + g.A * xz + zz) % g.P
    return x * pow(z, g.P - 2, g.P) % g.P if z else -1


def test_eightfolds_are_17_1s_doublings_as_written():
    """sealed_group.eightfolds (the ladder's doubling on (x : z), one inversion for the list) gives 17.1's eightfold
    as written: on random 32-byte strings, the low-order points, and values next to 0, p and 2^256 (where a
    reduction or a negative difference would go wrong first)."""
    rng = random.Random(11)
    edges = [*range(40), *(g.P + k for k in range(-40, 40)), *(2**256 - k for k in range(1, 40)), *g.LOW_ORDER,
             *(2**255 - k for k in range(1, 40)), *(2 * g.P - k for k in range(1, 10))]
    values = [*(rng.randrange(2**256).to_bytes(32, "little") for _ in range(1500)),
              *(v.to_bytes(32, "little") for v in edges if v < 2**256), *initial_deck(CARDS)]
    assert g.eightfolds(values) == [eightfold_as_written(v) for v in values]
    assert -1 in g.eightfolds(values)  # the low-order points reach infinity

"""The cryptographic core of the sealed deal (p2pnimmt/protocol/sealed_group.py, sealed.py).

Covers: the group (clamped key pairs, commutativity, inversion), the card
encodings and the vectors pinned below (VECTORS, also printed by
benchmarks/sealed_bench.py --vectors for protocol.md), full deals for 2, 5
and 10 players, determinism, the curious peer who cannot read any card it
is not dealt (and, as a control, who reads the whole deck when the
encodings are k*G), the round-end audit catching and attributing each cheat,
and malformed inputs that give a ValueError or a fault, never a crash.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
from pathlib import Path

import pytest
from sealed_support import card_of, deck_order, simulate_deal

from p2pnimmt.engine import Round, deck
from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import (
    AuditFault,
    Layout,
    RoundSecrets,
    after_unlock,
    audit,
    check_shuffle,
    initial_deck,
    new_secrets,
    open_hand,
    open_public,
    open_values,
    outcomes,
    permutation,
    shuffle_step,
    steps,
    unlock_start,
    unlock_step,
)

h = bytes.fromhex

VECTORS = {
    "s0_tag": "p2pnimmt/sealed/s0/v1",
    "s0": "d0ee1790c330f1b6e1933ee61fcfcb93c7fc0b363a66675691678dd9d55b044b",
    "card_tag": "p2pnimmt/sealed/card/v1",
    "card_encodings": {
        "1": {"counter": 2, "u": "128414be5425a84a5e961ee2f75cbb28f3e3f9aa3c693ff14cba81a43e9b236b",
              "encoding": "9fe92597c99ea2079ba557ca943fc05dfe19dc3f008765797df0b6803a8bbd1f"},
        "2": {"counter": 0, "u": "ca96b33220675d822cd14e7cf39a12acda2bb3691bc7f62fc6bab9a163603c3a",
              "encoding": "7a025025e713f0e5370bb902ff792380652a861fab56af9ccfffe6d989781716"},
        "3": {"counter": 1, "u": "d310d5e724d5ea3faa17cfb5dfc5519e64efe04246f922435808947a9d42a107",
              "encoding": "ecd57a07294e7dba84915d935bdbbc2de62b4d9ea0a62048de89d3e5e5b5b24c"},
        "4": {"counter": 1, "u": "dfd102f7afac6839925dd07aa4e842e4809ed1b035abd2f9d8215a5d69fcad18",
              "encoding": "3ce6bdbf3e997bac619e24e91647a8b2db865ef6c837906a398e734a6dae603f"},
        "104": {"counter": 2, "u": "ce07f46ede186191741dc82f0a31e590e172026bdf540f435f52807fcb692e5c",
                "encoding": "bcaaa97fa7fa8344dbcdd3ad8e4ae84d3ee69a079e27ccd387e25283152f387d"},
    },
    "key_pair": {
        "draws": ["791e538d25a8f20e7c04becf0f2c171e58d8ac3b6d04386c2c8a955f1afe311a",
                  "b83d73245d1ea22821617af64f153dab343d18dd9a2e19b9b98e17fac29cd695"],
        "e": "b83d73245d1ea22821617af64f153dab343d18dd9a2e19b9b98e17fac29cd655",
        "d": "38f4abef26a2ccb6483c019c9ce978f1a8d72d8a4fea54682c59f66fca6c195a",
    },
    "shuffle_step": {
        "input": ["9fe92597c99ea2079ba557ca943fc05dfe19dc3f008765797df0b6803a8bbd1f",
                  "7a025025e713f0e5370bb902ff792380652a861fab56af9ccfffe6d989781716",
                  "ecd57a07294e7dba84915d935bdbbc2de62b4d9ea0a62048de89d3e5e5b5b24c",
                  "3ce6bdbf3e997bac619e24e91647a8b2db865ef6c837906a398e734a6dae603f"],
        "e": "b83d73245d1ea22821617af64f153dab343d18dd9a2e19b9b98e17fac29cd655",
        "seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "permutation": [1, 2, 3, 0],
        "layered": ["302c9a7066611aa511a5beb8f814f9b883a7c9bc67a159364676eb7817fba248",
                    "c8219dd4d696df3af090f074fb45254cf26aa13a843c08a638291e1998cafe47",
                    "be749931ff6bc32a82d9c6e0466d8cb06a6145cd6bfe10ba6a8981233b84d015",
                    "95e7d922084f38201533c304d150caae144186e3a304cc6dddff3f0e1f59f942"],
        "output": ["c8219dd4d696df3af090f074fb45254cf26aa13a843c08a638291e1998cafe47",
                   "be749931ff6bc32a82d9c6e0466d8cb06a6145cd6bfe10ba6a8981233b84d015",
                   "95e7d922084f38201533c304d150caae144186e3a304cc6dddff3f0e1f59f942",
                   "302c9a7066611aa511a5beb8f814f9b883a7c9bc67a159364676eb7817fba248"],
    },
}

P, L = g.P, g.L
BASE = (9).to_bytes(32, "little")  # the X25519 base point: generates the prime-order subgroup


def stream(label: str):
    """Pinned entropy: SHA-256(label || counter as 4 bytes big-endian), concatenated."""
    counter, buffer = 0, b""

    def entropy(n: int) -> bytes:
        nonlocal counter, buffer
        while len(buffer) < n:
            buffer += hashlib.sha256(label.encode() + counter.to_bytes(4, "big")).digest()
            counter += 1
        out, buffer = buffer[:n], buffer[n:]
        return out

    return entropy


def feed(*chunks: bytes):
    queue = list(chunks)
    return lambda n: queue.pop(0)


def mul(n: int, point: bytes) -> bytes:
    """n * point for any n mod l, in one or two X25519 calls (what an attacker can do with a known scalar)."""
    rep = g.clamped_representative(n % L)
    if rep is not None:
        return g.apply(rep, point)
    for j in itertools.count():
        a = 2**254 + 8 * j
        rest = g.clamped_representative(n * pow(a, -1, L) % L)
        if rest is not None:
            return g.apply(rest, g.apply(a.to_bytes(32, "little"), point))


def euler_on_curve(u: int) -> bool:
    f = (u * u * u + g.A * u * u + u) % P
    return f != 0 and pow(f, (P - 1) // 2, P) == 1


def secrets_for(seats, label: str) -> dict[int, RoundSecrets]:
    entropy = stream(label)
    return {s: new_secrets(entropy) for s in seats}


def keys_of(secrets) -> dict[int, tuple[bytes, bytes]]:
    return {s: (x.key.e, x.seed) for s, x in secrets.items()}


def honest_plays(layout: Layout, seats, order) -> list[tuple[int, int, int]]:
    """Every seat plays its positions, one per turn, seats in order each turn."""
    return [(s, order[p], p) for t in range(10) for s in seats for p in (layout.hand(s)[t],)]


def run_deal(d0, layout: Layout, secrets, shuffle_tamper=None, unlock_tamper=None):
    """The deal from an explicit D_0, optionally with one seat cheating; no receipt checks (the audit must catch it).

    shuffle_tamper / unlock_tamper: (seat, function(list) -> list).
    """
    seats = sorted(secrets)
    shuffles, unlocks = {}, {}
    previous = list(d0)
    for s in seats:
        out = shuffle_step(secrets[s].key.e, secrets[s].seed, previous)
        if shuffle_tamper and shuffle_tamper[0] == s:
            out = shuffle_tamper[1](out)
        previous = shuffles[s] = out
    current = unlock_start(layout, previous)
    for s in seats:
        out = unlock_step(layout, s, secrets[s].key.d, current)
        if unlock_tamper and unlock_tamper[0] == s:
            out = unlock_tamper[1](out)
        unlocks[s] = out
        for p, v in zip(layout.unlocked_by(s), out):
            current[p] = v
    return shuffles, unlocks, current


# ------------------------------------------------------------------ the group


def test_constants() -> None:
    assert L == 2**252 + 27742317777372353535851937790883648493
    assert pow(2, L - 1, L) == 1 and pow(3, L - 1, L) == 1  # l is (probably) prime
    assert g.S0 == g.clamp(hashlib.sha256(b"p2pnimmt/sealed/s0/v1").digest()) and g.is_clamped(g.S0)
    assert g.CARD_TAG == b"p2pnimmt/sealed/card/v1"
    # BASE has order l: l * BASE = O, checked as (l+1) * BASE = BASE
    assert mul(L + 1, BASE) == BASE


def test_key_pairs_are_clamped_inverses_and_the_operation_commutes() -> None:
    entropy = stream("keys")
    pairs = [g.new_key_pair(entropy) for _ in range(6)]
    points = [g.encoding(k) for k in (1, 55, 104)] + [BASE]
    for pair in pairs:
        assert g.is_clamped(pair.e) and g.is_clamped(pair.d)
        assert int.from_bytes(pair.e, "little") * int.from_bytes(pair.d, "little") % L == 1
        assert g.key_pair_from(pair.e) == pair
        for x in points:
            assert g.apply(pair.d, g.apply(pair.e, x)) == x
            assert g.apply(pair.e, g.apply(pair.d, x)) == x
    for a, b in itertools.combinations(pairs, 2):
        for x in points:
            assert g.apply(a.e, g.apply(b.e, x)) == g.apply(b.e, g.apply(a.e, x))
            assert g.apply(a.d, g.apply(b.e, g.apply(a.e, x))) == g.apply(b.e, x)  # layers come off in any order
    assert "KeyPair(...)" == repr(pairs[0])  # secrets stay out of logs


def test_rejection_method() -> None:
    entropy = stream("rejection")
    draws = [g.clamp(entropy(32)) for _ in range(400)]
    ok = 0
    for e in draws:
        try:
            pair = g.key_pair_from(e)
            ok += 1
            assert pair.e == e
        except ValueError as exc:
            assert "no clamped inverse" in str(exc)
    assert 140 < ok < 260  # about half
    v = VECTORS["key_pair"]
    with pytest.raises(ValueError, match="no clamped inverse"):
        g.key_pair_from(g.clamp(h(v["draws"][0])))
    for bad in (bytes(32), h(v["e"])[:31], b"\xff" * 32, "e", None, bytearray(h(v["e"]))):
        with pytest.raises(ValueError, match="not a clamped"):
            g.key_pair_from(bad)
    rejected = h(v["draws"][0])
    with pytest.raises(ValueError, match="256 draws"):
        g.new_key_pair(lambda n: rejected)
    with pytest.raises(ValueError, match="returned"):
        g.new_key_pair(lambda n: b"short")
    with pytest.raises(ValueError, match="returned"):
        new_secrets(feed(h(v["draws"][1]), b"short seed"))


def test_jacobi_is_the_legendre_symbol() -> None:
    entropy = stream("jacobi")
    for u in [0, 1, 2, 9, P - 1] + [int.from_bytes(entropy(32), "little") % P for _ in range(300)]:
        assert g.on_curve(u) == euler_on_curve(u), u


def test_points_and_apply_refuse_malformed_values() -> None:
    c = g.encoding(7)
    assert g.point_error(c) is None and g.point_error(BASE) is None
    twist = next(u for u in range(2, 100) if not euler_on_curve(u))
    cases = {
        "is a str": "x" * 32, "is a bytearray": bytearray(c), "is 31 bytes": c[:31], "is 33 bytes": c + b"\0",
        "not a canonical": P.to_bytes(32, "little"), "low-order": bytes(32),
        "not on Curve25519": twist.to_bytes(32, "little"),
    }
    for expected, value in cases.items():
        assert expected in g.point_error(value), (expected, value)
    assert "not a canonical" in g.point_error(b"\xff" * 32)
    for u in g.LOW_ORDER:
        assert "low-order" in g.point_error(u.to_bytes(32, "little"))
        with pytest.raises(ValueError, match="low-order"):
            g.apply(g.S0, u.to_bytes(32, "little"))
    with pytest.raises(ValueError, match="clamped"):
        g.apply(b"\x01" * 32, c)
    with pytest.raises(ValueError, match="value 1 is not 32 bytes"):
        g.apply_all(g.S0, [c, c[:5]])
    with pytest.raises(ValueError, match="not 32 bytes"):
        g.apply(g.S0, None)
    with pytest.raises(ValueError, match="values 0 and 2 are equal"):
        check_shuffle([c] * 3, [c, BASE, c])  # a received shuffle's check: the real path
    with pytest.raises(ValueError, match="has 2 values, expected 3"):
        check_shuffle([c] * 3, [c, BASE])
    with pytest.raises(ValueError, match="not a list"):
        check_shuffle([c] * 32, c)


# ------------------------------------------------------------------ card encodings


def test_card_encodings() -> None:
    table = g.encodings()
    assert len(table) == 105 and table[0] == b""
    cards = table[1:]
    assert len(set(cards)) == 104 and bytes(32) not in cards
    pair = g.new_key_pair(stream("encodings"))
    for k, c in enumerate(cards, 1):
        assert g.point_error(c) is None
        assert g.card_table()[c] == k == card_of(c)
        # Recomputed from the definition, with Euler's criterion instead of the Jacobi symbol.
        for counter in itertools.count():
            digest = hashlib.sha512(b"p2pnimmt/sealed/card/v1" + k.to_bytes(2, "big") + counter.to_bytes(4, "big"))
            u = int.from_bytes(digest.digest(), "little") % P
            if euler_on_curve(u):
                break
        assert g.hash_to_curve(k) == (counter, u.to_bytes(32, "little"))
        assert c == g.apply(g.S0, u.to_bytes(32, "little"))
        # In the prime-order subgroup: d undoes e exactly (a torsion component would be lost).
        assert g.apply(pair.d, g.apply(pair.e, c)) == c
    assert card_of(BASE) is None and card_of("x") is None
    for bad in (0, 105, True, 1.0, "1"):
        with pytest.raises(ValueError, match="not a card"):
            g.encoding(bad)
    with pytest.raises(ValueError, match="distinct"):
        g.encode_deck([1, 2, 1])
    assert initial_deck([1, 5, 104]) == [g.encoding(k) for k in (1, 5, 104)]
    for bad in ([2, 1, 3], [1, 1, 2], [0, 1], [1, 2, 105]):
        with pytest.raises(ValueError):
            initial_deck(bad)


def test_vectors() -> None:
    v = VECTORS
    assert v["s0"] == g.S0.hex() and v["s0_tag"].encode() == g.S0_TAG and v["card_tag"].encode() == g.CARD_TAG
    for k, cv in v["card_encodings"].items():
        counter, u = g.hash_to_curve(int(k))
        assert (counter, u.hex(), g.encoding(int(k)).hex()) == (cv["counter"], cv["u"], cv["encoding"])
    kp = v["key_pair"]
    pair = g.new_key_pair(feed(*map(h, kp["draws"])))  # the first draw is rejected, the second kept
    assert (pair.e.hex(), pair.d.hex()) == (kp["e"], kp["d"])
    assert pair.e == g.clamp(h(kp["draws"][1]))
    s = v["shuffle_step"]
    step_in = [h(x) for x in s["input"]]
    assert step_in == [g.encoding(k) for k in (1, 2, 3, 4)]
    assert list(permutation(h(s["seed"]), 4)) == s["permutation"]
    assert [x.hex() for x in g.apply_all(h(s["e"]), step_in)] == s["layered"]
    out = shuffle_step(h(s["e"]), h(s["seed"]), step_in)
    assert [x.hex() for x in out] == s["output"] == [s["layered"][j] for j in s["permutation"]]
    assert open_values(h(kp["d"]), out) == [2, 3, 4, 1]


def test_the_benchmark_prints_these_vectors() -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "sealed_bench.py"
    spec = importlib.util.spec_from_file_location("sealed_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.vectors() == VECTORS


# ------------------------------------------------------------------ layout and deals


def test_layout() -> None:
    lay = Layout(3, 34)
    assert lay.dealt == 34 and list(lay.rows) == [30, 31, 32, 33]
    assert list(lay.hand(1)) == list(range(10, 20))
    assert [lay.owner(p) for p in (0, 9, 10, 29, 30, 33)] == [0, 0, 1, 2, None, None]
    assert lay.unlocked_by(1) == tuple(range(10)) + tuple(range(20, 34))
    assert lay.public((0, 2)) == tuple(range(10, 20)) + (30, 31, 32, 33)
    for bad in (-1, 34, "0", None):
        with pytest.raises(ValueError):
            lay.owner(bad)
    for bad in (-1, 3, True):
        with pytest.raises(ValueError):
            lay.hand(bad)
    for seats in ((), (1, 0), (0, 0), (0, 3)):
        with pytest.raises(ValueError):
            lay.check_seats(seats)
    for players, size in ((1, 14), (11, 104), (3, 33), (2, 105), (2, 24.0)):
        with pytest.raises(ValueError):
            Layout(players, size)


@pytest.mark.parametrize("players", [2, 5, 10])
@pytest.mark.parametrize("variant", ["standard", "tactical"])
def test_full_deal(players: int, variant: str) -> None:
    cards = deck(variant, players)
    lay = Layout(players, len(cards))
    secrets = secrets_for(range(players), f"deal/{players}/{variant}")
    record = simulate_deal(cards, players, secrets)
    order = deck_order(cards, [secrets[s].seed for s in range(players)])
    assert sorted(order) == list(cards)
    rnd = Round.deal(order, players, set(cards))
    hands = []
    for s in range(players):
        hand = open_hand(lay, s, secrets[s].key.d, record.final)
        assert hand == list(order[10 * s: 10 * s + 10]) and sorted(hand) == rnd.hands[s]
        hands += hand
        # Another seat's key opens none of s's positions.
        other = secrets[(s + 1) % players].key.d
        assert open_values(other, [record.final[p] for p in lay.hand(s)]) == [None] * 10
    rows = open_public(lay, range(players), record.final)
    assert list(rows) == list(lay.rows) and [[c] for c in sorted(rows.values())] == rnd.rows
    assert len(set(hands) | set(rows.values())) == lay.dealt and set(hands) <= set(cards)
    # The last shuffle, fully decrypted with every key, is the deck order.
    last = record.shuffles[players - 1]
    for s in range(players):
        last = g.apply_all(secrets[s].key.d, last)
    assert [card_of(x) for x in last] == list(order)
    assert audit(cards, players, range(players), record.shuffles, record.unlocks, keys_of(secrets),
                 honest_plays(lay, range(players), order)) is None


def test_determinism() -> None:
    cards = deck("standard", 4)
    a = simulate_deal(cards, 4, secrets_for(range(4), "pinned"))
    b = simulate_deal(cards, 4, secrets_for(range(4), "pinned"))
    c = simulate_deal(cards, 4, secrets_for(range(4), "other"))
    assert a == b and a.final != c.final and a.shuffles[0] != c.shuffles[0]
    assert secrets_for(range(4), "pinned")[2].key == secrets_for(range(4), "pinned")[2].key
    assert hashlib.sha256(b"".join(a.final)).hexdigest() == hashlib.sha256(b"".join(b.final)).hexdigest()


def test_a_seat_that_did_not_shuffle_has_a_public_hand() -> None:
    """A seat dropped before the deal: the others shuffle and unlock, its cards open for everyone (stand-in)."""
    cards = deck("standard", 3)
    lay = Layout(3, len(cards))
    secrets = secrets_for((0, 2), "dropped")
    record = simulate_deal(cards, 3, secrets)
    order = deck_order(cards, [secrets[0].seed, secrets[2].seed])
    public = open_public(lay, (0, 2), record.final)
    assert list(public) == list(range(10, 20)) + [30, 31, 32, 33]
    assert list(public.values()) == [order[p] for p in public]
    for s in (0, 2):
        assert open_hand(lay, s, secrets[s].key.d, record.final) == list(order[10 * s: 10 * s + 10])
    plays = honest_plays(lay, range(3), order)
    assert audit(cards, 3, (0, 2), record.shuffles, record.unlocks, keys_of(secrets), plays) is None


# ------------------------------------------------------------------ the curious peer


def curious_knowledge(pair, cards) -> dict[bytes, int]:
    """Every value the peer can link to a card: sigma * C_k for sigma in {1, e, d, e^2, d^2} (its key's powers).

    A published value v matches a card under sigma (sigma * v = C_k) exactly
    when v = sigma^-1 * C_k, which is in this set too: so membership covers
    re-encrypting known encodings and stripping its own layer off the ciphertexts.
    """
    c = [g.encoding(k) for k in cards]
    ec, dc = g.apply_all(pair.e, c), g.apply_all(pair.d, c)
    known = {}
    for values in (c, ec, dc, g.apply_all(pair.e, ec), g.apply_all(pair.d, dc)):
        known.update(zip(values, cards))
    return known


@pytest.mark.parametrize("players", [2, 5, 10])
def test_a_curious_peer_reads_its_own_hand_and_the_rows_and_nothing_else(players: int) -> None:
    cards = deck("standard", players)
    lay = Layout(players, len(cards))
    secrets = secrets_for(range(players), f"curious/{players}")
    record = simulate_deal(cards, players, secrets)
    order = deck_order(cards, [secrets[s].seed for s in range(players)])
    encoded = set(g.encoding(k) for k in cards)
    # No published value is a card encoding, except the rows after the last unlock.
    published = [(("shuffle", s, j), v) for s, out in record.shuffles.items() for j, v in enumerate(out)]
    published += [(("unlock", s, p), v) for s, out in record.unlocks.items() for p, v in zip(lay.unlocked_by(s), out)]
    last = players - 1
    plain = {where for where, v in published if v in encoded}
    assert plain == {("unlock", last, p) for p in lay.rows}
    for j in range(players):
        known = curious_knowledge(secrets[j].key, cards)
        learned = {}
        for (kind, s, at), v in published:
            if kind == "shuffle" and s == j:
                continue  # its own output: it chose the permutation, which the next seat's shuffle hides
            if v in known:
                learned[(kind, s, at)] = known[v]
        # What j may open: a value in which no layer but j's is left (its hand at the end; the rows once
        # every other seat has unlocked them, which the last seat sees one step before everyone).
        entitled = {("unlock", s, p): order[p] for s in range(players) for p in lay.unlocked_by(s)
                    if layers_left(lay, s, p) <= {j}}
        assert entitled.keys() >= {("unlock", last if j != last else last - 1, p) for p in lay.hand(j)}
        assert learned == entitled, f"seat {j} matched {set(learned) - set(entitled)}"


def layers_left(lay: Layout, seat: int, position: int) -> set[int]:
    """The seats whose layer is still on `position` once `seat` has unlocked it (every seat shuffles)."""
    owner = lay.owner(position)
    return {s for s in range(seat + 1, lay.players) if s != owner} | ({owner} if owner is not None else set())


def ratio_attack(values: list[bytes], logs: dict[int, int]) -> dict[bytes, int] | None:
    """Read a list of ciphertexts under one unknown scalar E, if the cards' discrete logs are known.

    Guess that values[0] is card a; then E*C_b = (log b / log a) * values[0]
    for every card b. If every prediction is in the list, the guess is right
    and the whole list is read. Returns the best reading if it reads more than values[0].
    """
    present = set(values)
    best: dict[bytes, int] = {}
    for _a, log_a in logs.items():
        inv = pow(log_a, -1, L)
        reading = {}
        for b, log_b in logs.items():
            y = mul(log_b * inv, values[0])
            if y in present:
                reading[y] = b
        if len(reading) > len(best):
            best = reading
    return best if len(best) > 1 else None


def test_ratios_read_a_deck_of_k_times_g_but_not_the_hashed_encodings() -> None:
    """The control: with C_k = k*G the same peer reads every card; with hash-to-curve it reads none."""
    players, cards = 2, deck("tactical", 2)
    lay = Layout(players, len(cards))
    secrets = secrets_for(range(players), "ratios")
    order = deck_order(cards, [secrets[s].seed for s in range(players)])
    naive = [mul(k, BASE) for k in cards]
    shuffles, _, _ = run_deal(naive, lay, secrets)
    reading = ratio_attack(shuffles[players - 1], {k: k for k in cards})
    assert reading is not None and [reading[x] for x in shuffles[players - 1]] == list(order)  # the whole deck
    shuffles, _, _ = run_deal(g.encode_deck(cards), lay, secrets)
    assert ratio_attack(shuffles[players - 1], {k: k for k in cards}) is None


# ------------------------------------------------------------------ the audit


@functools.cache
def audit_round():
    """A 4-player standard round: (cards, layout, secrets, order, plays) and its honest (shuffles, unlocks)."""
    players = 4
    cards = deck("standard", players)
    lay = Layout(players, len(cards))
    secrets = secrets_for(range(players), "audit")
    order = deck_order(cards, [secrets[s].seed for s in range(players)])
    shuffles, unlocks, _ = run_deal(g.encode_deck(cards), lay, secrets)
    return (cards, lay, secrets, order, honest_plays(lay, range(players), order)), (shuffles, unlocks)


@pytest.fixture
def table():
    return audit_round()[0]


def audit_with(table, shuffle_tamper=None, unlock_tamper=None, keys=None, plays=None) -> AuditFault | None:
    cards, lay, secrets, order, honest = table
    if shuffle_tamper is None and unlock_tamper is None:
        shuffles, unlocks = audit_round()[1]
    else:
        shuffles, unlocks, _ = run_deal(g.encode_deck(cards), lay, secrets, shuffle_tamper, unlock_tamper)
    return audit(cards, lay.players, range(lay.players), shuffles, unlocks,
                 keys_of(secrets) if keys is None else keys, honest if plays is None else plays)


def test_audit_passes_an_honest_round(table) -> None:
    assert audit_with(table) is None


def test_audit_catches_a_substituted_card(table) -> None:
    cards, lay, secrets, order, _ = table
    e1 = secrets[1].key.e

    def substitute(out):  # position 17's value replaced by card 55 under seat 1's own layer
        out = list(out)
        out[17] = g.apply(e1, g.encoding(55))
        return out

    fault = audit_with(table, shuffle_tamper=(1, substitute))
    assert (fault.seat, fault.step, fault.index) == (1, "shuffle", 17)
    assert "revealed key and seed" in fault.reason
    d1 = shuffle_step(secrets[0].key.e, secrets[0].seed, g.encode_deck(cards))
    check_shuffle(d1, substitute(shuffle_step(e1, secrets[1].seed, d1)))  # not seen at once: only at the audit


def test_audit_and_receipt_catch_a_duplicated_card(table) -> None:
    cards, lay, secrets, _, _ = table
    previous = shuffle_step(secrets[0].key.e, secrets[0].seed, g.encode_deck(cards))

    def duplicate(out):
        out = list(out)
        out[40] = out[3]
        return out

    with pytest.raises(ValueError, match="values 3 and 40 are equal"):
        check_shuffle(previous, duplicate(shuffle_step(secrets[1].key.e, secrets[1].seed, previous)))
    fault = audit_with(table, shuffle_tamper=(1, duplicate))
    assert (fault.seat, fault.step, fault.index) == (1, "shuffle", 40)


def test_audit_and_receipt_catch_a_dropped_card(table) -> None:
    cards, lay, secrets, _, _ = table
    d0 = g.encode_deck(cards)
    with pytest.raises(ValueError, match="has 103 values, expected 104"):
        check_shuffle(d0, shuffle_step(secrets[0].key.e, secrets[0].seed, d0)[1:])
    shuffles, unlocks, _ = run_deal(d0, lay, secrets)  # the others could not go on from a short list
    fault = audit(cards, 4, range(4), {**shuffles, 2: shuffles[2][:-1]}, unlocks, keys_of(secrets), [])
    assert (fault.seat, fault.step, fault.index) == (2, "shuffle", None) and "103 values" in fault.reason

    def swap_out(out):  # drop the card at index 60 for a point nobody can open: passes the receipt check
        out = list(out)
        out[60] = g.apply(secrets[2].key.e, BASE)
        return out

    fault = audit_with(table, shuffle_tamper=(2, swap_out))
    assert (fault.seat, fault.step, fault.index) == (2, "shuffle", 60)


def test_audit_catches_a_wrong_unlock_and_the_owner_notices(table) -> None:
    cards, lay, secrets, order, _ = table
    positions = lay.unlocked_by(2)
    at = positions.index(5)  # a position of seat 0's hand

    def keep_layer(out):  # seat 2 does not remove its layer from position 5
        out = list(out)
        out[at] = g.apply(secrets[2].key.e, out[at])
        return out

    _, _, final = run_deal(g.encode_deck(cards), lay, secrets, unlock_tamper=(2, keep_layer))
    hand = open_hand(lay, 0, secrets[0].key.d, final)
    assert hand[5] is None and hand[:5] + hand[6:] == list(order[:5] + order[6:10])
    fault = audit_with(table, unlock_tamper=(2, keep_layer))
    assert (fault.seat, fault.step, fault.index) == (2, "unlock", 5)

    def copy_row(out):  # a duplicate value is caught on receipt
        out = list(out)
        out[at] = out[positions.index(lay.rows[0])]
        return out

    current = unlock_start(lay, run_deal(g.encode_deck(cards), lay, secrets)[0][3])
    for s in (0, 1):
        current = after_unlock(lay, s, current, unlock_step(lay, s, secrets[s].key.d, current))
    with pytest.raises(ValueError, match="seat 2's unlock: positions 5 and 40 now hold the same value"):
        after_unlock(lay, 2, current, copy_row(unlock_step(lay, 2, secrets[2].key.d, current)))
    fault = audit_with(table, unlock_tamper=(3, lambda out: out[:10]))
    assert (fault.seat, fault.step, fault.index) == (3, "unlock", None)


def test_audit_catches_plays_from_positions_not_owned(table) -> None:
    cards, lay, secrets, order, honest = table
    # Seat 1 plays seat 2's card from seat 2's position.
    plays = honest[:5] + [(1, order[25], 25)] + honest[5:]
    fault = audit_with(table, plays=plays)
    assert (fault.seat, fault.step, fault.index) == (1, "play", 25) and "seat 2's" in fault.reason
    # Seat 1 claims seat 2's card came from its own position 13.
    plays = [(1, order[25], 13) if (s, p) == (1, 13) else (s, c, p) for s, c, p in honest]
    fault = audit_with(table, plays=plays)
    assert (fault.seat, fault.step, fault.index) == (1, "play", 13)
    assert fault.reason == f"played {order[25]} from position 13, which opens to {order[13]}"
    # A row position, a position played twice, a position that is not dealt.
    fault = audit_with(table, plays=[(3, order[41], 41)])
    assert (fault.seat, fault.step, fault.index) == (3, "play", 41) and "a row" in fault.reason
    fault = audit_with(table, plays=[(0, order[4], 4), (0, order[4], 4)])
    assert (fault.seat, fault.step, fault.index) == (0, "play", 4) and "twice" in fault.reason
    for position in (44, -1, "4", None):
        fault = audit_with(table, plays=[(0, order[4], position)])
        assert (fault.seat, fault.step, fault.index) == (0, "play", None)


def test_audit_catches_a_wrong_revealed_key(table) -> None:
    cards, lay, secrets, _, _ = table
    keys = keys_of(secrets)
    other = g.new_key_pair(stream("another key"))
    fault = audit_with(table, keys={**keys, 2: (other.e, keys[2][1])})
    assert (fault.seat, fault.step, fault.index) == (2, "shuffle", 0)
    fault = audit_with(table, keys={**keys, 2: (keys[2][0], bytes(32))})  # a wrong seed
    assert (fault.seat, fault.step) == (2, "shuffle")
    rejected = g.clamp(h(VECTORS["key_pair"]["draws"][0]))
    e2 = bytearray(keys[2][0])
    e2[0] |= 1
    for bad, reason in (((rejected, keys[2][1]), "no clamped inverse"), ((bytes(e2), keys[2][1]), "not a clamped"),
                        ((keys[2][0], b"seed"), "seed is not 32 bytes"), (None, "revealed no key"),
                        ((keys[2][0],), "not (e, seed)"), (b"garbage", "not (e, seed)"),
                        ((None, keys[2][1]), "not a clamped")):
        fault = audit_with(table, keys={**keys, 2: bad} if bad is not None else {s: keys[s] for s in (0, 1, 3)})
        assert (fault.seat, fault.step, fault.index) == (2, "key", None) and reason in fault.reason, (bad, fault)


def test_audit_names_the_first_cheat_and_never_an_honest_seat(table) -> None:
    cards, lay, secrets, order, honest = table

    def swap(out):  # a permutation other than the committed one
        return [out[1]] + [out[0]] + out[2:]

    fault = audit_with(table, shuffle_tamper=(1, swap), unlock_tamper=(0, lambda out: out[::-1]))
    assert (fault.seat, fault.step, fault.index) == (1, "shuffle", 0)
    fault = audit_with(table, unlock_tamper=(3, lambda out: out[::-1]),
                       plays=[(0, 1 if order[0] != 1 else 2, 0)])
    assert (fault.seat, fault.step) == (3, "unlock")


def test_audit_never_crashes_on_garbage(table) -> None:
    cards, lay, secrets, order, honest = table
    shuffles, unlocks = audit_round()[1]
    keys = keys_of(secrets)
    garbage = ["hello", b"x" * 104, None, 7, [None] * 104, [b"x"] * 104, [1] * 94, {}, shuffles[1][:3],
               [s[:31] for s in shuffles[1]], [bytes(32)] * 104, [bytes(32)] * 34, [s + b"\0" for s in shuffles[1]]]
    for junk in garbage:
        for kind in ("shuffle", "unlock"):
            # Seat 3 shuffles and unlocks last: what it sends is in the outcomes. (Seat 1's garbage of the right shape
            # under the others' honest later steps, computed from what seat 1 should have sent, would be a wrong step
            # undone within its phase: test_a_wrong_step_undone_within_its_phase_is_no_fault.)
            for seat in (1, 3):
                s_in = {**shuffles, seat: junk} if kind == "shuffle" else shuffles
                u_in = {**unlocks, seat: junk} if kind == "unlock" else unlocks
                if junk is None:
                    s_in = {s: v for s, v in s_in.items() if v is not None}
                    u_in = {s: v for s, v in u_in.items() if v is not None}
                fault = audit(cards, 4, range(4), s_in, u_in, keys, honest)
                if seat == 1 and junk == [bytes(32)] * (104 if kind == "shuffle" else 34):  # the right shape
                    assert fault is None
                    continue
                assert isinstance(fault, AuditFault) and (fault.seat, fault.step) == (seat, kind), (junk, fault)
    for junk in ("x", [1, 2], None, [b"x" * 32] * 3):
        with pytest.raises(ValueError):
            check_shuffle(shuffles[0], junk)
        with pytest.raises(ValueError):
            after_unlock(lay, 1, unlock_start(lay, shuffles[3]), junk)
    # Bad local arguments are the caller's error, not a peer's.
    with pytest.raises(ValueError):
        audit(cards, 4, (0, 5), shuffles, unlocks, keys, honest)
    with pytest.raises(ValueError):
        audit(cards, 4, (1, 0), shuffles, unlocks, keys, honest)
    with pytest.raises(ValueError):
        audit(cards[:40], 4, range(4), shuffles, unlocks, keys, honest)
    with pytest.raises(ValueError):
        audit(cards, 4, range(4), shuffles, unlocks, keys, [(9, 1, 1)])


# ------------------------------------------------------------------ the audit's outcomes first (17.7 step 0)


def test_encodings_under_a_product_of_keys_is_each_key_in_turn(monkeypatch) -> None:
    """encodings_under gives the bytes of applying every key in turn, whichever of its four ways and two signs it
    takes (forced here by refusing the first j clamped representatives it asks for)."""
    real = g.clamped_representative
    cards = [1, 2, 50, 104]
    for n in (1, 2, 3, 5):
        keys = [g.new_key_pair(stream(f"product/{n}/{i}")).e for i in range(n)]
        chained = g.encode_deck(cards)
        for e in keys:
            chained = g.apply_all(e, chained)
        for refused in range(2 * n + 5):
            asked = []

            def representative(x: int, asked=asked, refused=refused) -> bytes | None:
                asked.append(x)
                return None if len(asked) <= refused else real(x)

            monkeypatch.setattr(g, "clamped_representative", representative)
            assert g.encodings_under(keys, cards) == chained, (n, refused)
    monkeypatch.setattr(g, "clamped_representative", real)
    with pytest.raises(ValueError):
        g.encodings_under([bytes(32)], cards)
    with pytest.raises(ValueError):
        g.encodings_under(keys, [105])


def test_a_product_of_keys_has_a_clamped_representative_up_to_sign() -> None:
    """X25519 gives u-coordinates, so -E does what E does: with the sign, every product of keys drawn here has a
    clamped representative (one pass over the deck in the audit); without it about half. The residues with neither
    are the 2 delta + 1 whose r = (n - 2^254) / 8 mod l lies in [2^251, 2^251 + 2 delta] (delta = l - 2^252)."""
    draw = stream("signs")
    plain = 0
    for _ in range(400):
        product = 1
        for _ in range(10):
            product = product * int.from_bytes(g.new_key_pair(draw).e, "little") % g.L
        assert g._clamped_up_to_sign(product) is not None
        plain += g.clamped_representative(product) is not None
    assert 140 < plain < 260
    delta = g.L - 2**252
    for r in (2**251, 2**251 + delta, 2**251 + 2 * delta):
        assert g._clamped_up_to_sign((2**254 + 8 * r) % g.L) is None
    for r in (2**251 - 1, 2**251 + 2 * delta + 1):
        assert g._clamped_up_to_sign((2**254 + 8 * r) % g.L) is not None


def test_an_honest_audit_checks_outcomes_in_about_two_passes(table) -> None:
    """An honest 4-seat deal: `outcomes` gives the deck order and `steps` agrees, and the audit applies about 2N
    X25519 (N = 104), not one per published value (4 * 104 + 4 * 34)."""
    cards, lay, secrets, order, honest = table
    shuffles, unlocks = audit_round()[1]
    keys = keys_of(secrets)
    assert outcomes(cards, lay, range(4), shuffles, unlocks, keys) == order == steps(cards, lay, range(4), shuffles,
                                                                                      unlocks, keys)
    count = []
    real = g.crypto_scalarmult

    def counting(k: bytes, x: bytes) -> bytes:
        count.append(1)
        return real(k, x)

    memo, g.layers_memo = g.layers_memo, False
    try:
        g.crypto_scalarmult = counting
        assert audit_with(table) is None
    finally:
        g.crypto_scalarmult, g.layers_memo = real, memo
    assert len(count) <= 2 * len(cards) + lay.dealt - 4, len(count)


def test_a_wrong_step_undone_within_its_phase_is_no_fault(table) -> None:
    """17.7 step 0: seat 1 swaps two values of its shuffle and seat 2, knowing it, swaps them back in its own
    output; seat 0 swaps two values of its unlock and seat 1 swaps them back. The outcomes are an honest deal's,
    so the audit finds nothing (only seats that act together can do this, and they gain nothing they could not
    learn by telling each other their secrets); recomputing every step would name seat 1, then seat 0."""
    cards, lay, secrets, order, honest = table
    d0 = g.encode_deck(cards)
    d1 = shuffle_step(secrets[0].key.e, secrets[0].seed, d0)
    d2 = shuffle_step(secrets[1].key.e, secrets[1].seed, d1)
    bad2 = [d2[1], d2[0], *d2[2:]]
    pi = permutation(secrets[2].seed, len(cards))
    d3 = g.apply_all(secrets[2].key.e, [bad2[j] for j in pi])
    i, j = pi.index(0), pi.index(1)  # where seat 2's permutation put the two swapped values
    d3[i], d3[j] = d3[j], d3[i]
    assert d3 == shuffle_step(secrets[2].key.e, secrets[2].seed, d2)
    shuffles = {0: d1, 1: bad2, 2: d3, 3: audit_round()[1][0][3]}
    unlocks = dict(audit_round()[1][1])
    p, q = lay.unlocked_by(0).index(20), lay.unlocked_by(0).index(21)  # two positions of seat 2's hand
    u0 = list(unlocks[0])
    u0[p], u0[q] = u0[q], u0[p]
    current = unlock_start(lay, shuffles[3])
    for pos, v in zip(lay.unlocked_by(0), u0):
        current[pos] = v
    u1 = unlock_step(lay, 1, secrets[1].key.d, current)
    p1, q1 = lay.unlocked_by(1).index(20), lay.unlocked_by(1).index(21)
    u1[p1], u1[q1] = u1[q1], u1[p1]
    assert u1 == unlocks[1]
    unlocks = {**unlocks, 0: u0}
    keys = keys_of(secrets)
    assert audit(cards, 4, range(4), shuffles, unlocks, keys, honest) is None
    assert outcomes(cards, lay, range(4), shuffles, unlocks, keys) == order
    fault = steps(cards, lay, range(4), shuffles, unlocks, keys)
    assert (fault.seat, fault.step, fault.index) == (1, "shuffle", 0)
    fault = steps(cards, lay, range(4), {**shuffles, 1: d2, 2: audit_round()[1][0][2]}, unlocks, keys)
    assert (fault.seat, fault.step, fault.index) == (0, "unlock", 20)
    # Without seat 2's help the swap shows in the outcome, and the steps name seat 1.
    fault = audit_with(table, shuffle_tamper=(1, lambda out: [out[1], out[0], *out[2:]]))
    assert (fault.seat, fault.step, fault.index) == (1, "shuffle", 0)


def test_a_round_nobody_shuffles_has_nothing_to_audit() -> None:
    """Every seat dropped at or before its shuffle, or forfeited (protocol.md 17.5, k = 0): D_0 is the deal and the
    audit checks nothing (session 39's differential fuzzer: `audit` refused the empty list of seats as a bad local
    argument, so verify threw on a sealed game whose every seat was expelled in round 1)."""
    cards = deck("standard", 2)
    assert audit(cards, 2, (), {}, {}, {}, []) is None

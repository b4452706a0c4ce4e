"""protocol.md section 17: the sealed deal's vectors, checked against the code and against a re-implementation.

The vectors are read from the fenced blocks labelled ```json sealed-…``` in
protocol.md (found the way tests/engine/test_protocol_vectors.py finds
its blocks). Each is checked twice: against p2pnimmt (sealed_group.py,
sealed.py, sealed_deal.py, commitments.py), and against the `ref_*`
functions below, written from the prose of protocol.md alone: the
hash-to-curve, the on-curve test (Euler's criterion), clamping, the key
pair's rejection method, the section 3.1 shuffle, a Montgomery-ladder
X25519 (RFC 7748) in Python integers, the layout, the unlock and the
commitments with a hand-built msgpack context. Where the ladder would be
slow (whole decks) the X25519 comes from `cryptography`, itself checked
against the ladder.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from sealed_support import card_of, deck_order, simulate_deal
from specblocks import PROTOCOL, json_blocks

from p2pnimmt.engine import deck
from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.commitments import commitment
from p2pnimmt.protocol.messages import FIELDS, OPTIONAL, BodyError, check_body
from p2pnimmt.protocol.sealed import (
    Layout,
    RoundSecrets,
    audit,
    check_shuffle,
    initial_deck,
    open_hand,
    open_public,
    open_values,
    permutation,
    shuffle_step,
)
from p2pnimmt.protocol.sealed_deal import key_value, sealed_value

ROOT = Path(__file__).resolve().parents[2]
DOC = PROTOCOL.read_text(encoding="utf-8")
BLOCKS = json_blocks(DOC)
ENC = BLOCKS["sealed-encodings"]
KEY = BLOCKS["sealed-key-pair"]
STEP = BLOCKS["sealed-shuffle-step"]
DEAL = BLOCKS["sealed-deal"]
COMMITS = BLOCKS["sealed-commitments"]
EIGHTFOLDS = BLOCKS["sealed-eightfolds"]
AUDITS = BLOCKS["sealed-audits"]
h = bytes.fromhex


def digest(values) -> str:
    return hashlib.sha256(b"".join(values)).hexdigest()


# --------------------------------------------------------------------------- the reference, from the prose of 17

REF_P = 2**255 - 19
REF_A = 486662
REF_L = 2**252 + 27742317777372353535851937790883648493
REF_LOW_ORDER = {
    0,
    1,
    REF_P - 1,
    325606250916557431795983626356110631294008115727848805560023387167927233504,
    39382357235489614581723060781553021112529911719440698176882885853963445705823,
}


def ref_clamp(b: bytes) -> bytes:
    """Byte 0: bits 0, 1, 2 clear; byte 31: bit 7 clear, bit 6 set."""
    assert len(b) == 32
    out = bytearray(b)
    out[0] &= 0b11111000
    out[31] &= 0b01111111
    out[31] |= 0b01000000
    return bytes(out)


def ref_on_curve(u: int) -> bool:
    """u^3 + A u^2 + u is a non-zero square mod p (Euler's criterion)."""
    f = (u * u * u + REF_A * u * u + u) % REF_P
    return f != 0 and pow(f, (REF_P - 1) // 2, REF_P) == 1


def ref_valid_point(b: bytes) -> bool:
    if len(b) != 32:
        return False
    u = int.from_bytes(b, "little")
    return u < REF_P and u not in REF_LOW_ORDER and ref_on_curve(u)


def ref_x25519(k: bytes, u: bytes) -> bytes:
    """RFC 7748 section 5: decodeScalar25519, decodeUCoordinate, the Montgomery ladder, encodeUCoordinate."""
    scalar = int.from_bytes(ref_clamp(k), "little")
    x1 = int.from_bytes(u, "little") & ((1 << 255) - 1)
    x2, z2, x3, z3, swap = 1, 0, x1, 1, 0
    for t in reversed(range(255)):
        bit = (scalar >> t) & 1
        swap ^= bit
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b = x2 + z2, x2 - z2
        aa, bb = a * a % REF_P, b * b % REF_P
        e = (aa - bb) % REF_P
        c, d = x3 + z3, x3 - z3
        da, cb = d * a % REF_P, c * b % REF_P
        x3, z3 = (da + cb) ** 2 % REF_P, x1 * (da - cb) ** 2 % REF_P
        x2, z2 = aa * bb % REF_P, e * (aa + 121665 * e) % REF_P
    if swap:
        x2, z2 = x3, z3
    return (x2 * pow(z2, REF_P - 2, REF_P) % REF_P).to_bytes(32, "little")


def lib_x25519(k: bytes, u: bytes) -> bytes:
    return X25519PrivateKey.from_private_bytes(k).exchange(X25519PublicKey.from_public_bytes(u))


REF_S0 = ref_clamp(hashlib.sha256("p2pnimmt/sealed/s0/v1".encode("ascii")).digest())


def ref_candidates(card: int):
    """(counter, u) for counter = 0, 1, 2, ...: u = SHA-512(tag || u16(card) || u32(counter)) as LE int mod p."""
    counter = 0
    while True:
        digest_ = hashlib.sha512("p2pnimmt/sealed/card/v1".encode("ascii") + card.to_bytes(2, "big")
                                 + counter.to_bytes(4, "big")).digest()
        yield counter, int.from_bytes(digest_, "little") % REF_P
        counter += 1


def ref_hash_to_curve(card: int) -> tuple[int, bytes]:
    for counter, u in ref_candidates(card):
        if ref_on_curve(u) and u not in REF_LOW_ORDER:
            return counter, u.to_bytes(32, "little")
    raise AssertionError("unreachable")


def ref_encoding(card: int, x25519=lib_x25519) -> bytes:
    return x25519(REF_S0, ref_hash_to_curve(card)[1])


def ref_inverse(e: bytes) -> bytes | None:
    """Steps 2-4 of 17.3: the clamped d with d*e = 1 mod l, or None (draw again)."""
    x = pow(int.from_bytes(e, "little"), -1, REF_L)
    t = (x - 2**254) * pow(8, -1, REF_L) % REF_L
    return (2**254 + 8 * t).to_bytes(32, "little") if t < 2**251 else None


def ref_key_pair(draws):
    for b in draws:
        e = ref_clamp(b)
        d = ref_inverse(e)
        if d is not None:
            return e, d
    raise AssertionError("no usable draw")


def ref_shuffle(seed: bytes, items: list) -> list:
    """Section 3.1: SHA-256(TAG || seed || u64 counter) words, rejection sampling, Fisher-Yates from the top."""
    def words():
        counter = 0
        while True:
            block = hashlib.sha256(b"p2pnimmt/shuffle/v1" + seed + counter.to_bytes(8, "big")).digest()
            for k in range(0, 32, 4):
                yield int.from_bytes(block[k:k + 4], "big")
            counter += 1

    stream = words()
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        m = i + 1
        limit = 2**32 - 2**32 % m
        while (x := next(stream)) >= limit:
            pass
        j = x % m
        items[i], items[j] = items[j], items[i]
    return items


def ref_shuffle_step(e: bytes, seed: bytes, previous: list[bytes], x25519=lib_x25519) -> list[bytes]:
    pi = ref_shuffle(seed, list(range(len(previous))))
    return [x25519(e, previous[pi[j]]) for j in range(len(previous))]


def ref_hand(players: int, seat: int) -> list[int]:
    return list(range(10 * seat, 10 * seat + 10))


def ref_unlock_positions(players: int, seat: int) -> list[int]:
    return [p for p in range(10 * players + 4) if p not in ref_hand(players, seat)]


def ref_msgpack_context(purpose: str, game: bytes, round_: int, turn: int, seat: int) -> bytes:
    """msgpack [str, bin(16), int, int, int] for small values: fixarray, fixstr, bin 8, positive fixints."""
    assert len(purpose) < 32 and len(game) == 16 and all(0 <= x < 128 for x in (round_, turn, seat))
    return (bytes([0x95, 0xA0 | len(purpose)]) + purpose.encode() + bytes([0xC4, len(game)]) + game
            + bytes([round_, turn, seat]))


def ref_commitment(purpose: str, game: bytes, round_: int, turn: int, seat: int, value: bytes, nonce: bytes) -> bytes:
    context = ref_msgpack_context(purpose, game, round_, turn, seat)
    return hashlib.sha256(b"p2pnimmt/commit/v1" + len(context).to_bytes(2, "big") + context
                          + len(value).to_bytes(2, "big") + value + nonce).digest()


# --------------------------------------------------------------------------- the blocks and the prose


def test_the_blocks_are_there_and_named_once() -> None:
    assert {"sealed-encodings", "sealed-key-pair", "sealed-shuffle-step", "sealed-deal",
            "sealed-commitments", "sealed-arrivals", "sealed-unlocks", "sealed-audits"} <= set(BLOCKS)
    assert "## 17. Sealed deal" in DOC


def test_the_arrival_checks_of_a_shuffle() -> None:
    """17.5's `sealed-arrivals`: each deck taken or refused by check_shuffle in the words given (the first index at
    fault, its own problem or an equal earlier value; twins only once every value is valid and none equal)."""
    block = BLOCKS["sealed-arrivals"]
    refused = set()
    for case in block["cases"]:
        values = [h(v) for v in case["values"]]
        if case["refusal"] is None:
            assert check_shuffle([b""] * block["size"], values) == values, case["why"]
            continue
        with pytest.raises(ValueError) as exc:
            check_shuffle([b""] * block["size"], values)
        assert str(exc.value) == case["refusal"], case["why"]
        refused.add(case["refusal"].split(" ", 3)[-1].split(" ", 1)[-1])
    assert any("canonical" in r for r in refused) and any("low-order" in r for r in refused)
    assert any("equal" in r for r in refused) and any("small-order" in r for r in refused)


def test_the_arrival_checks_of_an_unlock() -> None:
    """17.5's `sealed-unlocks`: each unlock refused in the words given, or taken with the deal broken (or not) as
    given; card numbers stand for their encodings, 0 for u = 0 and -1 for card 1's twin 1/u."""
    from p2pnimmt.protocol.sealed import take_unlock

    block = BLOCKS["sealed-unlocks"]
    twin = h(EIGHTFOLDS["twins"][3])

    def value(k: int) -> bytes:
        return bytes(32) if k == 0 else twin if k == -1 else g.encoding(k)

    layout = Layout(block["players"], 10 * block["players"] + 4)  # tactical: N = M
    for case in block["cases"]:
        current, values = [value(k) for k in case["current"]], [value(k) for k in case["values"]]
        if case["refusal"] is not None:
            with pytest.raises(ValueError) as exc:
                take_unlock(layout, case["seat"], current, None, values)
            assert str(exc.value) == case["refusal"], case["why"]
            continue
        taken = take_unlock(layout, case["seat"], current, None, values)
        assert (taken.broken or None) == case["broken"], case["why"]
    assert any(c["broken"] for c in block["cases"]) and any(c["refusal"] for c in block["cases"])


def test_the_prose_names_the_constants_of_the_code() -> None:
    assert g.P == REF_P and g.A == REF_A and g.L == REF_L and g.LOW_ORDER == REF_LOW_ORDER
    for n in REF_LOW_ORDER - {0, 1, REF_P - 1}:
        assert str(n) in DOC
    assert "2^252 + 27742317777372353535851937790883648493" in DOC
    assert "486662" in DOC and "2^255 − 19" in DOC
    for tag, size, words in ((g.S0_TAG, 21, "the 21 ASCII bytes"), (g.CARD_TAG, 23, "the 23-byte ASCII")):
        assert f'"{tag.decode()}"' in DOC and len(tag) == size and words in " ".join(DOC.split())
    for code in ("sealed-shuffle", "sealed-unlock", "sealed-key", "sealed-play", "sealed-false-alarm",
                 "sealed-audit"):
        assert f"| `{code}` |" in DOC, code


def test_the_message_fields_are_those_of_the_table() -> None:
    assert set(FIELDS["SEALED_SHUFFLE"]) == {"round", "deck", "commit"}
    assert set(FIELDS["SEALED_UNLOCK"]) == {"round", "values"}
    assert set(FIELDS["SEALED_KEYS"]) == {"round", "key", "seed", "nonce", "alarm"}
    assert set(OPTIONAL["PLAY_REVEAL"]) == {"position", "auto"}  # auto: section 11.2
    for kind in ("SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS"):
        assert f"| `{kind}` |" in DOC
    point = bytes(32)
    check_body("SEALED_UNLOCK", {"round": 0, "values": [point] * 104})
    for bad in ([], [point] * 105, [point[:31]]):
        with pytest.raises(BodyError):
            check_body("SEALED_UNLOCK", {"round": 0, "values": bad})
    reveal = {"round": 0, "turn": 0, "card": 5, "nonce": bytes(32), "commits": bytes(32)}
    check_body("PLAY_REVEAL", reveal)
    check_body("PLAY_REVEAL", {**reveal, "position": 103})
    with pytest.raises(BodyError):
        check_body("PLAY_REVEAL", {**reveal, "position": 104})


# --------------------------------------------------------------------------- 17.1, 17.2: group and encodings


def test_the_reference_ladder_is_x25519() -> None:
    for k in (1, 2, 55, 104):
        u = ref_hash_to_curve(k)[1]
        assert ref_x25519(g.S0, u) == lib_x25519(g.S0, u) == g.apply(g.S0, u)
    assert ref_x25519(h(KEY["e"]), h(STEP["output"][0])) == lib_x25519(h(KEY["e"]), h(STEP["output"][0]))


def test_s0_and_clamping() -> None:
    assert ENC["s0_tag"].encode() == g.S0_TAG and ENC["card_tag"].encode() == g.CARD_TAG
    assert REF_S0.hex() == g.S0.hex() == ENC["s0"]
    n = int.from_bytes(REF_S0, "little")
    assert n % 8 == 0 and 2**254 <= n < 2**255
    for b in (bytes(32), b"\xff" * 32, bytes(range(32))):
        assert ref_clamp(b) == g.clamp(b) and g.is_clamped(ref_clamp(b))


@pytest.mark.parametrize("card", sorted(ENC["cards"], key=int))
def test_card_encoding(card: str) -> None:
    v = ENC["cards"][card]
    k = int(card)
    counter, u = g.hash_to_curve(k)
    assert (counter, u.hex()) == (v["counter"], v["u"])
    assert g.encoding(k).hex() == v["encoding"]
    # From the prose: every earlier counter gives a u off the curve (or low-order), this one a u on it.
    ref_counter, ref_u = ref_hash_to_curve(k)
    assert (ref_counter, ref_u.hex()) == (v["counter"], v["u"])
    for c, cand in ref_candidates(k):
        if c == ref_counter:
            assert cand == int.from_bytes(ref_u, "little") and ref_on_curve(cand)
            break
        assert not ref_on_curve(cand) or cand in REF_LOW_ORDER
        assert not g.on_curve(cand) or cand in g.LOW_ORDER
    assert ref_x25519(REF_S0, ref_u).hex() == v["encoding"]
    assert ref_valid_point(h(v["encoding"])) and g.point_error(h(v["encoding"])) is None
    assert card_of(h(v["encoding"])) == k


def test_all_encodings() -> None:
    assert digest(g.encodings()[1:]) == ENC["all_digest"]
    ref = [ref_encoding(k) for k in range(1, 105)]
    assert digest(ref) == ENC["all_digest"]
    assert len(set(ref)) == 104 and bytes(32) not in ref and all(ref_valid_point(c) for c in ref)


def test_on_curve_agrees_with_euler() -> None:
    for k in range(1, 30):
        for _c, u in zip(range(6), ref_candidates(k)):
            assert g.on_curve(u[1]) == ref_on_curve(u[1])
    assert not any(ref_valid_point(x.to_bytes(32, "little")) for x in REF_LOW_ORDER)
    assert not ref_valid_point(REF_P.to_bytes(32, "little"))


# --------------------------------------------------------------------------- 17.3: key pairs


def test_key_pair_by_the_rejection_method() -> None:
    draws = [h(x) for x in KEY["draws"]]
    assert ref_inverse(ref_clamp(draws[0])) is None  # the first draw is rejected
    e, d = ref_key_pair(draws)
    assert (e.hex(), d.hex()) == (KEY["e"], KEY["d"])
    queue = list(draws)
    pair = g.new_key_pair(lambda n: queue.pop(0))
    assert (pair.e.hex(), pair.d.hex()) == (KEY["e"], KEY["d"]) and not queue
    assert g.key_pair_from(h(KEY["e"])).d.hex() == KEY["d"]
    with pytest.raises(ValueError, match="no clamped inverse"):
        g.key_pair_from(ref_clamp(draws[0]))
    ei, di = int.from_bytes(e, "little"), int.from_bytes(d, "little")
    assert ei * di % REF_L == 1 and g.is_clamped(e) and g.is_clamped(d)
    c = h(ENC["cards"]["55"]["encoding"])
    assert ref_x25519(d, ref_x25519(e, c)) == c == g.apply(pair.d, g.apply(pair.e, c))


# --------------------------------------------------------------------------- 17.4: one shuffle step


def test_shuffle_step() -> None:
    e, seed = h(STEP["e"]), h(STEP["seed"])
    d0 = [h(ENC["cards"][str(k)]["encoding"]) for k in STEP["cards"]]
    assert d0 == initial_deck(STEP["cards"])
    assert list(permutation(seed, len(d0))) == STEP["permutation"] == ref_shuffle(seed, list(range(len(d0))))
    assert [x.hex() for x in shuffle_step(e, seed, d0)] == STEP["output"]
    assert [x.hex() for x in ref_shuffle_step(e, seed, d0, ref_x25519)] == STEP["output"]
    # The key's inverse opens the output to the cards, moved as the permutation says.
    assert open_values(h(KEY["d"]), [h(x) for x in STEP["output"]]) == [STEP["cards"][j] for j in STEP["permutation"]]


# --------------------------------------------------------------------------- 17.5: a whole deal


def test_the_deal_vector_with_the_code() -> None:
    v = DEAL
    cards = list(deck(v["variant"], v["players"]))
    assert cards == v["cards"]
    layout = Layout(v["players"], len(cards))
    secrets = {i: RoundSecrets(g.key_pair_from(h(s["e"])), h(s["seed"])) for i, s in enumerate(v["seats"])}
    assert [secrets[i].key.d.hex() for i in secrets] == [s["d"] for s in v["seats"]]
    assert digest(initial_deck(cards)) == v["d0_digest"]
    record = simulate_deal(cards, v["players"], secrets)
    for i, want in enumerate(v["shuffles"]):
        assert list(permutation(secrets[i].seed, len(cards))) == want["permutation"]
        assert (record.shuffles[i][0].hex(), digest(record.shuffles[i])) == (want["first"], want["digest"])
    for i, want in enumerate(v["unlocks"]):
        assert list(layout.unlocked_by(i)) == want["positions"]
        assert (record.unlocks[i][0].hex(), digest(record.unlocks[i])) == (want["first"], want["digest"])
    assert digest(record.final) == v["final_digest"]
    assert list(deck_order(cards, [secrets[i].seed for i in sorted(secrets)])) == v["order"]
    assert [open_hand(layout, i, secrets[i].key.d, record.final) for i in sorted(secrets)] == v["hands"]
    public = open_public(layout, tuple(sorted(secrets)), record.final)
    assert [public[p] for p in layout.rows] == v["rows"]
    plays = [(s, v["order"][p], p) for t in range(10) for s in (0, 1) for p in (10 * s + t,)]
    keys = {i: (secrets[i].key.e, secrets[i].seed) for i in secrets}
    assert audit(cards, v["players"], (0, 1), record.shuffles, record.unlocks, keys, plays) is None


def test_the_deal_vector_from_the_prose() -> None:
    v = DEAL
    n, cards = v["players"], v["cards"]
    m = 10 * n + 4
    previous = [ref_encoding(k) for k in cards]
    assert digest(previous) == v["d0_digest"]
    order = list(cards)
    for s, want in zip(v["seats"], v["shuffles"]):
        e, seed = h(s["e"]), h(s["seed"])
        assert ref_inverse(e).hex() == s["d"]
        pi = ref_shuffle(seed, list(range(len(previous))))
        assert pi == want["permutation"]
        previous = ref_shuffle_step(e, seed, previous)
        assert all(ref_valid_point(x) for x in previous) and len(set(previous)) == len(previous)
        assert (previous[0].hex(), digest(previous)) == (want["first"], want["digest"])
        order = [order[j] for j in pi]
    assert order == v["order"]
    current = previous[:m]
    for seat, (s, want) in enumerate(zip(v["seats"], v["unlocks"])):
        positions = ref_unlock_positions(n, seat)
        assert positions == want["positions"] and len(positions) == m - 10
        values = [lib_x25519(h(s["d"]), current[p]) for p in positions]
        assert (values[0].hex(), digest(values)) == (want["first"], want["digest"])
        for p, x in zip(positions, values):
            current[p] = x
        assert len(set(current)) == m
    assert digest(current) == v["final_digest"]
    table = {ref_encoding(k): k for k in cards}
    rows = [table[current[p]] for p in range(10 * n, m)]  # row positions hold public encodings
    assert rows == v["rows"] == order[10 * n:m]
    for seat, s in enumerate(v["seats"]):
        hand = [current[p] for p in ref_hand(n, seat)]
        assert not any(x in table for x in hand)  # still under the owner's layer
        assert [table[lib_x25519(h(s["d"]), x)] for x in hand] == v["hands"][seat] == order[10 * seat:10 * seat + 10]
    # The tables of 3.2: the rows start sorted; hands are sets.
    assert sorted(v["rows"]) == [5, 6, 9, 10]


def test_the_vectors_agree_with_each_other_and_with_the_benchmark() -> None:
    assert DEAL["seats"][0]["e"] == KEY["e"] == STEP["e"] and DEAL["seats"][0]["seed"] == STEP["seed"]
    # Seat 0's hand position 0 holds card 2 under seat 0's key alone: the same value as in the small step.
    assert DEAL["order"][0] == 2 and DEAL["unlocks"][1]["first"] == STEP["output"][0]
    path = ROOT / "benchmarks" / "sealed_bench.py"
    spec = importlib.util.spec_from_file_location("sealed_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    printed = bench.vectors()
    assert printed["s0"] == ENC["s0"] and printed["key_pair"]["draws"] == KEY["draws"]
    assert (printed["key_pair"]["e"], printed["key_pair"]["d"]) == (KEY["e"], KEY["d"])
    assert printed["shuffle_step"]["output"] == STEP["output"]
    assert printed["shuffle_step"]["permutation"] == STEP["permutation"]
    for k, v in printed["card_encodings"].items():
        assert ENC["cards"].get(k, v) == v


# --------------------------------------------------------------------------- 17.6: commitments


def test_sealed_commitment() -> None:
    v = COMMITS["sealed"]
    game, nonce, key, seed = h(v["game_id"]), h(v["nonce"]), h(v["key"]), h(v["seed"])
    assert encode(["sealed", game, v["round"], 0, v["seat"]]).hex() == v["context"]
    assert ref_msgpack_context("sealed", game, v["round"], 0, v["seat"]).hex() == v["context"]
    assert key_value(RoundSecrets(g.key_pair_from(key), seed)).hex() == v["value"] == (key + seed).hex()
    got = commitment("sealed", game, v["round"], 0, v["seat"], key + seed, nonce)
    assert got.hex() == v["commitment"]
    assert ref_commitment("sealed", game, v["round"], 0, v["seat"], key + seed, nonce).hex() == v["commitment"]


def test_sealed_play_commitment() -> None:
    v = COMMITS["play"]
    game, nonce = h(v["game_id"]), h(v["nonce"])
    value = sealed_value(v["card"], v["position"])
    assert value.hex() == v["value"] == bytes([v["card"], v["position"]]).hex()
    assert encode(["play", game, v["round"], v["turn"], v["seat"]]).hex() == v["context"]
    assert ref_msgpack_context("play", game, v["round"], v["turn"], v["seat"]).hex() == v["context"]
    got = commitment("play", game, v["round"], v["turn"], v["seat"], value, nonce)
    assert got.hex() == v["commitment"]
    assert ref_commitment("play", game, v["round"], v["turn"], v["seat"], value, nonce).hex() == v["commitment"]
    # The open deal's commitment of the same card (section 16) differs: the position is bound too.
    assert got != commitment("play", game, v["round"], v["turn"], v["seat"], bytes([v["card"]]), nonce)
    assert got != commitment("play", game, v["round"], v["turn"], v["seat"], sealed_value(v["card"], 18), nonce)


def test_sealed_eightfolds():
    """17.1's eightfolds: card 1's encoding and its seven twins (P + kT, T of order 8) share one, each a valid value
    that X(S0, .) maps where it maps the encoding; the twist's u = 12 and 1/u share theirs; the list check names
    the first twin (section 8's words)."""
    v = EIGHTFOLDS
    value, twins = h(v["value"]), [h(t) for t in v["twins"]]
    assert v["value"] == ENC["cards"]["1"]["encoding"] and len(set(twins)) == 7 and value not in twins
    assert h(v["twins"][3]) == pow(int.from_bytes(value, "little"), REF_P - 2, REF_P).to_bytes(32, "little")
    folds = g.eightfolds([value, *twins])
    assert folds == [int.from_bytes(h(v["eightfold"]), "little")] * 8
    for twin in twins:
        assert ref_valid_point(twin) and ref_x25519(REF_S0, twin) == ref_x25519(REF_S0, value)
    twist = v["twist"]
    assert g.eightfolds([h(twist["value"]), h(twist["twin"])]) == [int.from_bytes(h(twist["eightfold"]), "little")] * 2
    assert not ref_on_curve(12) and int.from_bytes(h(twist["value"]), "little") == 12
    with pytest.raises(ValueError, match="^shuffle output: values 0 and 2 differ by a small-order point$"):
        check_shuffle([value] * 3, [value, h(ENC["cards"]["2"]["encoding"]), twins[5]])  # a received shuffle's check


# --------------------------------------------------------------------------- the audit (17.7)


def audit_case(case: dict) -> tuple[dict, dict, dict, dict, list]:
    """The published messages of `sealed-audits` case: shuffles, unlocks, keys (e, seed, nonce) and commits by seat,
    and the plays; the deal of `sealed-deal`, each change made and every later step made honestly on top of it."""
    seats = [0, 1]
    layout = Layout(DEAL["players"], len(DEAL["cards"]))
    secrets = {s: (h(x["e"]), h(x["d"]), h(x["seed"])) for s, x in enumerate(DEAL["seats"])}
    change = {k: case[k] for k in ("shuffle_swap", "shuffle_inverse", "unlock_keep") if k in case}
    shuffles, previous = {}, initial_deck(DEAL["cards"])
    for s in seats:
        out = shuffle_step(secrets[s][0], secrets[s][2], previous)
        if change.get("shuffle_swap", [None])[0] == s:
            _, i, j = change["shuffle_swap"]
            out[i], out[j] = out[j], out[i]
        if change.get("shuffle_inverse", [None])[0] == s:
            i = change["shuffle_inverse"][1]
            out[i] = pow(int.from_bytes(out[i], "little"), g.P - 2, g.P).to_bytes(32, "little")
        shuffles[s] = previous = out
    unlocks, current = {}, list(previous[: layout.dealt])
    for s in seats:
        positions = layout.unlocked_by(s)
        values = [g.apply(secrets[s][1], current[p]) for p in positions]
        if change.get("unlock_keep", [None])[0] == s:
            p = change["unlock_keep"][1]
            values[positions.index(p)] = current[p]
        for p, v in zip(positions, values):
            current[p] = v
        unlocks[s] = values
    keys, commits = {}, {}
    for s in seats:
        e, seed, nonce = secrets[s][0], secrets[s][2], h(AUDITS["nonces"][s])
        committed = e + seed
        for field in ("key", "seed"):
            for seat, value, recommit in case.get(field, []):
                if seat == s:
                    e, seed = (h(value), seed) if field == "key" else (e, h(value))
                    if recommit:
                        committed = e + seed
        keys[s] = (e, seed, nonce)
        commits[s] = commitment("sealed", h(AUDITS["game_id"]), AUDITS["round"], 0, s, committed, nonce)
    return shuffles, unlocks, keys, commits, [tuple(p) for p in case.get("plays", [])]


def audit_verdict(case: dict) -> dict | None:
    """17.7's verdict: the keys against the commitments (step 1), then the audit (step 2)."""
    shuffles, unlocks, keys, commits, plays = audit_case(case)
    for s in sorted(keys):
        e, seed, nonce = keys[s]
        if commitment("sealed", h(AUDITS["game_id"]), AUDITS["round"], 0, s, e + seed, nonce) != commits[s]:
            return {"seat": s, "code": "sealed-key", "words": "revealed a key that does not match its commitment"}
    fault = audit(DEAL["cards"], DEAL["players"], sorted(keys), shuffles, unlocks,
                  {s: (e, seed) for s, (e, seed, _n) in keys.items()}, plays)
    return None if fault is None else {"seat": fault.seat, "code": f"sealed-{fault.step}", "words": fault.reason}


@pytest.mark.parametrize("case", AUDITS["cases"], ids=[c["why"] for c in AUDITS["cases"]])
def test_the_audit_names_the_seat_of_each_case_in_the_words_given(case: dict) -> None:
    """17.7's `sealed-audits`: the keys against their commitments first, then the outcomes, every step recomputed
    (each seat's key, then its shuffle, seat by seat; then the unlocks) and the plays: the verdict given."""
    assert audit_verdict(case) == case["verdict"]


def test_the_audit_vector_covers_each_verdict() -> None:
    verdicts = [c["verdict"] for c in AUDITS["cases"]]
    assert None in verdicts
    assert {v["code"] for v in verdicts if v} == {"sealed-key", "sealed-shuffle", "sealed-unlock", "sealed-play"}

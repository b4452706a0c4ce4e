"""The seat key's vectors (protocol.md 14, "The seat key", read from it) and how a typed code with its key is read."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from p2pnimmt.protocol.gamecode import CODE_ALPHABET, game_code
from p2pnimmt.protocol.seatkey import (
    LINK_SECRET_SIZE,
    join_proof,
    link_proof,
    link_proof_holds,
    new_link_secret,
    new_seat_key,
    plain,
    proof_holds,
    read_link_secret,
    seat_secret,
    split_join_code,
    write_link_secret,
)

SPEC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
VECTORS = json.loads(re.search(r"```json seat-vectors\n(.*?)```", SPEC, re.S).group(1))


def test_seat_vectors_of_protocol_md() -> None:
    gid = bytes.fromhex(VECTORS["game_id"])
    assert game_code(gid) == VECTORS["code"]
    k = seat_secret(gid, VECTORS["seat_key"])
    assert k.hex() == VECTORS["k"]
    args = (gid, bytes.fromhex(VECTORS["joiner_nonce"]), bytes.fromhex(VECTORS["host_nonce"]),
            bytes.fromhex(VECTORS["joiner_key"]))
    proof = join_proof(k, *args)
    assert proof.hex() == VECTORS["proof"]
    assert proof_holds(proof, k, *args)
    zero = hashlib.scrypt(bytes(16) + b"0000", salt=b"p2pnimmt/seat/v1", n=2**15, r=8, p=1, dklen=32, maxmem=2**26)
    assert zero.hex() == VECTORS["zero_k"] and zero[:4].hex() in SPEC
    for typed in VECTORS["typed"]:
        assert split_join_code(plain(typed)) == (VECTORS["code"], VECTORS["seat_key"]), typed


def test_a_proof_holds_only_for_its_own_link_and_key() -> None:
    """Another key, another game, either nonce, the joiner's key or one flipped bit: the proof does not hold."""
    gid = bytes.fromhex(VECTORS["game_id"])
    k = seat_secret(gid, VECTORS["seat_key"])
    joiner, host, key = (bytes.fromhex(VECTORS[n]) for n in ("joiner_nonce", "host_nonce", "joiner_key"))
    proof = bytes.fromhex(VECTORS["proof"])
    assert not proof_holds(proof, seat_secret(gid, "7Q2M"), gid, joiner, host, key)
    assert not proof_holds(proof, k, bytes(16), joiner, host, key)
    assert not proof_holds(proof, k, gid, host, joiner, key)  # the nonces swapped: another link
    assert not proof_holds(proof, k, gid, joiner, bytes(16), key)
    assert not proof_holds(proof, k, gid, joiner, host, bytes(32))
    assert not proof_holds(bytes([proof[0] ^ 1]) + proof[1:], k, gid, joiner, host, key)
    assert not proof_holds(proof[:31], k, gid, joiner, host, key) and not proof_holds(proof.hex(), k, gid, joiner,
                                                                                          host, key)


def test_a_new_seat_key_is_four_characters_of_the_alphabet_drawn_anew() -> None:
    keys = {new_seat_key() for _ in range(200)}
    assert all(len(k) == 4 and set(k) <= set(CODE_ALPHABET) for k in keys)
    assert len(keys) > 190  # 20 bits each: a repeat in 200 is rare (p < 0.02); many would be a broken draw


LINK_VECTORS = json.loads(re.search(r"```json link-vectors\n(.*?)```", SPEC, re.S).group(1))


def test_link_vectors_of_protocol_md() -> None:
    """The link secret (protocol.md 14, "The link secret"): how it is written and read, and a join's `link_proof`."""
    v = LINK_VECTORS
    secret = bytes.fromhex(v["link_secret"])
    assert write_link_secret(secret) == v["written"] and read_link_secret(v["written"]) == secret
    for typed in v["typed"]:
        assert read_link_secret(typed) == secret, typed
    assert write_link_secret(b"\xff" * LINK_SECRET_SIZE) == v["highest"]
    assert read_link_secret(v["highest"]) == b"\xff" * LINK_SECRET_SIZE
    args = (bytes.fromhex(v["game_id"]), bytes.fromhex(v["joiner_nonce"]), bytes.fromhex(v["host_nonce"]),
            bytes.fromhex(v["joiner_key"]))
    proved = link_proof(secret, *args)
    assert proved.hex() == v["link_proof"] and link_proof_holds(proved, secret, *args)
    assert proved.hex() != VECTORS["proof"]  # its own tag: never the seat key's proof
    gid, joiner, host, key = args
    assert not link_proof_holds(proved, bytes(16), *args)
    assert not link_proof_holds(proved, secret, gid, host, joiner, key)  # another link
    assert not link_proof_holds(bytes([proved[0] ^ 1]) + proved[1:], secret, *args)
    assert not link_proof_holds(proved[:31], secret, *args)


def test_a_link_secret_that_is_none_is_refused_with_the_reason() -> None:
    import pytest

    with pytest.raises(ValueError, match="a link secret is 26 characters, not 25"):
        read_link_secret(LINK_VECTORS["written"][:-1])
    with pytest.raises(ValueError, match="'U' is not in a link secret"):
        read_link_secret("U" + LINK_VECTORS["written"][1:])
    with pytest.raises(ValueError, match="begins with 0..7"):
        read_link_secret("8" + LINK_VECTORS["written"][1:])
    drawn = {new_link_secret() for _ in range(100)}
    assert len(drawn) == 100 and all(len(s) == LINK_SECRET_SIZE for s in drawn)

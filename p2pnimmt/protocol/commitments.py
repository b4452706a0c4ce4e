"""Hash commitments, the shared seed, the commit-set digest and the state hash (protocol.md, "Hashes")."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ..engine import Game
from .codec import encode

COMMIT_TAG = b"p2pnimmt/commit/v1"
SEED_TAG = b"p2pnimmt/seed/v1"
COMMIT_SET_TAG = b"p2pnimmt/commit-set/v1"
STATE_TAG = b"p2pnimmt/state/v1"
NONCE_SIZE = 32


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(2, "big") + data


def commitment(purpose: str, game_id: bytes, round_index: int, turn: int, seat: int, value: bytes,
               nonce: bytes) -> bytes:
    """SHA-256(COMMIT_TAG || lp(context) || lp(value) || nonce).

    context = msgpack [purpose, game, round, turn, seat].
    """
    if len(nonce) != NONCE_SIZE:
        raise ValueError(f"a commitment nonce is {NONCE_SIZE} bytes, got {len(nonce)}")
    context = encode([purpose, game_id, round_index, turn, seat])
    return hashlib.sha256(COMMIT_TAG + _lp(context) + _lp(value) + nonce).digest()


def card_value(card: int) -> bytes:
    """A card as committed: one byte."""
    return bytes([card])


def round_seed(game_id: bytes, round_index: int, contributions: Sequence[bytes]) -> bytes:
    """SHA-256(SEED_TAG || game id || round as 4 bytes big-endian || contributions in seat order)."""
    return hashlib.sha256(SEED_TAG + game_id + round_index.to_bytes(4, "big") + b"".join(contributions)).digest()


def commit_set_digest(message_hashes: Sequence[bytes]) -> bytes:
    """SHA-256(COMMIT_SET_TAG || hash of each seat's commit message, in seat order)."""
    return hashlib.sha256(COMMIT_SET_TAG + b"".join(message_hashes)).digest()


def state_hash(game: Game, round_index: int) -> bytes:
    """SHA-256(STATE_TAG || msgpack [round, turn, rows, scores, taken piles]): the public state only, never a hand."""
    rnd = game.round
    rows = [list(r) for r in rnd.rows] if rnd else []
    taken = [sorted(t) for t in rnd.taken] if rnd else []
    turn = rnd.turn if rnd else 0
    return hashlib.sha256(STATE_TAG + encode([round_index, turn, rows, list(game.scores), taken])).digest()

"""The specified deterministic shuffle: a 32-byte seed -> a deck order (protocol.md, "Shuffle").

Byte stream: SHA-256(TAG || seed || counter as 8 bytes big-endian) for
counter = 0, 1, 2, ... concatenated. Draws: 4 bytes big-endian (u32) at a
time. uniform(n): limit = 2^32 - (2^32 mod n); redraw while x >= limit;
return x mod n. Fisher-Yates: for i from len-1 down to 1, j = uniform(i+1),
swap positions i and j.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

TAG = b"p2pnimmt/shuffle/v1"
SEED_SIZE = 32
_BLOCK = struct.Struct(">8I")  # a SHA-256 block of the stream: 8 draws, 4 bytes big-endian each


class ShuffleStream:
    """Unbiased integers drawn from the SHA-256 counter-mode stream of a seed."""

    __slots__ = ("_prefix", "_counter", "_words")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != SEED_SIZE:
            raise ValueError(f"shuffle seed must be {SEED_SIZE} bytes, got {seed!r}")
        self._prefix = TAG + bytes(seed)
        self._counter = 0
        self._words: list[int] = []  # the draws of the last block not taken yet, the next one last

    def _u32(self) -> int:
        if not self._words:  # a block's 8 draws read at once, kept last first (a pop takes the next)
            block = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._words = list(_BLOCK.unpack(block))
            self._words.reverse()
        return self._words.pop()

    def uniform(self, n: int) -> int:
        """An integer in 0..n-1 with no modulo bias."""
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"uniform bound must be 1..2^32, got {n}")
        limit = (1 << 32) - ((1 << 32) % n)
        while True:
            x = self._u32()
            if x < limit:
                return x % n


def shuffle(seed: bytes, cards: Iterable[int]) -> tuple[int, ...]:
    """`cards` in the order the seed dictates (Fisher-Yates from the top, as specified)."""
    deck = list(cards)
    stream = ShuffleStream(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)

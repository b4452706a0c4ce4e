"""The game code people type (protocol.md 14, "The game code"): 4 characters drawn from the game id.

Apart from net.discovery (which advertises and looks for it) so that the screens (ui) may name a game by its code,
as the TypeScript peer's identity.ts does: a game that carries names the game it continues (ui.model)."""

from __future__ import annotations

import functools
import hashlib

# Crockford's base32: the digits and the letters without I, L, O and U, so a code never has a letter that
# reads as a digit. Typed, I and L are read as 1 and O as 0 (what a person who sees or hears the code means).
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 4
# The code is drawn from the game id through scrypt (RFC 7914) with these parameters: ~32 MiB and a tenth of a second
# or more of one core per code, so a stranger grinding salts for a game whose code is another's pays that for
# each of the ~2^20 tries (protocol.md 14, "The game code", with the figures of benchmarks/code_grind_bench.py).
CODE_SALT, CODE_N, CODE_R, CODE_P = b"p2pnimmt/code/v1", 2**15, 8, 1


@functools.lru_cache(maxsize=512)
def game_code(game_id: bytes) -> str:
    """The 4-character code people type: the first 20 bits of scrypt(game id), 5 at a time, in CODE_ALPHABET.

    Costly on purpose (CODE_N, CODE_R, CODE_P), and remembered once drawn."""
    digest = hashlib.scrypt(game_id, salt=CODE_SALT, n=CODE_N, r=CODE_R, p=CODE_P, dklen=32,
                            maxmem=2 * 128 * CODE_R * CODE_N * CODE_P)
    bits = int.from_bytes(digest[:3], "big") >> 4
    return "".join(CODE_ALPHABET[(bits >> (5 * (CODE_LENGTH - 1 - i))) & 31] for i in range(CODE_LENGTH))

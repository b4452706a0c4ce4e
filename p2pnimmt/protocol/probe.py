"""A link's probe and its signed answer (protocol.md 14, "A probe"): a phone page asks a seat it is linked to, through
its relay, what that seat holds, and the seat signs its answer with its own key, bound to the link and to the ask, so
that no relay can make one up or keep one from an earlier ask. The page judges its relay by them (web/peer/src/
page_probe.ts): a relay that passes a seat's handshake and then withholds the game is left."""

from __future__ import annotations

from typing import Any

from .codec import encode
from .identity import SIGNATURE_SIZE, Identity, verify

PROBE_TAG = b"p2pnimmt/probe/v1"
PROBE_NONCE = 16
# The answer's heads hold at most this many [peer id, count] pairs (section 7's array cap): the senders of a game.
MAX_HEADS = 256


def probe_transcript(game_id: bytes, answerer_nonce: bytes, prober_nonce: bytes, nonce: bytes, heads: bytes) -> bytes:
    """What a probe's answer signs: the tag, the game id, the link's handshake nonces (the answerer's, then the
    prober's), the probe's nonce, and the answerer's heads as the bytes it sends."""
    return PROBE_TAG + game_id + answerer_nonce + prober_nonce + nonce + heads


def probe_answer(identity: Identity, game_id: bytes, nonces: tuple[bytes, bytes], nonce: bytes,
                 heads: list[list[Any]]) -> list[bytes]:
    """The payload of a `probed` frame: [the probe's nonce, the heads (msgpack bytes), the signature]. `nonces`: the
    link's handshake nonces, ours (the answerer's) first."""
    said = encode(heads)
    return [nonce, said, identity.sign(probe_transcript(game_id, nonces[0], nonces[1], nonce, said))]


def answer_holds(key: bytes, game_id: bytes, nonces: tuple[bytes, bytes], nonce: bytes, payload: Any) -> bool:
    """Whether `payload` is a `probed` answer to our probe `nonce`, signed by `key` over this link. `nonces`: the
    link's handshake nonces, ours (the prober's) first."""
    if not (isinstance(payload, list) and len(payload) == 3 and payload[0] == nonce and isinstance(payload[1], bytes)
            and isinstance(payload[2], bytes) and len(payload[2]) == SIGNATURE_SIZE):
        return False
    return verify(key, payload[2], probe_transcript(game_id, nonces[1], nonces[0], nonce, payload[1]))

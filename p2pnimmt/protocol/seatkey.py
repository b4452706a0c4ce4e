"""The seat key (protocol.md 14, "The seat key"): what only the room sees, proven on each link to the host.

A host draws 4 characters of the code's alphabet when it starts and shows them next to the game's code
(`QM5Z-7Q2K`); a joiner (player or spectator) proves them in its `join` frame with an HMAC bound to this link's
handshake, under a key drawn from the game id and the seat key by the game code's scrypt. The host admits no join
without a proof that holds (a seat of its START excepted: it is a member already).

Apart from net/ so that the screens (ui) may read what a person typed, as gamecode is."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections import OrderedDict
from dataclasses import dataclass

from .bucket import Bucket
from .gamecode import CODE_ALPHABET, CODE_LENGTH, CODE_N, CODE_P, CODE_R

SEAT_KEY_LENGTH = 4
SEAT_SALT = b"p2pnimmt/seat/v1"
JOIN_TAG = b"p2pnimmt/join/v1"
PROOF_SIZE = 32
# The link secret (protocol.md 14, "The link secret"): 128 bits the host's links carry beside the seat key, written as
# 26 characters of the code's alphabet; a join proves it under its own tag, and such a proof is always checked.
LINK_SECRET_SIZE = 16
LINK_SECRET_LENGTH = 26
LINK_TAG = b"p2pnimmt/join-link/v1"
# A person's typing: I and L read as 1, O as 0 (as the game code is read).
_AS_TYPED = str.maketrans({"I": "1", "L": "1", "O": "0"})
# Wrong seat keys one address may try: a burst, then one each WRONG_EVERY seconds (protocol.md 14, "Bounds"), at a
# host (net.seatdoor) and at a phone relay for the pages behind it (web.relaydoor).
WRONG_BURST = 8.0
WRONG_EVERY = 10.0
WRONG_ADDRESSES = 1024  # addresses counted apart (WrongKeys)


def new_seat_key() -> str:
    """A fresh seat key: 4 characters of the code's alphabet from the system's CSPRNG (20 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(SEAT_KEY_LENGTH))


@functools.lru_cache(maxsize=64)
def seat_secret(game_id: bytes, seat_key: str) -> bytes:
    """K = scrypt(game id || seat key, "p2pnimmt/seat/v1", 2^15, 8, 1): costly on purpose (a proof seen on the air
    is ground key by key at this cost), drawn once per game."""
    return hashlib.scrypt(game_id + seat_key.encode("ascii"), salt=SEAT_SALT, n=CODE_N, r=CODE_R, p=CODE_P, dklen=32,
                          maxmem=2 * 128 * CODE_R * CODE_N * CODE_P)


def _link_hmac(tag: bytes, secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes,
               joiner_key: bytes) -> bytes:
    """HMAC-SHA256 under `secret` of `tag` and this link's handshake (the game, its nonces, the joiner's key)."""
    return hmac.new(secret, tag + game_id + joiner_nonce + host_nonce + joiner_key, hashlib.sha256).digest()


def _holds(tag: bytes, proof: object, secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes,
           joiner_key: bytes) -> bool:
    """Whether `proof` is _link_hmac's for this link (compared in constant time)."""
    if not isinstance(proof, bytes) or len(proof) != PROOF_SIZE:
        return False
    return hmac.compare_digest(proof, _link_hmac(tag, secret, game_id, joiner_nonce, host_nonce, joiner_key))


def join_proof(secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes, joiner_key: bytes) -> bytes:
    """The `proof` of a join: HMAC-SHA256 under K of this link's handshake (its nonces and the joiner's key)."""
    return _link_hmac(JOIN_TAG, secret, game_id, joiner_nonce, host_nonce, joiner_key)


def proof_holds(proof: object, secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes,
                joiner_key: bytes) -> bool:
    """Whether a join's `proof` is this link's proof under K (compared in constant time)."""
    return _holds(JOIN_TAG, proof, secret, game_id, joiner_nonce, host_nonce, joiner_key)


def new_link_secret() -> bytes:
    """A fresh link secret: 16 bytes from the system's CSPRNG (128 bits: no count bounds guessing it, nor need to)."""
    return secrets.token_bytes(LINK_SECRET_SIZE)


def write_link_secret(secret: bytes) -> str:
    """The link secret as a link carries it: its 128 bits as one big-endian number in 26 characters of the code's
    alphabet, most significant first (so the first is 0..7)."""
    value = int.from_bytes(secret, "big")
    return "".join(CODE_ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(LINK_SECRET_LENGTH)))


def read_link_secret(text: str) -> bytes:
    """A link secret as a link carries it (read as a code is: case-blind, hyphens and white space left out, I and L
    as 1, O as 0); ValueError saying what is wrong."""
    cleaned = plain(text)
    if len(cleaned) != LINK_SECRET_LENGTH:
        raise ValueError(f"a link secret is {LINK_SECRET_LENGTH} characters, not {len(cleaned)}")
    value = 0
    for ch in cleaned:
        if ch not in CODE_ALPHABET:
            raise ValueError(f"{ch!r} is not in a link secret")
        value = value * 32 + CODE_ALPHABET.index(ch)
    if value >> (8 * LINK_SECRET_SIZE):
        raise ValueError("a link secret begins with 0..7 (it is 128 bits)")
    return value.to_bytes(LINK_SECRET_SIZE, "big")


def link_proof(secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes, joiner_key: bytes) -> bytes:
    """The `link_proof` of a join: HMAC-SHA256 under the link secret of this link's handshake (as `proof` is)."""
    return _link_hmac(LINK_TAG, secret, game_id, joiner_nonce, host_nonce, joiner_key)


def link_proof_holds(proof: object, secret: bytes, game_id: bytes, joiner_nonce: bytes, host_nonce: bytes,
                     joiner_key: bytes) -> bool:
    """Whether a join's `link_proof` is this link's proof under the link secret (compared in constant time)."""
    return _holds(LINK_TAG, proof, secret, game_id, joiner_nonce, host_nonce, joiner_key)


def split_join_code(cleaned: str) -> tuple[str, str | None]:
    """A code as a person typed it, made plain (upper case, no spaces or hyphens, I/L/O read as 1/1/0): the game's
    code and its seat key (None when only the 4 characters of the code were given)."""
    if len(cleaned) == CODE_LENGTH + SEAT_KEY_LENGTH:
        return cleaned[:CODE_LENGTH], cleaned[CODE_LENGTH:]
    return cleaned, None


def plain(text: str) -> str:
    """What a person typed, made plain as a code is read: upper case, without white space or hyphens, I and L as 1,
    O as 0 (as the page's seatkey.ts reads a key)."""
    return "".join(ch for ch in text.upper() if not ch.isspace() and ch != "-").translate(_AS_TYPED)


class WrongKeys:
    """The wrong seat keys each address has left (protocol.md 14, "Bounds"): a burst of WRONG_BURST, then one each
    WRONG_EVERY seconds. WRONG_ADDRESSES addresses are counted apart; one is forgotten only once it has all its tries
    again (forgetting it then gives it nothing), and while every one of them is short of tries, the addresses past
    them share one count of their own (`others`). Forgetting the oldest instead (before session 35) gave a stranger
    with more addresses than that a fresh burst at each: every guess was checked
    (benchmarks/attacks/seat_key_guess.py). `now`: time.monotonic()."""

    def __init__(self) -> None:
        self.tries: OrderedDict[str, Bucket] = OrderedDict()  # the least lately charged first
        self.others: Bucket | None = None  # the addresses past WRONG_ADDRESSES, while none can be forgotten

    def spent(self, address: str, now: float) -> bool:
        """Whether `address` has no try left now (then its joins are refused unchecked; `pooled` says whether for
        its own count or the one it shares)."""
        tries = self._of(address, now)
        return tries is not None and not tries.has(now)

    def pooled(self, address: str) -> bool:
        """`address` is charged to the count the addresses past those counted apart share."""
        return self.others is not None and address not in self.tries

    def charge(self, address: str, now: float) -> None:
        """One wrong key from `address`."""
        tries = self._of(address, now)
        if tries is None:
            tries = self.tries[address] = _tries(now)
        elif address in self.tries:
            self.tries.move_to_end(address)
        tries.spend(now)  # (into debt, when a known key's wrong proof comes from an address with none left)

    def _of(self, address: str, now: float) -> Bucket | None:
        """The count `address` is charged to: its own, none yet (there is room for it), or, while WRONG_ADDRESSES
        addresses are counted apart and none of them has all its tries again, the one the others share."""
        tries = self.tries.get(address)
        if tries is not None:
            return tries
        while self.tries and len(self.tries) >= WRONG_ADDRESSES and next(iter(self.tries.values())).full(now):
            self.tries.popitem(last=False)
        if len(self.tries) < WRONG_ADDRESSES:
            return None
        if self.others is None:
            self.others = _tries(now)
        return self.others


def _tries(now: float) -> Bucket:
    """The wrong seat keys one address (or the addresses past those counted apart) has left: WRONG_BURST, refilled by
    one each WRONG_EVERY seconds."""
    return Bucket(WRONG_BURST, 1.0 / WRONG_EVERY, now)


@dataclass(frozen=True)
class Refusals:
    """What a door that checks the seat key says when it refuses a join: a host's (net.seatdoor) or a phone relay's
    for its pages (web.relaydoor). Where the two doors differ, None is a door that lets the join go on there."""

    too_many: str  # the address has no wrong key left
    too_many_addresses: str  # the addresses past those counted apart (WrongKeys.pooled) have none left together
    wrong: str  # the proof does not hold: one wrong key charged
    missing: str | None  # a join without a proof (None: it goes on, the host refuses it; nothing is charged either way)
    keyless: str | None  # the door's node holds no seat key (None: every join goes on, before any count is asked)
    wrong_link: str | None  # a `link_proof` that does not hold (None: a join with one goes on, unchecked and uncounted)


Link = tuple[bytes, bytes, bytes, bytes]  # what a join's proof is bound to: game id, the two nonces, the joiner's key


def seat_refusal(says: Refusals, tries: WrongKeys, address: str, now: float, *, seated: bool, known: bool,
                 keyless: bool, proof: object, secret: bytes | None, link: Link, link_proved: object = None,
                 link_secret: bytes | None = None) -> str | None:
    """Why a door refuses a join for the seat key (None: it goes on), in the order of protocol.md 14:

    1. a seat of the START (`seated`) is a member already: it goes on whatever it proves;
    2. a door whose node holds no key (`keyless`) lets every join go on, if it says nothing for it (a host);
    3. a join with a `link_proof` (`link_proved`) is decided by it alone, never refused unchecked and never charged
       (128 bits: guessing the link secret is hopeless, so no count is needed, and none can be spent to keep a
       newcomer with the host's link out): it goes on where the door leaves it to the host (`says.wrong_link` None:
       a phone relay, which gives it only where its host decides link proofs: web.relaydoor), or where it holds
       under `link_secret` for `link`; else `says.wrong_link`;
    4. an address (`address`, charged in `tries`) with no wrong key left is refused unchecked: guessing is bounded
       per address (those past the addresses counted apart, all together); not a `known` key (a host's own seats and
       the keys it admitted this evening: a stranger who spent their address cannot keep them out);
    5. a join without a proof guesses nothing: `says.missing`, nothing charged;
    6. a keyless door that says something for it (a phone relay) refuses what it cannot check;
    7. a proof that holds under `secret` (K; None where there is no game id to draw it for: then none holds) for
       `link` (game id, joiner's nonce, host's nonce, joiner's key: its handshake) goes on;
    8. any other is one wrong key, charged to `address` at `now`."""
    if seated:
        return None
    if keyless and says.keyless is None:
        return None
    if link_proved is not None:
        if says.wrong_link is None:
            return None
        if link_secret is not None and link_proof_holds(link_proved, link_secret, *link):
            return None
        return says.wrong_link
    if not known and tries.spent(address, now):
        return says.too_many_addresses if tries.pooled(address) else says.too_many
    if proof is None:
        return says.missing
    if keyless:
        return says.keyless
    if secret is not None and proof_holds(proof, secret, *link):
        return None
    tries.charge(address, now)
    return says.wrong

"""A phone relay checks its pages' joins (protocol.md 14, "The seat key": *A phone relay checks its pages' joins*).

A page's links reach the host from its relay node's address, and the relay's token is in the host's lobby frames,
which anyone who reads the LAN's traffic reads. Were the relay to pass every join on, a stranger with the token
would send wrong proofs through it, the host would charge them to the relay node's address (net.seatdoor), and once
that address's tries were spent every new page behind the relay would be refused unchecked while the stranger went
on guessing. So the relay, whose node holds the seat key, reads each connection a page dials through it until the
page's first join (links are not encrypted: the two hellos' nonces and keys, then the join), decides it as the host
would, and charges a wrong proof to the page's own address (the WebSocket's peer) with the host's bound
(protocol.seatkey.WrongKeys): no wrong proof comes from the relay's address.

`Watch` reads one connection (pure: bytes in, bytes out); `RelayDoor` is the relay's verdict and its count."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from ..i18n import N_
from ..protocol.codec import FRAME_LIMIT, HELLO, DecodeError, FrameTooLarge, decode
from ..protocol.identity import fingerprint, peer_id
from ..protocol.pieces import HEADER, Pieces
from ..protocol.seatkey import Refusals, WrongKeys, seat_refusal, seat_secret
from ..quietlog import quiet

KEY, NONCE, GAME = 32, 16, 16  # bytes of a hello's public key, nonce and game id
UNHEARD = 4096  # bytes of the page's held before its peer said its hello (an honest page's hello is under 100)

# The relay's refusals: a `refuse` frame on the page's connection, as the host's would be (the page shows the first
# two in its own words, as it does the host's "wrong seat key" and "too many wrong seat keys").
WRONG = N_("wrong seat key (the phone relay checked it): scan the QR code the host shows now, or open its phone "
           "link whole")
TOO_MANY = N_("too many wrong seat keys from this address (at the phone relay): wait, then scan the QR code the host "
              "shows now")
KEYLESS = N_("the phone relay's node holds no seat key, so it passes on no join it cannot check: scan the QR code "
             "the host shows now")
# A join without a proof goes on (the host refuses it and charges nothing); an address past those counted apart is
# told as any other; a join with a link secret's proof goes on unchecked where the host decides it (RelayDoor.why_not:
# it checks it and charges nothing).
SAYS = Refusals(too_many=TOO_MANY, too_many_addresses=TOO_MANY, wrong=WRONG, missing=None, keyless=KEYLESS,
                wrong_link=None)


class Game(Protocol):
    """What the door reads of the relay's node (web.relay.Node)."""

    seat_key: str | None

    def seat_of_start(self, peer: bytes) -> bool: ...

    def host_decides_links(self) -> bool: ...


class Watch:
    """One connection a page dialled through the relay, read until its first join is decided.

    `up` takes the page's bytes, `down` its peer's, and each gives back what goes on now. Nothing of the page's goes
    on before the peer's first frame is a p2pnimmt hello (`heard`; every node and page says its hello as a connection
    opens, before it reads a byte): a peer whose first bytes are anything else (`stranger`) is no member's node but
    a service a member named (a printer's web page, a database on the relay laptop's LAN address), and gets not one
    byte of the page's, nor the page one of its (red team, session 41). While it reads, only whole frames go on
    either way (so a `refuse` the relay puts towards the page lands between the peer's frames), and a join waits in
    `held` (with whatever followed it) for the verdict: `passed()` then gives its bytes. Once a join is passed, or
    the first frame after the page's `auth` that is not `ping` is anything else, or a frame cannot be read as the
    host reads it (the host closes the connection there, before any join), nothing more is read."""

    def __init__(self) -> None:
        self.reading = True
        self.refused = False
        self.page_hello: list | None = None  # [HELLO, version, game id, key, nonce]
        self.peer_hello: list | None = None
        self.waiting = False  # the page's join waits for the verdict (its bytes, and what followed, held)
        self.join: Any = None  # its payload
        self._up = Pieces()  # (kept apart until a frame is whole: protocol.pieces; session-42 review)
        self._down = Pieces()
        self._frames = 0  # the page's frames read so far
        self._peer_read = False  # the peer's hello was read (or could not be)
        self.heard = False  # the peer's first frame was a p2pnimmt hello: the page's bytes may go on
        self.stranger = False  # the peer's first bytes were anything else: nothing goes either way (the relay closes)

    def up(self, data: bytes) -> bytes:
        """The page's bytes that go on now."""
        if self.refused or self.stranger:
            return b""
        if not self.reading:
            return data
        self._up.add(data)
        if self.waiting or not self.heard:  # (held until the peer proves it speaks p2pnimmt: `down`)
            if self._up.held > UNHEARD:  # an honest page waits for the peer's nonce before its auth
                self.stranger = True
                self._up.clear()
            return b""
        out: list[bytes] = []
        while self.reading:
            try:
                whole = self._up.end()
            except FrameTooLarge:  # over the frame cap: the host closes the connection there
                self.reading = False
                break
            if whole is None:
                break
            frame = self._up.peek(whole)
            try:
                value = decode(frame[HEADER:], FRAME_LIMIT)
            except DecodeError:  # the host reads no such frame either: the connection ends there
                self.reading = False
                break
            number, self._frames = self._frames, self._frames + 1
            if number == 0:
                self.page_hello = value if _hello(value) else None
                self.reading = self.page_hello is not None
            elif number >= 2:  # (1 is its auth, which the host checks)
                kind = value[0] if isinstance(value, list) and len(value) == 2 else None
                if kind == "join":
                    self.waiting, self.join = True, value[1]
                    break
                self.reading = kind == "ping"
            out.append(frame)
            self._up.drop(whole)
        if not self.reading:
            out.append(self._up.rest())
        return b"".join(out)

    def down(self, data: bytes) -> bytes:
        """The peer's bytes that go on now to the page."""
        if self.refused or self.stranger:
            return b""
        self._down.add(data)
        if not self.reading:  # (with what waited for a whole frame when reading stopped)
            return self._down.rest()
        out: list[bytes] = []
        while True:
            try:
                frame = self._down.frame()
            except FrameTooLarge:  # the page closes its link there: nothing to keep whole
                if not self.heard:  # its first bytes are no frame: no p2pnimmt peer (an SSH banner, an HTTP answer)
                    return self._unheard()
                out.append(self._down.rest())
                break
            if frame is None:
                break
            if not self._peer_read:
                self._peer_read = True
                try:
                    value = decode(frame[HEADER:], FRAME_LIMIT)
                except DecodeError:
                    value = None
                self.peer_hello = value if _hello(value) else None
                if self.peer_hello is None:
                    return self._unheard()
                self.heard = True
            out.append(frame)
        return b"".join(out)

    def passed(self) -> bytes:
        """The join is passed on: its bytes and what followed it; nothing more is read."""
        self.waiting = self.reading = False
        return self._up.rest()

    def unread(self) -> bytes:
        """The page's bytes held for a frame not yet whole (the page closes the connection: they go on first)."""
        if self.refused or not self.heard:
            self._up.clear()
            return b""
        return self._up.rest()

    def _unheard(self) -> bytes:
        """The peer's first bytes are no p2pnimmt hello: nothing more goes either way (the relay closes it)."""
        self.stranger = True
        self.reading = self.waiting = False
        self._up.clear()
        self._down.clear()
        return b""

    def refuse(self) -> None:
        """The join is refused: nothing more goes either way."""
        self.refused = True
        self.waiting = self.reading = False
        self._up.clear()
        self._down.clear()


def _hello(value: object) -> bool:
    return (isinstance(value, list) and len(value) == 5 and value[0] == HELLO and isinstance(value[2], bytes)
            and isinstance(value[3], bytes) and len(value[3]) == KEY and isinstance(value[4], bytes)
            and len(value[4]) == NONCE)


class RelayDoor:
    """A relay's verdict on its pages' joins, and its count of wrong seat keys per page address."""

    def __init__(self) -> None:
        self.tries = WrongKeys()  # per page address
        self.refused = 0  # joins refused, in all

    async def why_not(self, node: Game | None, source: str, watch: Watch) -> str | None:
        """Why the page's join held in `watch` does not go on (None: it goes on), in the order of protocol.md 14."""
        hello, peer, join = watch.page_hello, watch.peer_hello, watch.join
        if hello is None or peer is None:  # the page cannot have signed this handshake: the host reads no join
            return None
        page_key, page_nonce = hello[3], hello[4]
        game, peer_nonce = peer[2], peer[4]
        seated = node is not None and node.seat_of_start(peer_id(page_key))  # a member already: admitted by the host
        key = node.seat_key if node is not None else None
        proof = join.get("proof") if isinstance(join, dict) else None
        # A `link_proof` is passed on unchecked only to a host that decides it (the relay's node, or one that forwards
        # the records joins gave it: session 40 on); an older host reads `proof` alone and would charge each wrong one
        # to the relay's address, so there the relay ignores it and decides on `proof` as before (protocol.md 14).
        decides = node is not None and node.host_decides_links()
        link_proved = join.get("link_proof") if isinstance(join, dict) and decides else None
        secret, now = None, time.monotonic()
        # K only for a join it will check: a spent address is refused unchecked, at once (no thread, no look-up).
        if (not seated and key is not None and proof is not None and link_proved is None and len(game) == GAME
                and not self.tries.spent(source, now)):
            secret = await asyncio.to_thread(seat_secret, game, key)  # cached: once a game, off the loop
            now = time.monotonic()  # the count is asked again and charged after the wait, with no other join between
        why = seat_refusal(SAYS, self.tries, source, now, seated=seated, known=False, keyless=key is None,
                           proof=proof, secret=secret, link=(game, page_nonce, peer_nonce, page_key),
                           link_proved=link_proved)
        return None if why is None else self._refused(page_key, source, why)

    def _refused(self, page_key: bytes, source: str, why: str) -> str:
        self.refused += 1
        quiet.warning(source, "refused a page's join at the phone relay", "refused the join of page %s from %s at "
                      "the phone relay: %s", fingerprint(peer_id(page_key)), source, why.split(":", 1)[0])
        return why

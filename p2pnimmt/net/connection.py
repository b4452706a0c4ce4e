"""One authenticated TCP connection between two peers: length-prefixed frames and a mutual signed handshake.

Frame: 4-byte big-endian length, then a msgpack value; at most MAX_FRAME
bytes. Handshake (protocol.md, "Network"): each side sends
["p2pnimmt-hello", 1, game id, public key, 16-byte nonce]; then each side
sends its Ed25519 signature over HANDSHAKE_TAG || game id || dialer's
nonce || listener's nonce || dialer's key || listener's key. A peer that
fails any step is disconnected with a logged reason. After it, frames are
[kind, payload] pairs.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any

from ..protocol.codec import MAX_FRAME, DecodeError, decode, encode
from ..protocol.identity import KEY_SIZE, SIGNATURE_SIZE, Identity, fingerprint, peer_id, verify
from ..quietlog import quiet

log = logging.getLogger("p2pnimmt.net")

HELLO = "p2pnimmt-hello"
HANDSHAKE_VERSION = 1
HANDSHAKE_TAG = b"p2pnimmt/handshake/v1"
NONCE = 16
ANY_GAME = bytes(16)  # a dialer joining by address does not know the game id yet
FRAME_LIMIT = MAX_FRAME + 1024  # a session message plus the [kind, payload] wrapper
HANDSHAKE_TIMEOUT = 5.0
IDLE_TIMEOUT = 20.0  # a peer silent this long is gone (the default of --link-timeout; peers ping every quarter)
MAX_UNSENT = 16 * 1024 * 1024  # bytes queued to a peer that does not read before its link is cut


class ConnectionFailed(Exception):
    """The peer broke the framing or the handshake; the message says how."""


class Unwelcome(ConnectionFailed):
    """The peer's key is not let in now (cut off, or its reconnects are spaced): refused in the handshake,
    before we sign anything for it. Logged once, when the key was cut, not at each refusal."""


async def read_frame(reader: asyncio.StreamReader, timeout: float) -> Any:
    """One decoded frame; ConnectionFailed on a bad or oversized frame, EOF, or silence longer than `timeout`."""
    try:
        async with asyncio.timeout(timeout):
            header = await reader.readexactly(4)
            size = int.from_bytes(header, "big")
            if size > FRAME_LIMIT:
                raise ConnectionFailed(f"frame of {size} bytes is over the {FRAME_LIMIT}-byte limit")
            data = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise ConnectionFailed("connection closed") from None
    except TimeoutError:
        raise ConnectionFailed(f"nothing received for {timeout:.0f} s") from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionFailed(f"connection lost: {exc}") from None
    try:
        return decode(data, FRAME_LIMIT)
    except DecodeError as exc:
        raise ConnectionFailed(f"bad frame: {exc}") from None


def frame(value: Any) -> bytes:
    data = encode(value)
    return len(data).to_bytes(4, "big") + data


def transcript_of(game_id: bytes, dialer_nonce: bytes, listener_nonce: bytes, dialer_key: bytes,
                  listener_key: bytes) -> bytes:
    return HANDSHAKE_TAG + game_id + dialer_nonce + listener_nonce + dialer_key + listener_key


class Connection:
    """An authenticated link to one peer. `peer` is its peer id, `key` its public key."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: bytes,
                 game_id: bytes) -> None:
        self.game_id = game_id
        self.reader = reader
        self.writer = writer
        self.key = key
        self.peer = peer_id(key)
        self.address = writer.get_extra_info("peername")
        self.closed = False
        self.sent: set[bytes] = set()  # session messages already sent on this link (never twice)
        self.received: set[bytes] = set()  # session messages its peer sent on this link that we hold
        self._pending: list[bytes] = []  # frames queued this turn of the event loop, written together
        self.faults = 0  # bad messages that came over this link
        self.first_fault = ""  # what the first of them was
        self.warned: set[str] = set()  # what was logged once about this link
        self.dialed: tuple[str, int] | None = None  # the address we dialled, if we did
        self.opened_at = 0.0  # loop time when the handshake completed (set by a dialer)
        self.idle_timeout = IDLE_TIMEOUT  # silence this long ends the link (the node's --link-timeout)

    @classmethod
    async def open(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, identity: Identity,
                   game_id: bytes | None, dialer: bool,
                   admit: Callable[[bytes], str | None] | None = None) -> Connection:
        """Run the handshake on a fresh stream; ConnectionFailed (and the stream closed) if the peer fails it.

        A dialer that does not know the game id yet (joining by address)
        passes None: it says 16 zero bytes and adopts the listener's game id,
        which both signatures then cover. `admit(key)`: why the peer with this
        key is not let in now, or None; asked once its hello names the key,
        before we sign (Unwelcome with that reason).
        """
        try:
            nonce = secrets.token_bytes(NONCE)
            said = game_id if game_id is not None else ANY_GAME
            writer.write(frame([HELLO, HANDSHAKE_VERSION, said, identity.public_key, nonce]))
            await writer.drain()
            try:
                hello = await read_frame(reader, HANDSHAKE_TIMEOUT)
            except ConnectionFailed as exc:
                if str(exc).startswith(("frame of", "bad frame")):  # it speaks, but not our protocol
                    raise ConnectionFailed(f"not a p2pnimmt peer (its first bytes are no p2pnimmt hello: {exc})") \
                        from None
                raise
            if not (isinstance(hello, list) and len(hello) == 5 and hello[0] == HELLO):
                raise ConnectionFailed("not a p2pnimmt peer: it did not say a p2pnimmt hello")
            _, version, their_game, their_key, their_nonce = hello
            if version != HANDSHAKE_VERSION:
                raise ConnectionFailed(f"the peer speaks handshake version {version!r}, not {HANDSHAKE_VERSION}")
            if game_id is None and dialer and isinstance(their_game, bytes) and len(their_game) == len(ANY_GAME):
                game_id = their_game
            if their_game != game_id and not (not dialer and their_game == ANY_GAME):
                raise ConnectionFailed("the peer is in another game")
            if not (isinstance(their_key, bytes) and len(their_key) == KEY_SIZE
                    and isinstance(their_nonce, bytes) and len(their_nonce) == NONCE):
                raise ConnectionFailed("the peer's hello has a malformed key or nonce")
            if their_key == identity.public_key:
                raise ConnectionFailed("the peer uses our own key")
            why = admit(their_key) if admit is not None else None
            if why:
                raise Unwelcome(why)
            # A listener always knows its game id, and a dialer that did not has adopted the listener's above
            # (only a listener that says nil for it gets past the game check with it still None).
            assert game_id is not None
            if dialer:
                signed = transcript_of(game_id, nonce, their_nonce, identity.public_key, their_key)
            else:
                signed = transcript_of(game_id, their_nonce, nonce, their_key, identity.public_key)
            writer.write(frame(["auth", identity.sign(signed)]))
            await writer.drain()
            auth = await read_frame(reader, HANDSHAKE_TIMEOUT)
            if not (isinstance(auth, list) and len(auth) == 2 and auth[0] == "auth" and isinstance(auth[1], bytes)
                    and len(auth[1]) == SIGNATURE_SIZE):
                raise ConnectionFailed("the peer did not authenticate")
            if not verify(their_key, auth[1], signed):
                claimed = fingerprint(peer_id(their_key))
                raise ConnectionFailed(f"the peer's handshake signature does not verify (claims {claimed})")
        except ConnectionFailed:
            writer.close()
            raise
        except (ConnectionError, OSError) as exc:
            writer.close()
            raise ConnectionFailed(f"connection lost during the handshake: {exc}") from None
        return cls(reader, writer, their_key, game_id)

    async def send(self, kind: str, payload: Any) -> None:
        if self.closed:
            return
        try:
            self._flush()
            self.writer.write(frame([kind, payload]))
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            log.info("send to %s failed: %s", fingerprint(self.peer), exc)
            self.close()

    def send_message(self, wire: bytes) -> None:
        """Send a session message on this link, unless it was sent on it before."""
        if wire not in self.sent:
            self.sent.add(wire)
            self.send_nowait("msg", wire)

    def send_nowait(self, kind: str, payload: Any) -> None:
        """Queue a frame without waiting for the socket (order is kept; frames queued together go in one write)."""
        if self.closed:
            return
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.append(frame([kind, payload]))

    def _flush(self) -> None:
        data, self._pending = b"".join(self._pending), []
        if self.closed or not data:
            return
        try:
            self.writer.write(data)
        except (ConnectionError, OSError, RuntimeError) as exc:
            log.info("send to %s failed: %s", fingerprint(self.peer), exc)
            self.close()
            return
        unsent = self.writer.transport.get_write_buffer_size()
        if unsent > MAX_UNSENT:
            quiet.warning(self.address, "cut off: it does not read", "cut off %s: it does not read (%d bytes unsent, "
                          "over %d)", fingerprint(self.peer), unsent, MAX_UNSENT)
            self.closed = True
            self.writer.transport.abort()

    async def receive(self) -> tuple[str, Any]:
        """The next [kind, payload] frame; ConnectionFailed if the link is broken or the frame is not that shape."""
        value = await read_frame(self.reader, self.idle_timeout)
        if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
            raise ConnectionFailed("frame is not [kind, payload]")
        return value[0], value[1]

    def close(self) -> None:
        if not self.closed:
            self._flush()
            self.closed = True
            self.writer.close()

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
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ..protocol.bucket import Bucket
from ..protocol.codec import FRAME_LIMIT, HELLO, DecodeError, FrameTooLarge, decode, encode, frame_size
from ..protocol.identity import KEY_SIZE, SIGNATURE_SIZE, Identity, fingerprint, peer_id, verify
from ..protocol.pieces import HEADER, Pieces
from ..quietlog import quiet

log = logging.getLogger("p2pnimmt.net")

HANDSHAKE_VERSION = 1
HANDSHAKE_TAG = b"p2pnimmt/handshake/v1"
NONCE = 16
ANY_GAME = bytes(16)  # a dialer joining by address does not know the game id yet
HANDSHAKE_TIMEOUT = 5.0
IDLE_TIMEOUT = 20.0  # a peer silent this long is gone (the default of --link-timeout; peers ping every quarter)
# A link timeout a ping may say, in whole seconds (protocol.md 14, "The link timeout"); nil says none: IDLE_TIMEOUT.
LINK_TIMEOUTS = range(1, 601)
NO_LINK_TIMEOUT = "the peer's ping says no link timeout of 1..600 whole seconds"
MAX_UNSENT = 16 * 1024 * 1024  # bytes queued to a peer that does not read before its link is cut
READ_SIZE = 256 * 1024  # bytes a link takes from its socket at once: every whole frame in them is read without waiting
LINK_SPACE = 64 * 1024  # bytes a served link reads into, its own buffer (_Tap): held and touched for the link's life
MSG_PREFIX = b"\x92\xa3msg"  # msgpack of a 2-array and the str "msg": how a session message's frame begins
_BIN_WIDTH = {0xC4: 1, 0xC5: 2, 0xC6: 4}  # msgpack bin 8, 16, 32: bytes of the length after the type byte
# How a handshake that a dialer should make again fails: the listener said nothing in time, or closed (a flood's
# bounds cut it, net.door and net.mesh), not a refusal or a wrong answer.

class ConnectionFailed(Exception):
    """The peer broke the framing or the handshake; the message says how."""


def said_timeout(seconds: float) -> int:
    """What our pings say of our link timeout: its whole seconds (protocol.md 14, "The link timeout")."""
    return int(seconds)


def heard_timeout(payload: Any) -> float | None:
    """The link timeout a peer's ping says, in seconds: IDLE_TIMEOUT where it says none (nil: a peer of before session
    46); None where it is neither nil nor an integer of LINK_TIMEOUTS (ignored, NO_LINK_TIMEOUT said)."""
    if payload is None:
        return IDLE_TIMEOUT
    if type(payload) is not int or payload not in LINK_TIMEOUTS:
        return None
    return float(payload)


def ping_every(own: float, peer: float) -> float:
    """Seconds between our pings on a link: a quarter of the shorter of our link timeout and the peer's, so that each
    end hears the other within its own (protocol.md 14, "The link timeout")."""
    return min(own, peer) / 4


class Refused(ConnectionFailed):
    """Nothing listens at the address dialled (the connection was refused): the peer's process is gone from there."""


class LinkLost(ConnectionFailed):
    """The link closed, was lost or went silent: nothing the peer said was wrong (in a dialer's handshake: Unanswered,
    worth dialling again)."""


class BadFrame(ConnectionFailed):
    """Bytes that are no frame of ours (over the size, or not msgpack): in a handshake, no p2pnimmt peer."""


class Unanswered(ConnectionFailed):
    """Nobody answered the dial in time (the address is not reached, or its port's queue is full: a flood of
    connections on it, net.door), or the listener closed before its hello (over a bound under a flood): worth
    dialling again, unlike a refusal."""


class Unwelcome(ConnectionFailed):
    """The peer's key is not let in now (cut off, or its reconnects are spaced): refused in the handshake,
    before we sign anything for it. Logged once, when the key was cut, not at each refusal."""


async def read_frame(reader: asyncio.StreamReader, timeout: float) -> Any:
    """One decoded frame; ConnectionFailed on a bad or oversized frame, EOF, or silence longer than `timeout`."""
    try:
        async with asyncio.timeout(timeout):
            size = frame_size(await reader.readexactly(4))
            data = await reader.readexactly(size)
    except FrameTooLarge as exc:
        raise BadFrame(str(exc)) from None
    except asyncio.IncompleteReadError:
        raise LinkLost("connection closed") from None
    except OSError as exc:  # (TimeoutError and ConnectionError among them)
        raise _lost(exc, timeout) from None
    try:
        return decode(data, FRAME_LIMIT)
    except DecodeError as exc:
        raise BadFrame(f"bad frame: {exc}") from None


def _lost(exc: BaseException, timeout: float) -> LinkLost:
    """What a link's read that failed with `exc` says: silence longer than `timeout`, else the connection lost."""
    if isinstance(exc, TimeoutError):
        return LinkLost(f"nothing received for {timeout:g} s")
    return LinkLost(f"connection lost: {exc}")


def frame(value: Any) -> bytes:
    data = encode(value)
    return len(data).to_bytes(4, "big") + data


def msg_frame(wire: bytes) -> bytes:
    """frame(["msg", wire]) built without msgpack: the same bytes (msgpack's shortest bin header), made once for
    every link a message goes to."""
    size = len(wire)
    if size < 0x100:
        head = MSG_PREFIX + b"\xc4" + size.to_bytes(1, "big")
    elif size < 0x10000:
        head = MSG_PREFIX + b"\xc5" + size.to_bytes(2, "big")
    else:
        head = MSG_PREFIX + b"\xc6" + size.to_bytes(4, "big")
    return (len(head) + size).to_bytes(4, "big") + head + wire


def msg_payload(data: bytes) -> bytes | None:
    """The wire of a frame's bytes that are exactly ["msg", bin] in canonical form (what decode would give for
    them), else None: a session message's frame is taken apart by slicing, not decoded (decode checks what is not
    this shape)."""
    if not data.startswith(MSG_PREFIX) or len(data) < 6:
        return None
    width = _BIN_WIDTH.get(data[5])
    if width is None:
        return None
    start = 6 + width
    size = len(data) - start
    if size < 0 or int.from_bytes(data[6:start], "big") != size or (width > 1 and size < 1 << (8 * width // 2)):
        return None  # (a bin 16 under 256 bytes, a bin 32 under 65,536: not canonical, decode names it)
    return data[start:]


def _parse(data: bytes) -> tuple[str, Any]:
    """A frame's bytes as (kind, payload): a session message's by slicing, anything else decoded and checked."""
    wire = msg_payload(data)
    if wire is not None:
        return "msg", wire
    try:
        value = decode(data, FRAME_LIMIT)
    except DecodeError as exc:
        raise ConnectionFailed(f"bad frame: {exc}") from None
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        raise ConnectionFailed("frame is not [kind, payload]")
    return value[0], value[1]


def transcript_of(game_id: bytes, dialer_nonce: bytes, listener_nonce: bytes, dialer_key: bytes,
                  listener_key: bytes) -> bytes:
    return HANDSHAKE_TAG + game_id + dialer_nonce + listener_nonce + dialer_key + listener_key


JOINS_PER_SECOND = 1.0  # a member's joins again, a seat's `again` frames, over one link (protocol.md 14, "Bounds")
JOINS_BURST = 4.0


class Asks:
    """A link's budget of asks (`heads`, `ping`, `seen`, `probe`, `where` frames, and since session 45 every other frame
    but a `msg`, at a host but a `join` or `again`: net.frames.frame_verdict): a bucket of BURST that fills at
    PER_SECOND.
    An honest peer sends at most some 15 a second (a `heads` each PULL_EVERY while it waits, a ping, a `seen` and a
    `where` each quarter of the shorter of its link timeout and its peer's, 12 a second at the least, 1 s; a phone page
    a `probe` each 2 s and a `heads` after its answer: reviewed in session 46, whatever each end's timeout, with a
    page's probes or not, under PER_SECOND); each `heads` costs a look over the whole game (protocol.md 14,
    "Bounds"; since session 32: a member sending them as fast as its link took them slowed every turn fifty-fold)."""

    PER_SECOND = 20.0
    BURST = 64.0
    # Past BURST, asks up to SLACK more (filling at PER_SECOND as well) are not answered but not counted as bad either:
    # a link that stalled (a network hiccup, a laptop's lid shut) brings what its peer sent meanwhile at once, up to
    # its link timeout's worth: a heads each PULL_EVERY and a ping, a seen and a where each quarter of it, 2 x 600 + 12
    # at the longest --link-timeout (600 s). Before, an honest link past 39 s of --link-timeout was cut for it
    # (session-32 review).
    SLACK = 1280.0

    def __init__(self, per_second: float = PER_SECOND, burst: float = BURST, slack: float = 0.0) -> None:
        self.budget = Bucket(burst, per_second)
        self.slack = Bucket(slack, per_second)  # filled at each ask as the budget is, taken only when it is empty
        self.excused = False  # the last ask refused was within the slack: not answered, and no bad message

    def take(self, now: float) -> bool:
        """One ask at `now` (seconds, monotonic): True if it is within the budget, else False (and it is not)."""
        self.slack.fill(now)
        if self.budget.take(now):
            return True
        self.excused = self.slack.take(now)
        return False


class Budgets:
    """A link's budgets of frames (protocol.md 14, "Bounds"; net.frames.frame_verdict says which a frame takes)."""

    __slots__ = ("asks", "joins", "answers")

    def __init__(self) -> None:
        self.asks = Asks(slack=Asks.SLACK)  # every frame but a msg (at a host but the two below): honest peers keep it
        # at a host, its joins after the first (each announced to every member): an honest node sends one again only
        # when it offers a phone relay (Node.offer_relay)
        self.joins = Asks(JOINS_PER_SECOND, JOINS_BURST)
        # at a host, its answers to a rematch (each a line on its screen): an honest node sends one per choice of its
        # person, and once more as its link comes back
        self.answers = Asks(JOINS_PER_SECOND, JOINS_BURST)


class Connection:
    """An authenticated link to one peer. `peer` is its peer id, `key` its public key."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: bytes,
                 game_id: bytes, tap: _Tap | None = None) -> None:
        self.game_id = game_id
        self.reader = reader
        self.writer = writer
        self._tap = tap if tap is not None else _Tap.on(writer)  # where the socket's bytes go: the stream, then serve
        self.key = key
        self.peer = peer_id(key)
        self.address = writer.get_extra_info("peername")
        self.closed = False
        self.writing_ended = False  # our end of the stream is on its way (end_writing): nothing more is queued
        self.sent: set[bytes] = set()  # session messages already sent on this link (never twice)
        self.received: set[bytes] = set()  # session messages its peer sent on this link that we hold
        self._pending: list[bytes] = []  # frames queued, written together (at the loop's next turn, or with a later)
        self._soon = False  # a flush of _pending is called at the event loop's next turn
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop its flushes are called on (asked once)
        self._in = Pieces()  # bytes read from the socket not yet taken as frames (joined once a frame is whole)
        self.faults = 0  # bad messages that came over this link
        self.first_fault = ""  # what the first of them was
        self.warned: set[str] = set()  # what was logged once about this link
        self.budgets = Budgets()  # what its frames take (net.frames.frame_verdict)
        self.dialed: tuple[str, int] | None = None  # the address we dialled, if we did
        # this link's handshake nonces (ours, its): what a join's seat-key proof is bound to (protocol.md 14)
        self.nonces: tuple[bytes, bytes] = (b"", b"")
        self.opened_at = 0.0  # loop time when the handshake completed (set by a dialer)
        self.idle_timeout = IDLE_TIMEOUT  # silence this long ends the link (the node's --link-timeout)
        self.peer_timeout = IDLE_TIMEOUT  # the peer's, as its latest ping said it (heard_ping)
        self.pinged_at = 0.0  # loop time of our latest ping (ping)
        self.paced = asyncio.Event()  # set when the peer's pings change how often we ping it
        # The wait for a frame ends at _deadline: one timer per link checks it (_watch), set again only when
        # it fires, not a timeout armed and cancelled around every read of the socket.
        self._deadline: float | None = None  # while a frame is waited for: when it must have come whole
        self._watch: asyncio.TimerHandle | None = None
        self._served: _Link | None = None  # while serve() hands the frames on
        # Called before anything is put on the socket: the node writes the transcript records it holds, so a
        # message never leaves before its record (a link closed in a burst flushes its frames at once).
        self.before_write: Callable[[], None] | None = None

    @classmethod
    async def open(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, identity: Identity,
                   game_id: bytes | None, dialer: bool,
                   admit: Callable[[bytes], str | None] | None = None, heard_first: bool = False,
                   nonce: bytes | None = None, link_timeout: float = IDLE_TIMEOUT) -> Connection:
        """Run the handshake on a fresh stream; ConnectionFailed (and the stream closed) if the peer fails it.

        A dialer that does not know the game id yet (joining by address)
        passes None: it says 16 zero bytes and adopts the listener's game id,
        which both signatures then cover. `admit(key)`: why the peer with this
        key is not let in now, or None; asked once its hello names the key,
        before we sign (Unwelcome with that reason). `heard_first` (a dialer
        at an address a member named): our hello goes only once the
        listener's came and `admit` let its key in, so a service that is no
        p2pnimmt peer, or another peer than the one we dial, gets not one byte
        of ours (protocol.md 14, "Handshake"; red team, session 42). `nonce`: this side's 16 bytes of entropy
        (fresh from the system's CSPRNG unless given: the handshake-vectors of protocol.md 16 give them).
        `link_timeout`: ours (the node's --link-timeout), said in the link's first frame, a ping, as the handshake
        ends (protocol.md 14, "The link timeout").
        """
        # The tap is on before our hello leaves: a peer cannot sign its auth before it has our nonce, so whatever
        # comes after a handshake that succeeds, its end included, comes through the tap (it notes that end).
        tap = _Tap.on(writer)
        try:
            nonce = secrets.token_bytes(NONCE) if nonce is None else nonce
            said = game_id if game_id is not None else ANY_GAME
            ours = frame([HELLO, HANDSHAKE_VERSION, said, identity.public_key, nonce])
            first = not (dialer and heard_first)
            if first:  # (a listener says its hello as the connection opens)
                writer.write(ours)
                await writer.drain()
            try:
                hello = await read_frame(reader, HANDSHAKE_TIMEOUT)
            except BadFrame as exc:  # it speaks, but not our protocol
                raise ConnectionFailed(f"not a p2pnimmt peer (its first bytes are no p2pnimmt hello: {exc})") \
                    from None
            if not (isinstance(hello, list) and len(hello) == 5 and hello[0] == HELLO):
                raise ConnectionFailed("not a p2pnimmt peer: it did not say a p2pnimmt hello")
            _, version, their_game, their_key, their_nonce = hello
            if type(version) is not int:  # (true and 1.0 are no version: the integer 1 is, protocol.md 14)
                raise ConnectionFailed("the peer's hello has a malformed version")
            if version != HANDSHAKE_VERSION:
                raise ConnectionFailed(f"the peer speaks handshake version {version}, not {HANDSHAKE_VERSION}")
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
            if not first:  # heard_first: the listener's hello came and holds (its game, the key we dial)
                writer.write(ours)
                await writer.drain()
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
        except ConnectionFailed as exc:
            writer.close()
            if dialer and isinstance(exc, LinkLost):
                raise Unanswered(str(exc)) from None  # a listener too busy, or cut under a flood: dial it again
            raise
        except (ConnectionError, OSError) as exc:
            writer.close()
            failed = Unanswered if dialer else ConnectionFailed
            raise failed(f"connection lost during the handshake: {exc}") from None
        conn = cls(reader, writer, their_key, game_id, tap)
        conn.nonces = (nonce, their_nonce)
        conn.idle_timeout = link_timeout
        conn.ping()
        return conn

    @property
    def ping_every(self) -> float:
        """Seconds between our pings on this link (ping_every of ours and the peer's link timeout)."""
        return ping_every(self.idle_timeout, self.peer_timeout)

    def ping(self) -> None:
        """A ping, saying our link timeout."""
        self.send_nowait("ping", said_timeout(self.idle_timeout))
        self.pinged_at = asyncio.get_running_loop().time()

    def heard_ping(self, payload: Any) -> None:
        """The peer's ping: the link timeout it says is the peer's from now on; one that says none that can be changes
        nothing and is said once per link (a WARNING line)."""
        timeout = heard_timeout(payload)
        if timeout is None:
            if "ping" not in self.warned:
                self.warned.add("ping")
                quiet.warning(self.address, "ping says no link timeout", "%s: %s (ignored)", fingerprint(self.peer),
                              NO_LINK_TIMEOUT)
        elif timeout != self.peer_timeout:
            self.peer_timeout = timeout
            self.paced.set()

    async def send(self, kind: str, payload: Any) -> None:
        if self.closed:
            return
        try:
            self._flush()
            if not self._records_written():
                return
            self.writer.write(frame([kind, payload]))
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            log.info("send to %s failed: %s", fingerprint(self.peer), exc)
            self.close()

    def send_message(self, wire: bytes, framed: bytes | None = None, later: bool = False) -> None:
        """Send a session message on this link, unless it was sent on it before (`framed`: its msg_frame, if made).
        `later`: it waits for the link's next write (whoever calls flush, or queues a frame without `later`)."""
        if wire not in self.sent:
            self.sent.add(wire)
            self._queue(framed if framed is not None else msg_frame(wire), later)

    def send_nowait(self, kind: str, payload: Any) -> None:
        """Queue a frame without waiting for the socket (order is kept; frames queued together go in one write)."""
        self._queue(frame([kind, payload]))

    def end_writing(self) -> None:
        """Send what is queued, then our end of the stream (FIN): the peer reads every byte we sent, our `bye` above
        all, before it sees the end. Closing a socket that still holds bytes it has not read resets the connection
        (RST), and a reset throws away what the socket had not sent yet: a `bye` waiting behind a busy peer's full
        window was lost so, and that peer waited the drop time for a player who had left (Node.close waits for the
        peer's end before closing)."""
        if self.closed or self.writing_ended:
            return
        self._flush()
        self.writing_ended = True
        if self.closed or not self.writer.can_write_eof():
            return
        try:
            self.writer.write_eof()  # after what the transport still buffers
        except (OSError, RuntimeError):
            pass

    @property
    def peer_ended(self) -> bool:
        """The peer's end (EOF) or the connection's loss has come."""
        return self._tap.ended

    def _queue(self, data: bytes, later: bool = False) -> None:
        if self.closed or self.writing_ended:
            return
        if not (self._soon or later):
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            loop.call_soon(self._flush)
            self._soon = True
        self._pending.append(data)

    @property
    def queued(self) -> bool:
        """Frames wait to be written."""
        return bool(self._pending)

    def _records_written(self) -> bool:
        """Whether the records the node holds are written (before_write), so that what they led to may leave. Not
        when they cannot be (a full disk): then nothing is sent on this link, nor on any other (the records stay
        held and each try fails again), and the node stops, its files saying why once."""
        if self.before_write is None:
            return True
        try:
            self.before_write()
        except OSError:
            return False
        return True

    def flush(self) -> None:
        """Write what is queued now, not at the event loop's next turn (after the records the node holds)."""
        self._flush()

    def _flush(self) -> None:
        self._soon = False
        data, self._pending = b"".join(self._pending), []
        if self.closed or not data:
            return
        if not self._records_written():
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
        """The next [kind, payload] frame; ConnectionFailed if the link is broken or the frame is not that shape.

        A frame already read from the socket is returned without waiting: a burst of frames costs one read.
        Each frame must arrive whole within the idle timeout of when we began waiting for it (as read_frame)."""
        data = self._buffered()
        if data is None:
            data = await self._read()
        return _parse(data)

    async def serve(self, handle: Callable[[str, Any], None],
                    burst: Callable[[], AbstractContextManager[Any]] | None = None) -> None:
        """Hand every frame of this link to `handle(kind, payload)`, in order, until the link ends: ConnectionFailed
        says why (as receive would have), or it returns once `handle` has closed the link.

        The frames are taken as the socket's bytes come in (the link's _Tap hands them over from the transport's
        callback), not by a task woken for each read: the frames of one read are handled in that read's callback,
        inside one `burst()` (the node holds its transcript's records over it: one write for them all). Frames
        already read (by receive, or by the stream before) come first.
        The limits, errors and idle timeout are receive's."""
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()
        if self.closed:
            return  # as a read loop `while not conn.closed` would
        tap, reader = self._tap, self.reader
        link = _Link(self, handle, burst, ended, loop)
        tap.link = link  # the socket's bytes go to the link from now on, the stream gets none
        # What the stream read from the socket and nobody took yet: told it has ended (nothing more will reach it), it
        # hands all of it over without waiting, and resumes the socket's reading if it had paused it (its limit).
        failed = reader.exception()
        pending = b""
        if failed is None:
            reader.feed_eof()
            pending = await reader.read()  # at its end: returns at once
        # else: a stream's read raises its exception before it hands over what it holds
        if failed is not None:
            why: ConnectionFailed | None = _lost(failed, self.idle_timeout)
        else:
            why = ConnectionFailed("connection closed") if tap.ended else None
        self._served = link
        link.waiting()
        if self._in.held or pending:
            link.data_received(pending)
        if why is not None:
            link.ended(why)
        try:
            await ended
        finally:
            link.stop()
            self._served = None
            self._deadline = None

    def _buffered(self) -> bytes | None:
        """The next whole frame's bytes among those read, or None; ConnectionFailed if its length is over the limit."""
        try:
            return self._in.frame(HEADER)
        except FrameTooLarge as exc:
            raise ConnectionFailed(str(exc)) from None

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + self.idle_timeout
        if self._watch is None:
            self._watch = loop.call_at(self._deadline, self._check_idle)
        try:
            while True:
                try:
                    chunk = await self.reader.read(READ_SIZE)
                except OSError as exc:  # (TimeoutError and ConnectionError among them)
                    raise _lost(exc, self.idle_timeout) from None
                if not chunk:
                    raise ConnectionFailed("connection closed")
                self._in.add(chunk)
                data = self._buffered()
                if data is not None:
                    return data
        finally:
            self._deadline = None

    def _check_idle(self) -> None:
        """The link's timer: a frame waited for past its deadline ends the wait (the read raises TimeoutError, a
        served link ends); otherwise the timer is set for the present wait's deadline, or a whole timeout on."""
        self._watch = None
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._deadline is not None and now >= self._deadline:
            if self._served is not None:
                self._served.ended(ConnectionFailed(f"nothing received for {self.idle_timeout:g} s"))
            else:
                self.reader.set_exception(TimeoutError())
            return
        self._watch = loop.call_at(self._deadline if self._deadline is not None else now + self.idle_timeout,
                                   self._check_idle)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if not self.closed:
            self._flush()
            self.closed = True
            self.writer.close()


async def say_bye(links: list[Connection], wait: float) -> None:
    """Leave: `bye` on every link, then our end of the stream (Connection.end_writing); each link is closed once
    its peer ended its side (it read all we sent) or after `wait` seconds, so that no bye is lost — neither to a
    reset nor in a buffer the process never sent before it ended."""
    for conn in links:
        conn.send_nowait("bye", None)
        conn.end_writing()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while loop.time() < deadline and not all(conn.peer_ended or conn.closed for conn in links):
        await asyncio.sleep(0.02)
    for conn in links:
        conn.close()


class _Tap(asyncio.BufferedProtocol):
    """A link's transport's protocol, put in front of its stream's (asyncio.StreamReaderProtocol) from the handshake
    on: it hands the stream everything (Connection.receive and read_frame read the stream) until serve() takes the
    link over; from then on the socket's bytes and its end go to the served link (_Link) instead. The stream's
    protocol is told all the rest it needs to stay whole (flow control for writes, the peer's end, the connection's
    loss: StreamWriter.drain, close and wait_closed keep working). It notes whether the peer's end has come."""

    __slots__ = ("stream", "link", "ended", "_space")

    def __init__(self, stream: asyncio.BaseProtocol) -> None:
        self.stream = stream
        self.link: _Link | None = None
        self.ended = False  # the peer's end (EOF) or the connection's loss has come
        # The socket is read into this, the link's own space, made once: a protocol that is not buffered has the
        # transport make a 256 KiB bytes object at every read and shrink it to what came (glibc: mmap, mremap and
        # munmap, three system calls and fresh pages a read, once its allocation history puts that size above
        # malloc's mmap threshold). 64 KiB (a whole frame at most, or many of a turn) keeps nine links' spaces at
        # 0.6 MB of a node's memory; what is larger comes in over several reads.
        self._space = memoryview(bytearray(LINK_SPACE))

    @classmethod
    def on(cls, writer: asyncio.StreamWriter) -> _Tap:
        """The tap on `writer`'s transport, put there now if it is not yet."""
        transport = writer.transport
        protocol = transport.get_protocol()
        if isinstance(protocol, _Tap):
            return protocol
        tap = cls(protocol)
        transport.set_protocol(tap)
        return tap

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._space

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(self._space[:nbytes].tobytes())

    def data_received(self, data: bytes) -> None:
        if self.link is not None:
            self.link.data_received(data)
        elif isinstance(self.stream, asyncio.Protocol):
            self.stream.data_received(data)

    def eof_received(self) -> bool | None:
        self.ended = True
        if self.link is not None:
            self.link.ended(ConnectionFailed("connection closed"))
        return self.stream.eof_received() if isinstance(self.stream, asyncio.Protocol) else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        if self.link is not None:
            self.link.ended(ConnectionFailed("connection closed" if exc is None else f"connection lost: {exc}"))
        self.stream.connection_lost(exc)

    def pause_writing(self) -> None:
        self.stream.pause_writing()

    def resume_writing(self) -> None:
        self.stream.resume_writing()


class _Link:
    """A served link (Connection.serve): the socket's bytes (from its _Tap) go to the Connection's frames, each
    whole frame to `handle`; the end of the link ends `ended`."""

    __slots__ = ("conn", "handle", "burst", "done", "loop")

    def __init__(self, conn: Connection, handle: Callable[[str, Any], None],
                 burst: Callable[[], AbstractContextManager[Any]] | None, ended: asyncio.Future[None],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.handle = handle
        self.burst = burst if burst is not None else nullcontext
        self.done = ended
        self.loop = loop  # serve()'s (asked once: not at each read)

    def waiting(self) -> None:
        """A wait for the next frame begins: it is due whole within the idle timeout (the link's timer checks)."""
        conn, loop = self.conn, self.loop
        conn._deadline = loop.time() + conn.idle_timeout
        if conn._watch is None:
            conn._watch = loop.call_at(conn._deadline, conn._check_idle)

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        if self.done.done():
            return
        conn._in.add(data)
        handled = False
        try:
            with self.burst():
                while not conn.closed:
                    whole = conn._buffered()
                    if whole is None:
                        break
                    handled = True
                    self.handle(*_parse(whole))
        except Exception as exc:  # ConnectionFailed: the link's end; anything else: as the read loop raised it
            self.ended(exc)
            return
        if conn.closed:
            self.ended(None)
        elif handled:
            self.waiting()

    def ended(self, why: BaseException | None) -> None:
        if not self.done.done():
            if why is None:
                self.done.set_result(None)
            else:
                self.done.set_exception(why)

    def stop(self) -> None:
        """serve() is over (the link ended, or the task was cancelled): frames that come now are not handled."""
        self.ended(None)

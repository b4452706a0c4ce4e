"""A raw-socket attacker on 127.0.0.1 only (from 127.0.0.1, or another loopback address as a second machine
would come from another address): it passes the real handshake with a fresh key (as any program on
the LAN can), then sends whatever frames it likes; no p2pnimmt code runs on its side but the framing.

    a = Attacker.dial(port)              # hello + auth as a dialer, with a fresh key (or `identity=`)
    a.join("spectator")                  # ask the host to watch; a.lobby() reads until a lobby frame
    a.send("refuse", "go away")          # any [kind, payload] frame
    a.signed("PLAY_COMMIT", {...}, seq)  # a message signed by its key for the game it shook hands in
    a.closed_by_peer()                   # True once the other side hung up
    Campaign(port, identity, attack)     # a thread: dial as `identity` again and again, `attack` each link

A member's key (a seat's) comes from the key file a real `p2pnimmt join` process wrote beside its transcript
(`member_key`): the attacker then shakes hands as that seat.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2pnimmt.net.connection import FRAME_LIMIT, HELLO, frame, transcript_of
from p2pnimmt.protocol.codec import decode, encode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, VERSION, seal
from p2pnimmt.protocol.identity import SIGNATURE_SIZE, Identity
from p2pnimmt.protocol.seatkey import join_proof, seat_secret

LOOPBACK = "127.0.0.1"  # the only address an attacker of these tests ever dials or binds


class RawLink:
    """A plain TCP connection to a node's port on 127.0.0.1, framed like p2pnimmt's and nothing more (no
    handshake: what any program on the LAN can open)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    @classmethod
    def connect(cls, port: int, timeout: float = 10.0) -> RawLink:
        return cls(socket.create_connection((LOOPBACK, port), timeout=timeout))

    def raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_frame(self) -> Any:
        size = int.from_bytes(self._read(4), "big")
        assert size <= FRAME_LIMIT
        return decode(self._read(size), FRAME_LIMIT)

    def hello(self) -> list:
        """The listener speaks first: its hello [HELLO, 1, game id, key, nonce]."""
        hello = self.read_frame()
        assert isinstance(hello, list) and hello[0] == HELLO, hello
        return hello

    def frames_waiting(self) -> list[Any]:
        """The frames that have arrived whole so far, without waiting for more."""
        self.sock.setblocking(False)
        try:
            while True:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise EOFError("closed")
                self.buffer += chunk
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)
        frames = []
        while len(self.buffer) >= 4:
            size = int.from_bytes(self.buffer[:4], "big")
            if len(self.buffer) < 4 + size:
                break
            frames.append(decode(self.buffer[4:4 + size], FRAME_LIMIT))
            self.buffer = self.buffer[4 + size:]
        return frames

    def closed_by_peer(self, timeout: float = 15.0) -> bool:
        """True once the other side has closed (EOF after whatever it still had to say)."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
        except (ConnectionResetError, BrokenPipeError):
            pass
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self.sock.close()


class Attacker(RawLink):
    """One authenticated connection to a node's port on 127.0.0.1."""

    def __init__(self, sock: socket.socket, identity: Identity, game_id: bytes, their_key: bytes) -> None:
        super().__init__(sock)
        self.identity = identity
        self.game_id = game_id
        self.their_key = their_key
        self.nonces = (b"", b"")  # ours, the listener's: what a join's seat-key proof is bound to

    @classmethod
    def try_dial(cls, port: int, identity: Identity | None = None, timeout: float = 10.0) -> Attacker | None:
        """`dial`, or None if the node hung up during the handshake (it refuses this key now)."""
        try:
            return cls.dial(port, identity, timeout)
        except (EOFError, ConnectionResetError, BrokenPipeError):
            return None

    @classmethod
    def dial(cls, port: int, identity: Identity | None = None, timeout: float = 10.0,
             source: str = LOOPBACK) -> Attacker:
        """Connect to 127.0.0.1:port (from `source`, a loopback address) and complete the handshake (the listener
        speaks first)."""
        assert source.startswith("127."), source
        me = identity or Identity.generate()
        sock = socket.create_connection((LOOPBACK, port), timeout=timeout, source_address=(source, 0))
        a = cls(sock, me, b"", b"")
        try:
            _, _, game_id, their_key, their_nonce = a.hello()
            nonce = secrets.token_bytes(16)
            a.raw(frame([HELLO, 1, game_id, me.public_key, nonce]))
            a.raw(frame(["auth", me.sign(transcript_of(game_id, nonce, their_nonce, me.public_key, their_key))]))
            auth = a.read_frame()
        except BaseException:
            sock.close()
            raise
        assert auth[0] == "auth", auth
        a.game_id, a.their_key, a.nonces = game_id, their_key, (nonce, their_nonce)
        return a

    # ----------------------------------------------------------------- bytes

    def send(self, kind: str, payload: Any) -> None:
        self.raw(frame([kind, payload]))

    @staticmethod
    def frame_bytes(kind: str, payload: Any) -> bytes:
        return frame([kind, payload])

    def until(self, kind: str, timeout: float = 10.0) -> Any:
        """Read frames until one of `kind`; its payload."""
        self.sock.settimeout(timeout)
        while True:
            got = self.read_frame()
            if got[0] == kind:
                return got[1]

    # ----------------------------------------------------------------- lobby and messages

    def join(self, role: str = "spectator", name: str = "mallory", port: int = 1, seat_key: str | None = None,
             relay: list | None = None) -> None:
        """Ask the host for a seat (or to watch), proving `seat_key` as an honest joiner does (protocol.md 14: a
        friend who has the key and misbehaves); without it, as a stranger who never saw the host's screen.
        `relay`: the phone relay it says its node serves."""
        payload: dict[str, Any] = {"name": name, "role": role, "bot": False, "port": port}
        if relay is not None:
            payload["relay"] = relay
        if seat_key is not None:
            secret = seat_secret(self.game_id, seat_key)
            payload["proof"] = join_proof(secret, self.game_id, *self.nonces, self.identity.public_key)
        self.send("join", payload)

    def lobby(self, timeout: float = 10.0) -> dict:
        return self.until("lobby", timeout)

    def signed(self, kind: str, body: dict[str, Any], seq: int = 0, prev: bytes = NO_PREVIOUS) -> bytes:
        """Wire bytes of a message signed by this attacker's key for the game of its handshake."""
        return seal(self.identity, self.game_id, seq, prev, kind, body).wire

    def padded(self, seq: int, size: int = 60_000) -> bytes:
        """A signed message of about `size` bytes (a body no kind allows: held only while START is unknown)."""
        return self.signed("PLAY_COMMIT", {"pad": b"\x00" * size}, seq)

    def forged(self, sender: bytes, seq: int, size: int = 60_000) -> bytes:
        """Wire bytes shaped like `sender`'s message #seq for this game, about `size` bytes long, with a
        signature nobody made (fresh random bytes): each one distinct, and each fails the signature check."""
        signed = encode([VERSION, self.game_id, sender, seq, NO_PREVIOUS, "PLAY_COMMIT", {"pad": bytes(size)}])
        return encode([signed, secrets.token_bytes(SIGNATURE_SIZE)])


def member_key(transcript: Path) -> Identity:
    """The key of the seat whose `p2pnimmt join` process writes `transcript` (its key file, beside it)."""
    return Identity(transcript.with_name(transcript.name + ".key").read_bytes())


def member_ports(host_port: int, identity: Identity, port: int, names: tuple[str, ...]) -> dict[str, int]:
    """The listening ports of the lobby's members called `names`, from the lobby frame the host sends when the
    seat `identity` joins again (as a seat that lost its link does) saying it listens on `port`."""
    link = Attacker.dial(host_port, identity)
    try:
        link.join("player", name="again", port=port)
        lobby = link.lobby(30)
    finally:
        link.close()
    return {m["name"]: m["port"] for m in lobby["members"] if m["name"] in names}


def forged_flood(size: int = 60_000, sender: bytes | None = None) -> Callable[[Attacker, threading.Event], None]:
    """A Campaign's attack: msg frames forged as `sender`'s (default: the attacker's own seat), each distinct,
    none validly signed, as fast as the link takes them (what comes back is read, so we are never cut for
    not reading)."""
    def attack(link: Attacker, stop: threading.Event) -> None:
        seq = 1 << 20
        while not stop.is_set():
            batch = []
            for _ in range(8):
                seq += 1
                batch.append(link.frame_bytes("msg", link.forged(sender or link.identity.peer, seq, size)))
            link.raw(b"".join(batch))
            link.frames_waiting()
    return attack


def replay_flood(pool: dict[bytes, None]) -> Callable[[Attacker, threading.Event], None]:
    """A Campaign's attack: ["heads", []] (we hold nothing, so the node sends us the whole game so far), then
    every message received (kept in `pool`, shared by the campaigns) sent back again and again."""
    def attack(link: Attacker, stop: threading.Event) -> None:
        link.send("heads", [])
        link.sock.settimeout(10)
        while not stop.is_set():
            for kind, payload in link.frames_waiting():
                if kind == "msg" and isinstance(payload, bytes):
                    pool.setdefault(payload, None)
            wires = list(pool)
            if not wires:
                kind, payload = link.read_frame()
                if kind == "msg" and isinstance(payload, bytes):
                    pool.setdefault(payload, None)
                continue
            link.raw(b"".join(link.frame_bytes("msg", wire) for wire in wires))
    return attack


class Campaign(threading.Thread):
    """Dial 127.0.0.1:port as `identity` again and again until stopped: each time the handshake completes
    (`accepted`: when, by time.monotonic) `attack(link)` runs until the node hangs up; each time the node hangs
    up during the handshake (it refuses the key now) is counted in `refused`. Redials at once, as a flood
    would. `attack` returns normally or raises OSError/EOFError when the link is cut; `stop` ends it all."""

    def __init__(self, port: int, identity: Identity, attack: Callable[[Attacker, threading.Event], None]) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.identity = identity
        self.attack = attack
        self.stop = threading.Event()
        self.accepted: list[float] = []
        self.refused = 0
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                link = Attacker.try_dial(self.port, self.identity)
            except OSError as exc:  # the node is gone (its game is over)
                self.errors.append(f"dial: {exc}")
                if self.stop.wait(0.05):
                    return
                continue
            if link is None:
                self.refused += 1
                continue
            self.accepted.append(time.monotonic())
            try:
                self.attack(link, self.stop)
            except (OSError, EOFError):
                pass
            finally:
                link.close()

    def finish(self) -> None:
        self.stop.set()
        self.join(30)


class Listener:
    """A socket the attacker listens on (127.0.0.1, a free port) to see whether a victim dials it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((LOOPBACK, 0))
        self.sock.listen(64)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def dials(self) -> int:
        """Connections that reached this socket so far."""
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1

    def close(self) -> None:
        self.sock.close()


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for pid {pid}")


def rss_mb(pid: int) -> float:
    """The process's resident memory now (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for pid {pid}")

"""A raw-socket attacker on 127.0.0.1 only: it passes the real handshake with a fresh key (as any program on
the LAN can), then sends whatever frames it likes; no p2pnimmt code runs on its side but the framing.

    a = Attacker.dial(port)              # hello + auth as a dialer, with a fresh key (or `identity=`)
    a.join("spectator")                  # ask the host to watch; a.lobby() reads until a lobby frame
    a.send("refuse", "go away")          # any [kind, payload] frame
    a.signed("PLAY_COMMIT", {...}, seq)  # a message signed by its key for the game it shook hands in
    a.closed_by_peer()                   # True once the other side hung up
"""

from __future__ import annotations

import secrets
import socket
from pathlib import Path
from typing import Any

from p2pnimmt.net.connection import FRAME_LIMIT, HELLO, frame, transcript_of
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.identity import Identity

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

    @classmethod
    def dial(cls, port: int, identity: Identity | None = None, timeout: float = 10.0) -> Attacker:
        """Connect to 127.0.0.1:port and complete the handshake (the listener speaks first)."""
        me = identity or Identity.generate()
        sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
        a = cls(sock, me, b"", b"")
        _, _, game_id, their_key, their_nonce = a.hello()
        nonce = secrets.token_bytes(16)
        a.raw(frame([HELLO, 1, game_id, me.public_key, nonce]))
        a.raw(frame(["auth", me.sign(transcript_of(game_id, nonce, their_nonce, me.public_key, their_key))]))
        auth = a.read_frame()
        assert auth[0] == "auth", auth
        a.game_id, a.their_key = game_id, their_key
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

    def join(self, role: str = "spectator", name: str = "mallory", port: int = 1) -> None:
        self.send("join", {"name": name, "role": role, "bot": False, "port": port})

    def lobby(self, timeout: float = 10.0) -> dict:
        return self.until("lobby", timeout)

    def signed(self, kind: str, body: dict[str, Any], seq: int = 0, prev: bytes = NO_PREVIOUS) -> bytes:
        """Wire bytes of a message signed by this attacker's key for the game of its handshake."""
        return seal(self.identity, self.game_id, seq, prev, kind, body).wire

    def padded(self, seq: int, size: int = 60_000) -> bytes:
        """A signed message of about `size` bytes (a body no kind allows: held only while START is unknown)."""
        return self.signed("PLAY_COMMIT", {"pad": b"\x00" * size}, seq)


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

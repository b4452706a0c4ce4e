"""A resumed seat takes as its host only the START's signer (red team, session 29). A seat resumes by dialling its
host where it last reached it; before, whoever answered there with the game's id (anyone can read it off the
host's mDNS advertisement) passed for the host: the seat sent it its `join` (its name, its addresses) and took its
`lobby` frames (the members a node dials and sends the game to). Now the handshake must prove the START's signer's
key, else nothing is sent and `resume` says who answered. Real processes on 127.0.0.1; the stranger listens at the
killed host's port."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import threading
from pathlib import Path

from attacker import LOOPBACK, RawLink
from deadlines import OUTER

from p2pnimmt.net.connection import HELLO, frame, transcript_of
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.protocol.transcript import replay_wires

LO = ["--interface", "127.0.0.1"]
PEER = ["--drop-after", "0", "--bot-delay", "0.3", "--give-up", "60"]


class FakeHost(threading.Thread):
    """Listens at `port` on 127.0.0.1 and passes the handshake as the listener for game `game_id` with a key of its
    own; keeps every frame a dialler sends it."""

    def __init__(self, port: int, game_id: bytes) -> None:
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((LOOPBACK, port))
        self.sock.listen(8)
        self.sock.settimeout(OUTER)
        self.game_id = game_id
        self.identity = Identity.generate()
        self.frames: list = []
        self.dialled = threading.Event()

    def run(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        self.dialled.set()
        link = RawLink(conn)
        try:
            nonce = secrets.token_bytes(16)
            link.raw(frame([HELLO, 1, self.game_id, self.identity.public_key, nonce]))
            _, _, _, their_key, their_nonce = link.hello()
            link.read_frame()  # their auth
            link.raw(frame(["auth", self.identity.sign(transcript_of(self.game_id, their_nonce, nonce, their_key,
                                                                     self.identity.public_key))]))
            while True:
                self.frames.append(link.read_frame())
        except (EOFError, OSError, AssertionError):
            pass
        finally:
            link.close()

    def close(self) -> None:
        self.sock.close()


def test_a_resumed_seat_sends_nothing_to_a_stranger_at_its_hosts_address(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", "--rounds", "3", "--no-points", *LO, *PEER, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    bob = procs(["join", code, "--headless", *LO, *PEER, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
                tmp_path / "bob.out")
    bob.wait_for(r"round 1: ")
    for proc in (bob, host):
        os.kill(proc.popen.pid, signal.SIGKILL)
        proc.popen.wait()
    ann_key = Identity((tmp_path / "host.p2pt.key").read_bytes())
    game_id = open_envelope(replay_wires((tmp_path / "bob.p2pt").read_bytes())[0]).game_id  # (also in the host's ad)
    stranger = FakeHost(port, game_id)
    stranger.start()
    try:
        resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--headless", *LO, *PEER],
                        tmp_path / "bob.resume.out")
        assert resumed.finish(OUTER) == 1, resumed.text()
        assert stranger.dialled.is_set()
    finally:
        stranger.close()
        stranger.join(OUTER)
    text = resumed.text()
    assert not [f for f in stranger.frames if f[0] == "join"], stranger.frames
    assert f"answers as {fingerprint(stranger.identity.peer)}, not as the host" in text, text
    assert fingerprint(ann_key.peer) in text, text

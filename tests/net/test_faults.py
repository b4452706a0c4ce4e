"""Faults at the network edge, over loopback only (127.0.0.1): strangers on the host's TCP port, a full table.

Every case runs a real `p2pnimmt host` process; a stranger (this test, with
plain sockets) connects to the port it prints and misbehaves. The host must
refuse the stranger with a logged reason (warnings go to stderr, merged into
the .out file), keep running, and still play a whole game with a real joiner
afterwards.

Not tested here: a joiner killed mid-game (SIGKILL). That is a stall of its
seat, handled by `p2pnimmt resume` and by the others' vote to drop a silent
player; see tests/net/test_resume_drop.py.
"""

from __future__ import annotations

import re
import secrets
import socket
from pathlib import Path

import pytest
from attacker import LOOPBACK, Attacker, RawLink
from procs import code_of, final_scores, game_of, seat_key_of

from p2pnimmt.net.connection import ANY_GAME, HANDSHAKE_TIMEOUT, HELLO, frame, transcript_of
from p2pnimmt.net.door import PER_ADDRESS
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", LOOPBACK]
SHORT = ["--rounds", "1", "--no-points"]


def wrong_auth_by_swapping_roles(s: RawLink) -> None:
    """A real key, a real signature, but over the transcript of the listener's side, not the dialer's."""
    me = Identity.generate()
    _, _, game_id, host_key, host_nonce = s.hello()
    nonce = secrets.token_bytes(16)
    s.raw(frame([HELLO, 1, game_id, me.public_key, nonce]))
    s.raw(frame(["auth", me.sign(transcript_of(game_id, host_nonce, nonce, host_key, me.public_key))]))


def auth_signed_by_another_key(s: RawLink) -> None:
    """Claims one key in the hello and signs with another (impersonation)."""
    claimed, signer = Identity.generate(), Identity.generate()
    _, _, game_id, host_key, host_nonce = s.hello()
    nonce = secrets.token_bytes(16)
    s.raw(frame([HELLO, 1, ANY_GAME, claimed.public_key, nonce]))
    s.raw(frame(["auth", signer.sign(transcript_of(game_id, nonce, host_nonce, claimed.public_key, host_key))]))


def zero_signature(s: RawLink) -> None:
    me = Identity.generate()
    s.hello()
    s.raw(frame([HELLO, 1, ANY_GAME, me.public_key, secrets.token_bytes(16)]))
    s.raw(frame(["auth", bytes(64)]))


# name -> (what the stranger does, the reason the host must log)
ATTACKS = {
    "garbage-msgpack": (lambda s: s.raw(b"\x00\x00\x00\x05" + b"\xc1" * 5),
                        r"bad frame: not valid msgpack: FormatError \(a reserved or invalid type byte\)"),
    "http-request": (lambda s: s.raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
                     r"frame of \d+ bytes is over the \d+-byte limit"),
    "oversized-frame": (lambda s: s.raw((2**31).to_bytes(4, "big") + b"\x00" * 64),
                        r"frame of 2147483648 bytes is over the \d+-byte limit"),
    "bad-hello": (lambda s: s.raw(frame(["hello", 1])), r"not a p2pnimmt peer: it did not say a p2pnimmt hello"),
    "hello-wrong-version": (lambda s: s.raw(frame([HELLO, 2, ANY_GAME, Identity.generate().public_key,
                                                    secrets.token_bytes(16)])),
                            r"the peer speaks handshake version 2, not 1"),
    "hello-other-game": (lambda s: s.raw(frame([HELLO, 1, secrets.token_bytes(16), Identity.generate().public_key,
                                                 secrets.token_bytes(16)])), r"the peer is in another game"),
    "hello-malformed-key": (lambda s: s.raw(frame([HELLO, 1, ANY_GAME, b"short", secrets.token_bytes(16)])),
                            r"malformed key or nonce"),
    "auth-zero-signature": (zero_signature, r"handshake signature does not verify"),
    "auth-roles-swapped": (wrong_auth_by_swapping_roles, r"handshake signature does not verify"),
    "auth-other-key": (auth_signed_by_another_key, r"handshake signature does not verify"),
    "half-frame-then-close": (lambda s: (s.raw(b"\x00\x00\x01\x00" + b"\x90" * 10), s.sock.shutdown(socket.SHUT_WR)),
                              r"connection closed"),
    "silent": (lambda s: None, rf"nothing received for {HANDSHAKE_TIMEOUT:g} s"),
}


def start_host(procs, tmp_path: Path, seats: int = 2, extra: list[str] = SHORT):
    host = procs(["host", "--headless", "--seats", str(seats), *LO, "--name", "ann", *extra,
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    return host, code, port


def joiner(procs, tmp_path: Path, port: int, name: str):
    return procs(["join", code_of(tmp_path / "host.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, "--name", name,
                  "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_host_refuses_a_misbehaving_stranger_and_plays_on(tmp_path: Path, procs, attack: str) -> None:
    act, reason = ATTACKS[attack]
    host, _, port = start_host(procs, tmp_path)
    stranger = RawLink.connect(port)
    try:
        act(stranger)
        assert stranger.closed_by_peer(HANDSHAKE_TIMEOUT + 5), "the host kept the stranger's connection open"
    finally:
        stranger.close()
    line = host.wait_for(rf"WARNING p2pnimmt\.net: refused a connection from \('127\.0\.0\.1', \d+\): .*{reason}",
                         timeout=HANDSHAKE_TIMEOUT + 5)
    assert line
    assert host.popen.poll() is None, host.text()
    assert "lobby:" not in host.text()  # the stranger took no seat
    # The host still plays a whole game with a real joiner.
    player = joiner(procs, tmp_path, port, "j1")
    assert player.finish(60) == 0, player.text()
    assert host.finish(60) == 0, host.text()
    assert final_scores(player.text()) == final_scores(host.text())
    for name in ("host", "j1"):
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
    assert "Traceback" not in host.text(), host.text()


def test_many_strangers_at_once_do_not_block_the_lobby(tmp_path: Path, procs) -> None:
    """Silent and garbage connections held open during the handshake window do not keep a joiner out. (Since
    session 30 from an address of their own, 127.0.0.7: from one address PER_ADDRESS wait at most, the rest are
    reset at the door, test_connect_flood.py.)"""
    host, _, port = start_host(procs, tmp_path)
    strangers = [RawLink(socket.create_connection((LOOPBACK, port), timeout=10, source_address=("127.0.0.7", 0)))
                 for _ in range(PER_ADDRESS)]
    try:
        for k, s in enumerate(strangers):
            if k % 2:
                s.raw(b"\x00\x00\x00\x10" + b"\xc1")  # a frame that never completes
        player = joiner(procs, tmp_path, port, "j1")
        player.wait_for("game started", timeout=HANDSHAKE_TIMEOUT - 1)  # before the strangers time out
        assert player.finish(60) == 0, player.text()
    finally:
        for s in strangers:
            s.close()
    assert host.finish(60) == 0, host.text()
    assert final_scores(player.text()) == final_scores(host.text())


def test_authenticated_stranger_sending_junk_frames_is_harmless(tmp_path: Path, procs) -> None:
    """Someone who passes the handshake (anyone on the LAN can) and joins as a spectator (a member), then
    sends a msg without bytes, bytes that are no message, odd heads, lobby and refuse frames (the host
    takes them from no one), unknown kinds and at last a join that is not a map: the host logs what it can,
    refuses the bad join (closing the link), keeps running, and the game with a real joiner completes.
    (A stranger that has not joined is cut off at its first frame that is not a join: test_membership.)
    Since session 34 (protocol.md 14, "The seat key") a stranger without the key is refused at its join, so the
    junk comes from one who has it (a friend who runs a modified client)."""
    host, code, port = start_host(procs, tmp_path)
    stranger = Attacker.dial(port)
    try:
        stranger.join("spectator", name="junk")  # no seat key: refused, the link closed
        assert stranger.until("refuse").startswith("the seat key is missing")
        assert stranger.closed_by_peer(HANDSHAKE_TIMEOUT + 5)
    finally:
        stranger.close()
    s = Attacker.dial(port)
    try:
        s.join("spectator", name="junk", seat_key=seat_key_of(code))
        for junk in (["msg", "not bytes"], ["msg", b"\xc1\xc1"], ["msg", b""], ["heads", "x"],
                     ["heads", [[b"x" * 16, -1], [1, 2], "z"]], ["lobby", {"members": [1]}], ["refuse", "ha"],
                     ["nonsense", None], ["bye", None], ["join", {"name": 5}], ["join", "not a map"]):
            s.raw(frame(junk))
        host.wait_for(r"a msg frame without bytes")
        host.wait_for(r"ignored a lobby frame from .*: only the host's link may send one")
        host.wait_for(r"ignored a refuse frame from")
        host.wait_for(r"unknown frame kind 'nonsense'")
        assert s.closed_by_peer(HANDSHAKE_TIMEOUT + 5), "the host kept the link after a malformed join"
        assert host.popen.poll() is None, host.text()
        player = joiner(procs, tmp_path, port, "j1")
        assert player.finish(60) == 0, player.text()
        assert host.finish(60) == 0, host.text()
    finally:
        s.close()
    assert final_scores(player.text()) == final_scores(host.text())
    assert "Traceback" not in host.text(), host.text()
    for name in ("host", "j1"):
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())


def test_spectator_joining_mid_game_catches_up_without_accusations(tmp_path: Path, procs) -> None:
    """`watch` joins a game that is already running (by address): it catches up through heads resync, ends
    with the players' result and a verifying transcript, and accuses nobody.

    Was a bug (fixed: a message is never sent twice on one link): on every new link Node._link sends "heads" and then the host at once
    sends live messages on it; when the spectator's heads (sent before those live messages arrived)
    reach the host, missing_for() resends them, so the spectator holds two direct copies from their
    sender and records fault `replay` ("seat 0 (ann) sent its message #K (...) again") against an honest
    player (WARNING in its log, a fault record in its transcript).
    """
    host, code, port = start_host(procs, tmp_path, extra=["--rounds", "20", "--no-points"])
    player = joiner(procs, tmp_path, port, "j1")
    host.wait_for(r"round 2: ")
    watcher = procs(["watch", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO,
                     "--transcript", str(tmp_path / "watch.p2pt")], tmp_path / "watch.out")
    for proc in (host, player, watcher):
        assert proc.finish(60) == 0, proc.text()
    assert final_scores(watcher.text()) == final_scores(host.text()) == final_scores(player.text())
    verdict = verify_transcript((tmp_path / "watch.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert not verdict.faults_recorded and "fault:" not in watcher.text(), (verdict.faults_recorded, watcher.text())


def test_lobby_refuses_a_player_when_the_table_is_full(tmp_path: Path, procs) -> None:
    """--seats 2: the first joiner fills the table (the game starts at once); a second is refused and exits 1."""
    host, _, port = start_host(procs, tmp_path, extra=["--rounds", "20", "--no-points"])
    first = joiner(procs, tmp_path, port, "j1")
    first.wait_for("game started")
    second = joiner(procs, tmp_path, port, "j2")
    assert second.finish(30) == 1, second.text()
    assert re.search(r"refused by the host: the (table is full|game has started)", second.text()), second.text()
    assert "the game has started" in second.text()  # the table fills and the game starts in the same step
    assert host.popen.poll() is None or host.popen.returncode == 0
    assert first.finish(60) == 0, first.text()
    assert host.finish(60) == 0, host.text()
    assert final_scores(first.text()) == final_scores(host.text())
    assert "j2" not in final_scores(host.text())


def test_refused_joiner_is_disconnected_and_not_fed_the_game(tmp_path: Path, procs) -> None:
    """A player the host refused has no seat and did not ask to watch: after ["refuse", reason] the host
    closes the link and sends it no game messages.

    Was a bug (fixed: a refusal closes the link): Node._join only queued ["refuse", ...] and leaves the connection in `links`, so the host
    goes on broadcasting every game message to the refused peer and keeps the link open (its linger then
    also waits for that peer's bye). Visible with the real CLI too: a refused `join` prints "refused by
    the host: the game has started", then "game started: ... (you: spectator)", writes the game into
    its transcript and may log spurious `replay` faults before it exits 1.
    """
    host, code, port = start_host(procs, tmp_path, extra=["--rounds", "20", "--no-points"])
    first = joiner(procs, tmp_path, port, "j1")
    first.wait_for("game started")
    s = Attacker.dial(port)
    try:
        s.join("player", name="late", seat_key=seat_key_of(code))  # with the key: refused for the game, not the key
        s.sock.settimeout(10)
        while (got := s.read_frame())[0] != "refuse":  # "heads", "lobby" and live game messages may come first
            pass
        assert got[1] == "the game has started", got
        after: list[str] = []
        s.sock.settimeout(2.0)
        try:
            while len(after) < 1000:
                after.append(s.read_frame()[0])
            closed = False
        except EOFError:
            closed = True
        except TimeoutError:
            closed = False
    finally:
        s.close()
    assert first.finish(60) == 0 and host.finish(60) == 0
    assert closed and "msg" not in after, (
        f"after refusing, the host {'closed' if closed else 'kept'} the link and sent {len(after)} more frames "
        f"({after.count('msg')} game messages)")


def test_join_with_a_wrong_code_at_an_address_is_refused(tmp_path: Path, procs) -> None:
    """`join ABCD --peer HOST:PORT` checks the code too: the address holds another game, and the joiner says so."""
    host, code, port = start_host(procs, tmp_path)
    wrong = "ZZZZ" if game_of(code) != "ZZZZ" else "YYYY"
    out = procs(["join", f"{wrong}-{seat_key_of(code)}", "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    assert out.finish(30) == 1
    assert f"has code {game_of(code)}, not {wrong}" in out.text() and "Traceback" not in out.text()
    player = joiner(procs, tmp_path, port, "j1")  # the right code still joins, and the game is played
    assert player.finish(60) == 0 and host.finish(60) == 0, player.text() + host.text()


def test_peer_at_a_server_that_is_not_p2pnimmt_says_so(tmp_path: Path, procs) -> None:
    """`join CODE --peer` at a web server (it answers in HTTP, not a hello): "not a p2pnimmt peer", not the size
    of a frame that never was."""
    import socket
    import threading

    server = socket.socket()
    server.bind((LOOPBACK, 0))
    server.listen()
    port = server.getsockname()[1]

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(1024)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    try:
        out = procs(["join", "ABCD-7Q2K", "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, "--name", "bob",
                     "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
        assert out.finish(30) == 1
        assert "not a p2pnimmt peer" in out.text() and "Traceback" not in out.text(), out.text()
    finally:
        server.close()

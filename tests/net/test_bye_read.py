"""A node that leaves says `bye` on every link (protocol.md 14) and the peer reads it, however far behind the peer's
reading is: the bye waits behind what the link still has to send, then the stream's end, and the link is closed
only once the peer ended its side (net.connection.say_bye, Node.close). Before, the link was closed at once: a bye
behind a busy peer's full window stayed in the leaving process's buffer when it ended, or went down with the reset
that closing a socket with unread bytes sends, and the others waited the drop time for a player who had left
(tests/net/test_leaving.py failed so in CI under load: dropped after 60.8 s).

Real sockets on 127.0.0.1: the leaving side runs its own event loop in a thread and ends it as a process would."""

from __future__ import annotations

import asyncio
import socket
import threading

from p2pnimmt.net.connection import Connection, frame, say_bye

BULK = frame(["ping", b"x" * 60_000])  # a frame of ~60 KB: 100 of them fill both sockets' buffers many times


def test_a_bye_reaches_a_peer_that_reads_late_and_keeps_sending() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    left = threading.Event()
    failure: list[BaseException] = []

    async def leaver() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        conn = Connection(reader, writer, bytes(32), bytes(16))
        served = asyncio.ensure_future(conn.serve(lambda kind, payload: None))
        for _ in range(100):
            conn.send_nowait("ping", b"x" * 60_000)  # 6 MB the peer does not read yet
        await asyncio.sleep(0.2)
        await say_bye([conn], 5.0)
        served.cancel()
        left.set()

    def run() -> None:
        try:
            asyncio.run(leaver())  # then the loop ends, as the process of a node that left does
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    peer, _ = listener.accept()
    peer.settimeout(15)
    peer.sendall(BULK * 20)  # the peer keeps sending meanwhile (a game goes on)
    left.wait(0.5)  # the leaver's bye is queued behind 6 MB by now; the peer reads only now
    received = bytearray()
    why = "the stream's end"
    try:
        while chunk := peer.recv(1 << 20):
            received += chunk
    except OSError as exc:
        why = repr(exc)
    peer.close()
    thread.join(15)
    listener.close()
    assert not failure, failure
    assert not thread.is_alive()
    bye = frame(["bye", None])
    assert received.endswith(bye), f"{len(received)} bytes read, then {why}; the last: {bytes(received[-16:])!r}"
    assert len(received) == 100 * len(BULK) + len(bye)

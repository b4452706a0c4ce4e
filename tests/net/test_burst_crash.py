"""A process killed in the middle of a burst of frames leaves a transcript of whole records only, and every message
it let out is in it.

A child process reads five session messages from a link in one burst (Connection.serve, with Node.burst's hold of
its TranscriptJournal on a real file) and records each as the session does (a hold and a flush per input); at the
fourth it kills itself (SIGKILL). Held over the burst, none of the records is written. In the second case it
sends the second message on to us (a link on 127.0.0.1 we listen on) and closes that link at once, so the bytes
leave in the middle of the burst: the records held until then are written first (Connection.before_write), so
what we received is in its transcript.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from p2pnimmt.net.connection import msg_frame
from p2pnimmt.net.files import torn_tail
from p2pnimmt.protocol.transcript import records

CHILD = r'''
import asyncio, os, signal, sys
from pathlib import Path
from p2pnimmt.net.connection import Connection, msg_frame
from p2pnimmt.net.files import AppendFile
from p2pnimmt.protocol.transcript import TranscriptJournal

path, mode, port = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
journal = TranscriptJournal(AppendFile(path).write)


class Burst:  # what Node.burst does
    def __enter__(self):
        journal.hold()

    def __exit__(self, *exc):
        journal.flush()


async def main():
    ends = asyncio.Queue()

    async def accepted(reader, writer):
        await ends.put(writer)

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    other = await ends.get()
    conn = Connection(reader, writer, bytes(32), bytes(16))
    out_reader, out_writer = await asyncio.open_connection("127.0.0.1", port)
    out = Connection(out_reader, out_writer, bytes(32), bytes(16))
    out.before_write = journal.write_held  # as Mesh.link sets it
    burst = b"".join(msg_frame(b"m%d" % i) for i in range(5))
    other.write(burst)
    while len(reader._buffer) < len(burst):  # the five frames come in one read of serve's
        await asyncio.sleep(0.005)

    def handle(kind, payload):
        journal.hold()  # as Session._run does for each input
        journal.message(payload)
        journal.flush()
        if mode == "send" and payload == b"m1":
            out.send_message(payload)
            out.close()  # its frames leave now, in the middle of the burst
        if payload == b"m3":
            os.kill(os.getpid(), signal.SIGKILL)

    await conn.serve(handle, Burst)

asyncio.run(main())
'''


@pytest.mark.parametrize("mode", ["hold", "send"])
def test_killed_mid_burst(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "t.p2pt"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(30)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), mode, str(listener.getsockname()[1])],
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    received = b""
    try:
        link, _ = listener.accept()
        link.settimeout(30)
        while chunk := link.recv(65536):
            received += chunk
        link.close()
        assert child.wait(30) == -signal.SIGKILL
    finally:
        child.kill()
        listener.close()
    data = path.read_bytes()
    assert torn_tail(data) is None
    written = [payload for kind, payload in records(data) if kind == "msg"]
    if mode == "hold":
        assert received == b"" and written == []  # the burst's records were held: none written, none torn
    else:
        assert received == msg_frame(b"m1")
        assert written == [b"m0", b"m1"]  # written before m1 left; m2 (handled after) is not

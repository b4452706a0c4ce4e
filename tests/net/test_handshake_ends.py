"""How a dialer's handshake ends when the other end is no p2pnimmt peer, or goes before its hello: a link that closed
is Unanswered (worth dialling again: a listener cut under a flood), bytes that are no frame of ours are "not a
p2pnimmt peer" (no redial), and a listener's own handshake is never Unanswered. The kind travels as the exception's
class (connection.LinkLost, connection.BadFrame), not in its words. Real TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from p2pnimmt.net.connection import Connection, ConnectionFailed, Unanswered
from p2pnimmt.protocol.identity import Identity


async def dial_one(answer: bytes | None, dialer: bool = True) -> ConnectionFailed:
    """The failure of a handshake whose other end writes `answer` (None: nothing) and closes."""

    async def other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if answer:
            writer.write(answer)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(other, "127.0.0.1", 0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        with pytest.raises(ConnectionFailed) as failed:
            await Connection.open(reader, writer, Identity.generate(), bytes(16) if not dialer else None, dialer)
        return failed.value
    finally:
        server.close()
        await server.wait_closed()


async def test_a_link_closed_before_the_hello_is_unanswered_for_a_dialer_only() -> None:
    gone = ("connection closed", "connection lost: ")  # (lost: a reset, our hello unread)
    closed = await dial_one(None)
    assert isinstance(closed, Unanswered) and str(closed).startswith(gone), repr(closed)
    listened = await dial_one(None, dialer=False)
    assert not isinstance(listened, Unanswered) and str(listened).startswith(gone), repr(listened)


async def test_bytes_that_are_no_frame_say_not_a_p2pnimmt_peer() -> None:
    http = await dial_one(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    assert not isinstance(http, Unanswered), repr(http)
    assert str(http).startswith("not a p2pnimmt peer (its first bytes are no p2pnimmt hello: frame of "), str(http)
    junk = await dial_one(b"\x00\x00\x00\x01\xc1")  # a frame of one byte that is no msgpack
    assert not isinstance(junk, Unanswered), repr(junk)
    assert str(junk).startswith("not a p2pnimmt peer (its first bytes are no p2pnimmt hello: bad frame: "), str(junk)

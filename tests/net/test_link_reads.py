"""A link's frames: session messages framed without msgpack (the same bytes), and frames read in bursts from a real
socket on 127.0.0.1 (whole frames returned in order however the bytes arrive; the limits and errors of read_frame)."""

from __future__ import annotations

import asyncio

import pytest

from p2pnimmt.net.connection import FRAME_LIMIT, Connection, ConnectionFailed, frame, msg_frame, msg_payload
from p2pnimmt.protocol.codec import encode

SIZES = [0, 1, 255, 256, 65535, 65536, 65600]  # either side of msgpack's bin 8 / 16 / 32 headers


@pytest.mark.parametrize("size", SIZES)
def test_msg_frame_is_msgpacks_frame(size: int) -> None:
    wire = bytes(i % 251 for i in range(size))
    framed = msg_frame(wire)
    assert framed == frame(["msg", wire])
    assert msg_payload(framed[4:]) == wire


def test_other_shapes_are_left_to_decode() -> None:
    wire = b"abc"
    assert msg_payload(encode(["heads", wire])) is None
    assert msg_payload(b"\x92\xd9\x03msg\xc4\x03abc") is None  # "msg" as str 8: valid msgpack, not the fast shape
    assert msg_payload(b"\x92\xa3msg\xc4\x04abc") is None  # the bin's length is not what follows
    assert msg_payload(b"\x92\xa3msg\xc4\x02abc") is None
    assert msg_payload(b"\x92\xa3msg\xa3abc") is None  # a str, not bytes


async def _link(chunks: list[bytes], pause: float = 0.0, timeout: float = 5.0) -> tuple[list, str]:
    """Serve `chunks` one write each to a Connection on 127.0.0.1; (frames it received, why it ended)."""
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
            if pause:
                await asyncio.sleep(pause)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = Connection(reader, writer, bytes(32), bytes(16))
    conn.idle_timeout = timeout
    got = []
    try:
        while True:
            got.append(await conn.receive())
    except ConnectionFailed as exc:
        why = str(exc)
    conn.close()
    server.close()
    await server.wait_closed()
    return got, why


def test_frames_in_one_write_and_split_byte_by_byte() -> None:
    big = bytes(range(256)) * 200  # 51,200 bytes: a frame longer than one socket read may bring
    burst = frame(["ping", None]) + msg_frame(b"one") + frame(["heads", [[b"k", 3]]]) + msg_frame(big)
    dribbled = msg_frame(b"two")
    chunks = [burst, *(dribbled[i:i + 1] for i in range(len(dribbled)))]
    got, why = asyncio.run(_link(chunks, pause=0.002))  # a pause between writes: the kernel cannot merge them
    assert got == [("ping", None), ("msg", b"one"), ("heads", [[b"k", 3]]), ("msg", big), ("msg", b"two")]
    assert why == "connection closed"


def test_a_frame_cut_short_and_a_length_over_the_limit() -> None:
    got, why = asyncio.run(_link([msg_frame(b"whole"), msg_frame(b"cut short")[:-2]]))
    assert got == [("msg", b"whole")] and why == "connection closed"
    got, why = asyncio.run(_link([(FRAME_LIMIT + 1).to_bytes(4, "big") + b"x"]))
    assert got == [] and why == f"frame of {FRAME_LIMIT + 1} bytes is over the {FRAME_LIMIT}-byte limit"
    got, why = asyncio.run(_link([b"\x00\x00\x00\x02\xc1\xc1"]))  # 0xc1: never used in msgpack
    assert got == [] and why.startswith("bad frame: ")


def test_a_frame_must_come_whole_within_the_timeout() -> None:
    """Bytes dribbled a few a second do not keep a frame's wait open: the frame is due whole in the timeout."""
    framed = msg_frame(b"slowly")
    got, why = asyncio.run(_link([framed[i:i + 1] for i in range(len(framed))], pause=0.1, timeout=0.5))
    assert got == [] and why == "nothing received for 0.5 s"

"""A link's frames: session messages framed without msgpack (the same bytes), and frames read in bursts from a real
socket on 127.0.0.1 (whole frames returned in order however the bytes arrive; the limits and errors of read_frame).

Every case runs through both ways a link is read: Connection.receive (a task awaits each frame) and Connection.serve
(an asyncio.Protocol on the transport hands each frame on from the read's callback)."""

from __future__ import annotations

import asyncio

import pytest

from p2pnimmt.net.connection import (
    FRAME_LIMIT,
    LINK_SPACE,
    Connection,
    ConnectionFailed,
    _parse,
    frame,
    msg_frame,
    msg_payload,
)
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


@pytest.mark.parametrize("size", [3, 255, 65535])
def test_a_msg_frame_not_in_its_canonical_form_is_left_to_decode_which_refuses_it(size: int) -> None:
    """protocol.md 7 (since session 39): a session message's frame with its bin wider than its length asks (a bin 16
    under 256 bytes, a bin 32 under 65,536) is not sliced (before, any width was) but decoded, which refuses it: the
    link ends there, as the TypeScript peer's (link.ts decodes every frame)."""
    wire = bytes(size)
    wider = b"\xc5" + size.to_bytes(2, "big") if size < 256 else b"\xc6" + size.to_bytes(4, "big")
    data = b"\x92\xa3msg" + wider + wire
    assert msg_payload(data) is None
    with pytest.raises(ConnectionFailed, match=f"^bad frame: not canonical msgpack: {'bin 16' if size < 256 else 'bin 32'} "
                       f"at byte 5, where {'bin 8' if size < 256 else 'bin 16'} is canonical$"):
        _parse(data)


async def _link(chunks: list[bytes], pause: float = 0.0, timeout: float = 5.0, served: bool = False) -> tuple[list, str]:
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
    got, why = await _read_all(conn, served)
    conn.close()
    server.close()
    await server.wait_closed()
    return got, why


async def _read_all(conn: Connection, served: bool) -> tuple[list, str]:
    """Every frame the link reads until it fails, by `serve` or by `receive`, and why it stopped."""
    got: list = []
    try:
        if served:
            await conn.serve(lambda kind, payload: got.append((kind, payload)))
            why = "returned"
        else:
            while True:
                got.append(await conn.receive())
    except ConnectionFailed as exc:
        why = str(exc)
    return got, why


PATHS = pytest.mark.parametrize("served", [False, True], ids=["receive", "serve"])


@PATHS
def test_frames_in_one_write_and_split_byte_by_byte(served: bool) -> None:
    big = bytes(range(256)) * 200  # 51,200 bytes: a frame longer than one socket read may bring
    burst = frame(["ping", None]) + msg_frame(b"one") + frame(["heads", [[b"k", 3]]]) + msg_frame(big)
    dribbled = msg_frame(b"two")
    chunks = [burst, *(dribbled[i:i + 1] for i in range(len(dribbled)))]
    got, why = asyncio.run(_link(chunks, pause=0.002, served=served))  # a pause between writes: the kernel cannot merge them
    assert got == [("ping", None), ("msg", b"one"), ("heads", [[b"k", 3]]), ("msg", big), ("msg", b"two")]
    assert why == "connection closed"


@PATHS
def test_a_frame_cut_short_and_a_length_over_the_limit(served: bool) -> None:
    got, why = asyncio.run(_link([msg_frame(b"whole"), msg_frame(b"cut short")[:-2]], served=served))
    assert got == [("msg", b"whole")] and why == "connection closed"
    got, why = asyncio.run(_link([(FRAME_LIMIT + 1).to_bytes(4, "big") + b"x"], served=served))
    assert got == [] and why == f"frame of {FRAME_LIMIT + 1} bytes is over the {FRAME_LIMIT}-byte limit"
    got, why = asyncio.run(_link([b"\x00\x00\x00\x02\xc1\xc1"], served=served))  # 0xc1: never used in msgpack
    assert got == [] and why.startswith("bad frame: ")


@PATHS
def test_a_frame_must_come_whole_within_the_timeout(served: bool) -> None:
    """Bytes dribbled a few a second do not keep a frame's wait open: the frame is due whole in the timeout."""
    framed = msg_frame(b"slowly")
    got, why = asyncio.run(_link([framed[i:i + 1] for i in range(len(framed))], pause=0.1, timeout=0.5, served=served))
    assert got == [] and why == "nothing received for 0.5 s"


@PATHS
def test_a_write_larger_than_the_links_read_space(served: bool) -> None:
    """A link reads its socket into one space of LINK_SPACE bytes, made once (not a new buffer a read): one write of
    frames well past it comes in over several reads, every frame whole and in order, the frames cut across the
    reads' ends."""
    frames = [msg_frame(bytes([i]) * (60_000 + 7 * i)) for i in range(12)]  # 12 frames, 11 x LINK_SPACE in one write
    assert len(b"".join(frames)) > 10 * LINK_SPACE
    got, why = asyncio.run(_link([b"".join(frames), frame(["ping", None])], served=served))
    assert got == [*(("msg", msg_payload(f[4:])) for f in frames), ("ping", None)]
    assert why == "connection closed"


def test_a_link_reads_into_one_space_made_once() -> None:
    """The link's transport reads into the buffer its protocol hands it (asyncio.BufferedProtocol), the same one at
    every read: asyncio's plain protocol would have the transport make a new 256 KiB bytes object a read (the
    benchmark's page faults per turn show what that cost: peers_cpu_bench.py --in-game)."""
    async def run() -> None:
        server, other, conn = await _pair()
        protocol = conn.writer.transport.get_protocol()
        assert isinstance(protocol, asyncio.BufferedProtocol)
        space = protocol.get_buffer(-1)
        assert len(space) == LINK_SPACE and protocol.get_buffer(-1) is space
        other.write(msg_frame(b"a"))
        assert await conn.receive() == ("msg", b"a")  # read through the space, handed to the stream before serve
        conn.close()
        other.close()
        server.close()

    asyncio.run(run())


def test_a_frame_that_is_not_kind_and_payload() -> None:
    for served in (False, True):
        got, why = asyncio.run(_link([frame(["ping", None]), frame(["ping"])], served=served))
        assert got == [("ping", None)] and why == "frame is not [kind, payload]"


async def _pair() -> tuple[asyncio.Server, asyncio.StreamWriter, Connection]:
    """A Connection on 127.0.0.1 and the writer of its other end."""
    ends: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()

    async def accepted(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await ends.put(writer)

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    return server, await ends.get(), Connection(reader, writer, bytes(32), bytes(16))


async def _until(condition) -> None:
    """Wait (a loop turn at a time, never past 10 s) until `condition()`."""
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.005)


def test_serve_takes_over_what_the_stream_read_and_resumes_its_reading() -> None:
    """Frames read by receive, and bytes the stream holds past its limit (it paused the socket's reading), are
    handed on first by serve, in order, and the socket is read again."""
    big = [msg_frame(bytes([i]) * 10_000) for i in range(40)]  # 400 KB: over the stream's 128 KB pause mark

    async def run() -> tuple[list, str, bool]:
        server, other, conn = await _pair()
        other.write(msg_frame(b"a") + msg_frame(b"b"))
        first = await conn.receive()
        other.write(b"".join(big))
        await _until(lambda: len(conn.reader._buffer) > 2 * 65536)
        paused = conn.reader._paused
        got = [first]
        other.write(msg_frame(b"last"))
        other.close()
        try:
            await conn.serve(lambda kind, payload: got.append((kind, payload)))
            why = "returned"
        except ConnectionFailed as exc:
            why = str(exc)
        conn.close()
        server.close()
        return got, why, paused

    got, why, paused = asyncio.run(run())
    assert paused, "the stream did not pause its reading: the case is not tested"
    assert got == [("msg", b"a"), ("msg", b"b"), *(("msg", msg_payload(f[4:])) for f in big), ("msg", b"last")]
    assert why == "connection closed"


def test_frames_of_one_read_are_handled_in_one_burst_and_a_handler_ends_the_link() -> None:
    """The frames of one read go to the handler inside one burst(); a handler that closes the link ends serve (it
    returns), and one that raises ends it with that exception (as the read loop would)."""
    bursts: list[list[bytes]] = []

    class Burst:
        def __enter__(self) -> None:
            bursts.append([])

        def __exit__(self, *exc: object) -> None:
            bursts[-1].append(b"end")

    async def run(stop: str) -> str:
        server, other, conn = await _pair()
        other.write(b"".join(msg_frame(bytes([i])) for i in range(5)))
        await _until(lambda: len(conn.reader._buffer) == 5 * len(msg_frame(b"x")))

        def handle(kind: str, payload: bytes) -> None:
            bursts[-1].append(payload)
            if payload == b"\x02" and stop == "close":
                conn.close()
            elif payload == b"\x02" and stop == "raise":
                raise ValueError("handler failed")
            elif payload == b"\x04":
                other.write(msg_frame(b"later"))  # another read: another burst
            elif payload == b"later":
                conn.close()

        try:
            await conn.serve(handle, Burst)
            why = "returned"
        except (ConnectionFailed, ValueError) as exc:
            why = f"{type(exc).__name__}: {exc}"
        conn.close()
        other.close()
        server.close()
        return why

    assert asyncio.run(run("")) == "returned"
    assert bursts == [[bytes([i]) for i in range(5)] + [b"end"], [b"later", b"end"]]
    bursts.clear()
    assert asyncio.run(run("close")) == "returned"
    assert bursts == [[b"\x00", b"\x01", b"\x02", b"end"]]
    bursts.clear()
    assert asyncio.run(run("raise")) == "ValueError: handler failed"
    assert bursts == [[b"\x00", b"\x01", b"\x02", b"end"]]


@PATHS
def test_a_stream_that_ended_already(served: bool) -> None:
    """The stream holds frames and the peer's end (or a failure) before the link is read: the frames, then the
    end (a failure: at once, as a stream's read raises it before what it holds)."""
    async def run(fail: bool) -> tuple[list, str]:
        server, other, conn = await _pair()
        other.write(msg_frame(b"a") + msg_frame(b"b"))
        other.close()
        await _until(lambda: conn.reader._eof)
        if fail:
            conn.reader.set_exception(ConnectionResetError("reset"))
        got, why = await _read_all(conn, served)
        conn.close()
        server.close()
        return got, why

    assert asyncio.run(run(False)) == ([("msg", b"a"), ("msg", b"b")], "connection closed")
    assert asyncio.run(run(True)) == ([], "connection lost: reset")

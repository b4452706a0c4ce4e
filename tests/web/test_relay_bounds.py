"""The phone relay's bounds (issue 26, review): a stranger who opens many connections to a page's port cuts only
its own oldest, never the page's own dials; a channel is taken before its dial's wait (a second DIAL of it is
refused); a peer that takes nothing is cut once a megabyte waits for it; a burst goes as one BATCH each way. Real TCP and a real WebSocket on
127.0.0.1, the relay's own aiohttp route."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from aiohttp import WSMsgType, web
from deadlines import OUTER
from relaygame import Game

from p2pnimmt.net.connection import HELLO, frame
from p2pnimmt.web.relay import (
    ACCEPTED,
    BATCH,
    CHANNELS,
    CLOSE,
    DATA,
    DIAL,
    INBOUND,
    OPENED,
    Relay,
    batches,
    header,
    unbatched,
)

HOST_HELLO = frame([HELLO, 1, bytes(16), b"K" * 32, b"N" * 16])  # a fake host's hello: a p2pnimmt peer for the relay


async def started(handler) -> tuple[asyncio.base_events.Server, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def relay_for(game: Game) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_get("/relay", Relay(lambda: game, "127.0.0.1").serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/relay"


async def frames(ws, until, timeout: float = OUTER) -> list[tuple[int, int, bytes]]:
    """The relay's binary messages (op, channel, rest) up to and including the first for which until(...)."""
    got = []
    while True:
        message = await ws.receive(timeout=timeout)
        assert message.type == WSMsgType.BINARY, message
        found = [(one[0], int.from_bytes(one[1:5], "big"), one[5:]) for one in unbatched(message.data) or ()]
        got += found
        if [one for one in found if until(*one)]:  # each looked at once; a batch is taken whole
            return got


async def test_a_flood_on_the_pages_port_cuts_its_own_and_the_page_still_dials() -> None:
    done = asyncio.Event()

    async def host(reader, writer) -> None:  # says its hello, then takes nothing: it only holds its connections
        writer.write(HOST_HELLO)  # (a relay passes nothing of the page's before one)
        await done.wait()
        writer.close()

    host_server, host_port = await started(host)
    runner, url = await relay_for(Game(host_port))
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url)
        hello = json.loads((await ws.receive(timeout=OUTER)).data)
        assert hello["host"] == ["127.0.0.1", host_port]
        flood = [await asyncio.open_connection("127.0.0.1", hello["port"]) for _ in range(INBOUND + 6)]
        count = {"accepted": 0, "cut": 0}

        def all_accepted_and_six_cut(op: int, channel: int, rest: bytes) -> bool:
            count["accepted"] += op == ACCEPTED
            count["cut"] += op == CLOSE and rest.startswith(b"cut")
            return count["accepted"] == INBOUND + 6 and count["cut"] >= 6

        seen = await frames(ws, all_accepted_and_six_cut)  # (the last cut may follow the last ACCEPTED)
        cuts = [ch for op, ch, rest in seen if op == CLOSE and rest.startswith(b"cut")]
        accepted = [ch for op, ch, _ in seen if op == ACCEPTED]
        assert len(accepted) == INBOUND + 6 and cuts == accepted[:6], (cuts, accepted[:8])
        for reader, _writer in flood[:6]:  # the oldest six were cut: they read the end of the stream
            assert await asyncio.wait_for(reader.read(), OUTER) == b""
        # The page's own dials have their own budget: the flood took none of it.
        for channel in (1, 2):
            await ws.send_bytes(header(DIAL, channel) + json.dumps(["127.0.0.1", host_port]).encode())
        opened = await frames(ws, lambda op, ch, rest: op == OPENED and ch == 2)
        assert {ch for op, ch, _ in opened if op == OPENED} == {1, 2}, opened
        # One channel number, dialled twice at once: the second is refused, not a second connection.
        await ws.send_bytes(header(DIAL, 7) + json.dumps(["127.0.0.1", host_port]).encode())
        await ws.send_bytes(header(DIAL, 7) + json.dumps(["127.0.0.1", host_port]).encode())
        answers = await frames(ws, lambda op, ch, rest: ch == 7 and op == CLOSE)
        assert [(op, ch) for op, ch, _ in answers if ch == 7][-1] == (CLOSE, 7)
        assert f"at most {CHANNELS} connections".encode() in [r for op, ch, r in answers if ch == 7][-1]
        # A peer that takes nothing: past a megabyte waiting for it, the channel is closed (no memory held).
        chunk = header(DATA, 1) + bytes(200_000)
        closed = None
        for _ in range(400):  # up to 80 MB: more than any socket buffer here
            await ws.send_bytes(chunk)
            with_close = [m for m in await drain(ws) if m[0] == CLOSE and m[1] == 1]
            if with_close:
                closed = with_close[0]
                break
        assert closed is not None and b"does not take" in closed[2], closed
        await ws.close()
        for _reader, writer in flood:
            writer.close()
    done.set()
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()


async def drain(ws) -> list[tuple[int, int, bytes]]:
    """Whatever the relay has sent by now (without waiting for more)."""
    got = []
    while True:
        try:
            message = await ws.receive(timeout=0.05)
        except TimeoutError:
            return got
        if message.type != WSMsgType.BINARY:
            return got
        got += [(one[0], int.from_bytes(one[1:5], "big"), one[5:]) for one in unbatched(message.data) or ()]


# The BATCH of [DATA 1 "ab", CLOSE 2] as the page writes it too (web/peer/test/tunnel.test.ts has the same bytes).
SAMPLE = bytes.fromhex("060000000000000007020000000161620000000503" "00000002")


def test_a_batch_is_written_and_read_as_the_page_does() -> None:
    two = [header(DATA, 1) + b"ab", header(CLOSE, 2)]
    assert batches(two) == [SAMPLE] and unbatched(SAMPLE) == two
    assert batches(two[1:]) == two[1:] and unbatched(two[1]) == two[1:]  # one alone goes as itself
    assert unbatched(SAMPLE[:-1]) is None  # a length past the end
    assert unbatched(batches([SAMPLE, two[1]])[0]) is None  # a BATCH in a BATCH
    assert unbatched(header(BATCH, 0) + (4).to_bytes(4, "big") + b"\x02\x00\x00\x00") is None  # shorter than an op
    assert unbatched(b"\x02\x00") is None


async def test_the_relay_takes_a_pages_batch_in_order_and_sends_a_burst_as_one_message() -> None:
    got: list[bytes] = []
    writers: list[asyncio.StreamWriter] = []
    both, ended = asyncio.Event(), asyncio.Event()

    async def host(reader, writer) -> None:  # says its hello, then keeps what each connection sent until it closes
        writer.write(HOST_HELLO)  # (a relay passes a page's bytes only to a peer that said one)
        writers.append(writer)
        if len(writers) == 2:
            both.set()
        got.append(await reader.read(-1))
        if len(got) == 2:
            ended.set()

    host_server, host_port = await started(host)
    runner, url = await relay_for(Game(host_port))
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url + "?batch=1")  # the page says it takes BATCHes
        assert json.loads((await ws.receive(timeout=OUTER)).data)["batch"] is True  # the relay says it does
        dial = json.dumps(["127.0.0.1", host_port]).encode()
        await ws.send_bytes(batches([header(DIAL, 1) + dial, header(DIAL, 2) + dial])[0])
        seen: set[tuple[int, int]] = set()
        everything = {(OPENED, 1), (OPENED, 2), (DATA, 1), (DATA, 2)}  # each opened, and its peer's hello
        opened = await frames(ws, lambda op, ch, rest: (seen.add((op, ch)) or seen == everything))
        assert {ch for op, ch, _ in opened if op == OPENED} == {1, 2}, opened
        assert [rest for op, _, rest in opened if op == DATA] == [HOST_HELLO] * 2, opened
        await asyncio.wait_for(both.wait(), OUTER)
        # The host writes on both connections in one step of this loop: the relay reads both in one pass and
        # sends the page one BATCH of the two.
        for writer in writers:
            writer.write(b"burst")
        message = await ws.receive(timeout=OUTER)
        assert message.data[0] == BATCH, message
        assert sorted((m[0], int.from_bytes(m[1:5], "big"), m[5:]) for m in unbatched(message.data) or ()) == [
            (DATA, 1, b"burst"), (DATA, 2, b"burst")]
        # One BATCH from the page, taken message by message in order: each connection gets its bytes in order.
        await ws.send_bytes(batches([header(DATA, 1) + b"one", header(DATA, 2) + b"two", header(DATA, 1) + b"three",
                                     header(CLOSE, 1), header(CLOSE, 2)])[0])
        await asyncio.wait_for(ended.wait(), OUTER)
        assert sorted(got) == [b"onethree", b"two"], got
        # A BATCH that is not well formed ends the tunnel (as a message shorter than an op always did).
        await ws.send_bytes(SAMPLE[:-1])
        assert (await ws.receive(timeout=OUTER)).type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()


async def test_a_dial_that_names_no_address_is_answered_whatever_its_bytes() -> None:
    """A DIAL whose rest is JSON nested 50,000 deep, a port of 1e400 or NaN, or no [address, port] at all, is
    answered CLOSE "a dial names [address, port]" (session 32, redteam10: the first two ended the dial's task with a
    traceback in the log, RecursionError and OverflowError, and the channel was never answered; anyone who reads a
    phone's link can open a tunnel)."""
    async def host(reader, writer) -> None:
        writer.close()

    host_server, host_port = await started(host)
    runner, url = await relay_for(Game(host_port))
    bad = {3: b"[" * 50_000, 4: b'["127.0.0.1", 1e400]', 5: b'["127.0.0.1", NaN]', 6: b"[1, 2, 3]", 7: b"\xff\xfe"}
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url)
        await ws.receive(timeout=OUTER)
        for channel, rest in bad.items():
            await ws.send_bytes(header(DIAL, channel) + rest)
        answered: dict[int, bytes] = {}

        def all_answered(op: int, channel: int, rest: bytes) -> bool:
            if op == CLOSE:
                answered[channel] = rest
            return set(answered) >= set(bad)

        await frames(ws, all_answered, timeout=OUTER)
        assert answered == dict.fromkeys(bad, b"a dial names [address, port]"), answered
        await ws.close()
    await runner.cleanup()
    host_server.close()
    await host_server.wait_closed()

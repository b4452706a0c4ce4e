"""protocol.md 14's handshake-vectors, handshake-refusals, frame-vectors, tunnel-vectors and lobby-members, read
from the spec itself and checked against the reference's own code (over real loopback TCP where they are bytes): the
bytes a side writes in a handshake from fixed keys and nonces, the words it closes a connection with, a link's frames,
the relay tunnel's messages, and the members a joiner keeps of a lobby frame (the TypeScript page reads the same
blocks: web/peer/test/network_vectors.test.ts)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from p2pnimmt.net.connection import (
    IDLE_TIMEOUT,
    LINK_TIMEOUTS,
    NO_LINK_TIMEOUT,
    Connection,
    ConnectionFailed,
    frame,
    heard_timeout,
    msg_frame,
    ping_every,
    said_timeout,
)
from p2pnimmt.net.frames import exceeded
from p2pnimmt.net.lobby import lobby_members, lobby_seats
from p2pnimmt.net.seen import read_report
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.web.relay import MAX_BATCH, batches, header, hello_text, unbatched

# (P2PNIMMT_PROTOCOL_MD: another copy of it, as the TypeScript tests take: a vector changed must fail here)
SPEC = Path(os.environ.get("P2PNIMMT_PROTOCOL_MD", Path(__file__).resolve().parents[2] / "protocol.md")) \
    .read_text(encoding="utf-8")


def block(name: str) -> Any:
    found = re.search(rf"```json {name}\n(.*?)```", SPEC, re.S)
    assert found, f"protocol.md has no block {name}"
    return json.loads(found.group(1))


H = block("handshake-vectors")
GAME = bytes.fromhex(H["game_id"])
LISTENER = Identity(bytes.fromhex(H["listener_secret"]))
DIALER = Identity(bytes.fromhex(H["dialer_secret"]))
LISTENER_NONCE = bytes.fromhex(H["listener_nonce"])
DIALER_NONCE = bytes.fromhex(H["dialer_nonce"])
WAIT = 10.0  # a deadline for what must come at once (loopback)


def hexed(name: str) -> bytes:
    return bytes.fromhex(H[name])


async def as_listener(peer, then=None) -> tuple[Any, BaseException | None]:
    """The reference as the listener of the vectors (the host); `peer(reader, writer)` plays the dialer's bytes.
    What `then(conn)` gives for the link it opened (closed after), or its refusal."""
    result: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            result.set_result(await Connection.open(reader, writer, LISTENER, GAME, dialer=False,
                                                    nonce=LISTENER_NONCE))
        except Exception as exc:  # (the test reads it)
            if not result.done():
                result.set_exception(exc)

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await asyncio.wait_for(peer(reader, writer), WAIT)
        try:
            conn = await asyncio.wait_for(result, WAIT)
        except ConnectionFailed as exc:
            return None, exc
        try:
            return (await then(conn) if then is not None else (conn.key, conn.nonces, conn.game_id)), None
        finally:
            conn.close()
    finally:
        writer.close()
        server.close()


async def as_dialer(peer, game: bytes | None = GAME) -> tuple[Any, BaseException | None]:
    """The reference as the dialer of the vectors (bob); `peer(reader, writer)` plays the listener's bytes."""
    done = asyncio.get_running_loop().create_future()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await peer(reader, writer)
            await done
        finally:
            writer.close()

    server = await asyncio.start_server(accepted, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        conn = await asyncio.wait_for(Connection.open(reader, writer, DIALER, game, dialer=True,
                                                      nonce=DIALER_NONCE), WAIT)
        conn.close()
        return (conn.key, conn.nonces, conn.game_id), None
    except ConnectionFailed as exc:
        return None, exc
    finally:
        done.set_result(None)
        writer.close()
        server.close()


def test_the_listener_writes_the_vectors_bytes() -> None:
    async def dialer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # the listener says its hello before it reads a byte
        assert (await reader.readexactly(len(hexed("listener_hello")))).hex() == H["listener_hello"]
        writer.write(hexed("dialer_hello"))
        assert (await reader.readexactly(len(hexed("listener_auth")))).hex() == H["listener_auth"]
        writer.write(hexed("dialer_auth"))
        # its first frame after the auth: a ping saying its link timeout (since session 46)
        assert (await reader.readexactly(len(hexed("ping")))).hex() == H["ping"]

    opened, failed = asyncio.run(as_listener(dialer))
    assert failed is None and opened is not None
    key, nonces, _ = opened
    assert key.hex() == H["dialer_key"] and nonces == (LISTENER_NONCE, DIALER_NONCE)


def test_a_listener_takes_a_dialers_zero_game_id_and_signs_its_own() -> None:
    async def dialer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(len(hexed("listener_hello")))
        writer.write(hexed("dialer_hello_any"))
        assert (await reader.readexactly(len(hexed("listener_auth")))).hex() == H["listener_auth"]
        writer.write(hexed("dialer_auth"))

    opened, failed = asyncio.run(as_listener(dialer))
    assert failed is None and opened is not None and opened[2] == GAME


@pytest.mark.parametrize("knows", [True, False], ids=["knowing-the-game", "by-address"])
def test_the_dialer_writes_the_vectors_bytes(knows: bool) -> None:
    hello = hexed("dialer_hello" if knows else "dialer_hello_any")

    async def listener(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(hexed("listener_hello"))
        assert (await reader.readexactly(len(hello))).hex() == hello.hex()
        assert (await reader.readexactly(len(hexed("dialer_auth")))).hex() == H["dialer_auth"]
        writer.write(hexed("listener_auth"))
        assert (await reader.readexactly(len(hexed("ping")))).hex() == H["ping"]  # (since session 46)

    opened, failed = asyncio.run(as_dialer(listener, GAME if knows else None))
    assert failed is None and opened is not None
    key, nonces, game = opened
    assert key.hex() == H["listener_key"] and game == GAME and nonces == (DIALER_NONCE, LISTENER_NONCE)


def test_the_signed_transcript_and_its_signatures() -> None:
    signed = hexed("signed")
    assert signed == (b"p2pnimmt/handshake/v1" + GAME + DIALER_NONCE + LISTENER_NONCE + DIALER.public_key
                      + LISTENER.public_key)
    assert frame(["auth", LISTENER.sign(signed)]).hex() == H["listener_auth"]
    assert frame(["auth", DIALER.sign(signed)]).hex() == H["dialer_auth"]
    assert frame(["p2pnimmt-hello", 1, GAME, LISTENER.public_key, LISTENER_NONCE]).hex() == H["listener_hello"]


@pytest.mark.parametrize("case", block("handshake-refusals"), ids=lambda c: c["why"])
def test_handshake_refusals_of_protocol_md(case: dict[str, Any]) -> None:
    sent = bytes.fromhex(case["sent"])
    after_hello = case.get("after_hello", False)
    if case["as"] == "listener":
        async def dialer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readexactly(len(hexed("listener_hello")))
            if after_hello:
                writer.write(hexed("dialer_hello"))
                await reader.readexactly(len(hexed("listener_auth")))
            writer.write(sent)
            await writer.drain()

        conn, failed = asyncio.run(as_listener(dialer))
    else:
        async def listener(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if after_hello:
                writer.write(hexed("listener_hello"))
                await reader.readexactly(len(hexed("dialer_hello")) + len(hexed("dialer_auth")))
            writer.write(sent)
            await writer.drain()

        conn, failed = asyncio.run(as_dialer(listener))
    assert conn is None and failed is not None, case["why"]
    assert str(failed) == case["refusal"]


F = block("frame-vectors")


def test_frames_of_protocol_md() -> None:
    for case in F["frames"]:
        if case["kind"] == "msg" and "wire" in case:
            wire = bytes.fromhex(case["wire"])
            assert msg_frame(wire).hex() == case["frame"] == frame(["msg", wire]).hex()
        elif case["kind"] == "msg":
            wire = bytes.fromhex(case["wire_byte"]) * case["wire_size"]
            assert msg_frame(wire).hex() == case["head"] + wire.hex() == frame(["msg", wire]).hex()
        elif case["kind"] == "heads":
            heads = [[bytes.fromhex(peer), count] for peer, count in case["heads"]]
            assert frame(["heads", heads]).hex() == case["frame"]
        else:
            assert frame([case["kind"], None]).hex() == case["frame"]


@pytest.mark.parametrize("case", F["too_many_asks"], ids=lambda case: case["why"])
def test_the_words_for_a_frame_past_the_asks(case: dict[str, str]) -> None:
    """What a member that is not the host says of a frame past its asks' budget and slack (the page: link.ts
    asksExceeded), the kind made printable and cut as neutral() does."""
    assert exceeded(case["kind"]) == case["words"]


async def a_link_given(data: bytes, end: bool = False) -> tuple[list[tuple[str, Any]], str | None]:
    """A handshake that passes, then `data` from the dialer with its auth (and its end, with `end`): the frames the
    reference's served link hands on, and the words it ends with."""
    got: list[tuple[str, Any]] = []

    async def dialer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(len(hexed("listener_hello")))
        writer.write(hexed("dialer_hello"))
        await reader.readexactly(len(hexed("listener_auth")))
        writer.write(hexed("dialer_auth") + data)
        if end:
            writer.write_eof()
        await writer.drain()

    async def served(conn: Connection) -> str:
        try:
            await asyncio.wait_for(conn.serve(lambda kind, payload: got.append((kind, payload))), WAIT)
        except ConnectionFailed as exc:
            return str(exc)
        return "it did not end"

    why, failed = await as_listener(dialer, served)
    assert failed is None
    return got, why


@pytest.mark.parametrize("case", F["refusals"], ids=lambda c: c["why"])
def test_frame_refusals_of_protocol_md(case: dict[str, Any]) -> None:
    got, why = asyncio.run(a_link_given(bytes.fromhex(case["bytes"])))  # (each alone after the handshake)
    assert [kind for kind, _ in got] == case.get("kinds", []) and why == case["refusal"]


T = block("tunnel-vectors")


def test_the_relays_hello_of_protocol_md() -> None:
    h = T["hello"]
    text = hello_text(bytes.fromhex(h["game"]), tuple(h["host"]), h["port"], h["claim"], h["address"],
                      h["drop_after"], h["keyed"])
    assert text == h["text"]


def test_tunnel_messages_of_protocol_md() -> None:
    for case in T["ops"]:
        assert (header(case["op"], case["channel"]) + bytes.fromhex(case["rest"])).hex() == case["message"]
        assert unbatched(bytes.fromhex(case["message"])) == [bytes.fromhex(case["message"])]
    dial = next(case for case in T["ops"] if case["op"] == 1)
    assert json.loads(bytes.fromhex(dial["rest"])) == ["192.168.1.20", 4000]
    messages = [bytes.fromhex(m) for m in T["batch"]["messages"]]
    assert [b.hex() for b in batches(messages)] == [T["batch"]["batch"]]
    assert unbatched(bytes.fromhex(T["batch"]["batch"])) == messages
    for case in T["malformed"]:
        assert unbatched(bytes.fromhex(case["message"])) is None, case["why"]


def test_batches_split_where_protocol_md_says() -> None:
    split = T["split"]
    assert MAX_BATCH == split["max_batch"]
    messages = [bytes([2]) + bytes(size - 1) for size in split["sizes"]]
    out = batches(messages)
    assert len(out) == split["messages"]
    assert [m for message in out for m in (unbatched(message) or [])] == messages


def test_the_frames_of_protocol_md_are_read_as_their_kinds() -> None:
    frames, kinds = [], []
    for case in F["frames"]:
        wire = bytes.fromhex(case["wire_byte"]) * case["wire_size"] if "wire_size" in case else b""
        frames.append(bytes.fromhex(case.get("frame", case.get("head", ""))) + wire)
        kinds.append(case["kind"])
    got, why = asyncio.run(a_link_given(b"".join(frames), end=True))
    assert [kind for kind, _ in got] == kinds and why == "connection closed"
    assert got[3][1] == bytes([1, 2, 3]) and got[4][1] == bytes([7]) * 256


D = block("discovery-vectors")


def advertised(case: dict[str, Any]) -> tuple[dict[bytes, bytes], tuple[str, ...], int]:
    """The TXT properties, addresses and port of the discovery-vectors' good advertisement with `case`'s changes."""
    txt = {**D["good"]["txt"], **case.get("txt", {})}
    properties = {key.encode(): value.encode() for key, value in txt.items() if value is not None}
    properties.update({key.encode(): bytes.fromhex(value) for key, value in case.get("txt_hex", {}).items()})
    return properties, tuple(case.get("addresses", D["good"]["addresses"])), case.get("port", D["good"]["port"])


def test_discovery_vectors_of_protocol_md() -> None:
    from p2pnimmt.net.discovery import NotAGame, parse_ad

    ad = parse_ad(*advertised({}), "QM5Z-NLKP-HQTU")
    read = D["good"]["read"]
    assert (ad.code, ad.host, ad.seats, ad.state, ad.host_name, ad.variant, ad.deal, ad.salt.hex() if ad.salt else None,
            list(ad.notes)) == (read["code"], read["host"], read["seats"], read["state"], read["name"], read["variant"],
                                read["deal"], read["salt"], read["notes"])
    for case in D["hints"]:
        ad = parse_ad(*advertised(case), "x")
        assert list(ad.notes) == ([case["note"]] if case["note"] else []), case["why"]
        assert ad.game_id.hex() == D["good"]["txt"]["gid"]
    for case in D["not_games"]:
        with pytest.raises(NotAGame) as refused:
            parse_ad(*advertised(case), "x")
        assert str(refused.value) == case["refusal"], case["why"]


def binned(value: Any) -> Any:
    """A vector's value as on the wire: a str beginning `bin:` is the bytes of the hex after it."""
    if isinstance(value, str) and value.startswith("bin:"):
        return bytes.fromhex(value[4:])
    if isinstance(value, list):
        return [binned(v) for v in value]
    if isinstance(value, dict):
        return {k: binned(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", block("lobby-members")["cases"], ids=lambda c: c["why"])
def test_lobby_members_as_the_vectors_keep_them(case: dict[str, Any]) -> None:
    """lobby-members: the members a joiner keeps of a lobby frame (Lobby.mirror), in order, with their relays."""
    kept = list({m.peer: m for _, m in lobby_members(binned(case["members"]))}.values())
    assert [m.name for m in kept] == case["kept"]
    if "relays" in case:
        assert [list(m.relay) if m.relay else None for m in kept] == case["relays"]


TIMEOUTS = block("link-timeouts")


def test_the_link_timeouts_a_ping_says_of_protocol_md() -> None:
    assert (TIMEOUTS["unsaid"], TIMEOUTS["least"], TIMEOUTS["most"]) == (IDLE_TIMEOUT, LINK_TIMEOUTS[0], LINK_TIMEOUTS[-1])
    for seconds, said, framed in TIMEOUTS["said"]:
        assert said_timeout(seconds) == said and frame(["ping", said]).hex() == framed


@pytest.mark.parametrize("case", TIMEOUTS["heard"], ids=lambda c: c["why"])
def test_the_link_timeouts_a_receiver_takes_of_protocol_md(case: dict[str, Any]) -> None:
    """Each ping's payload as a served link reads it off the wire, and what a link of the reference takes of it: the
    peer's timeout, or nothing (one WARNING line with the words, the link open)."""
    got, why = asyncio.run(a_link_given(bytes.fromhex(case["frame"]), end=True))
    assert why == "connection closed" and [kind for kind, _ in got] == ["ping"]
    assert heard_timeout(got[0][1]) == case.get("timeout")
    if "ignored" in case:
        assert case["ignored"] == NO_LINK_TIMEOUT


def test_how_often_a_side_pings_of_protocol_md() -> None:
    for own, peer, every in TIMEOUTS["every"]:
        assert ping_every(own, TIMEOUTS["unsaid"] if peer is None else peer) == every


WORDS = block("wire-words")


def test_the_words_a_page_reads_of_protocol_md() -> None:
    """The words the page decides by (protocol.md 14, "Words a page reads"), as the reference's relay and host say
    them: the close codes, a HOST_GONE close's reasons, a refused dial's CLOSE, and every refusal text whole."""
    from p2pnimmt.net import seatdoor
    from p2pnimmt.web import relaydoor
    from p2pnimmt.web.relay import HOST_GONE, REFUSED, TAKEN_BACK, host_gone_reason

    assert (WORDS["host_gone"]["code"], WORDS["taken_back"], WORDS["dial_refused"]) == (HOST_GONE, TAKEN_BACK, REFUSED)
    reasons = dict(WORDS["host_gone"]["reasons"])
    for how in ("bye", "refused"):
        assert reasons[host_gone_reason(how)] == how
    said = {seatdoor.MISSING, seatdoor.WRONG, seatdoor.TOO_MANY, seatdoor.TOO_MANY_ADDRESSES, seatdoor.WRONG_LINK,
            relaydoor.WRONG, relaydoor.TOO_MANY, relaydoor.KEYLESS}
    assert said <= {text for text, _ in WORDS["refusals"]}

LOBBY = block("lobby-members")


@pytest.mark.parametrize("case", LOBBY["seats"], ids=lambda c: c["why"])
def test_lobby_seats_as_the_vectors_take_them(case: dict[str, Any]) -> None:
    """lobby-members `seats`: what a joiner takes of a lobby frame's `seats` (Lobby.mirror), having had `had`."""
    seats = case["seats"]
    value = float(seats[6:]) if isinstance(seats, str) and seats.startswith("float:") else seats
    assert lobby_seats(value, LOBBY["had"]) == case["kept"]


SEEN = block("seen-reports")


def peered(value: Any) -> Any:
    """A seen-reports value as on the wire: a str `peer:NAME` is that seat's peer id (`stranger`: one of no seat)."""
    if isinstance(value, str) and value.startswith("peer:"):
        return bytes.fromhex(SEEN["seats"].get(value[5:], SEEN["stranger"]))
    if isinstance(value, list):
        return [peered(v) for v in value]
    if isinstance(value, dict):
        return {k: peered(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", SEEN["cases"], ids=lambda c: c["why"])
def test_seen_reports_as_the_vectors_take_them(case: dict[str, Any]) -> None:
    """seen-reports: what a seat keeps of another's `seen` report (net/seen.py Seen.learn), or why it ignores it."""
    seats = [bytes.fromhex(peer) for peer in SEEN["seats"].values()]
    names = {bytes.fromhex(peer): name for name, peer in SEEN["seats"].items()}
    reporter = peered("peer:" + case.get("from", SEEN["from"]))
    read = read_report(peered(case["report"]), reporter, peered("peer:" + SEEN["us"]), seats)
    if "ignored" in case:
        assert read == case["ignored"]
    else:
        assert isinstance(read, dict) and {names[peer]: address for peer, address in read.items()} == case["taken"]

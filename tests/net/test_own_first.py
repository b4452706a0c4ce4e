"""A node's own message leaves before anything else is done with the outputs that carry it (Node._feed): it is on the
socket, its transcript record written first, when the outputs' first event reaches a listener. A relay waits for
the link's next write (our next message, most often), RELAY_WAIT at most.

Real TCP on 127.0.0.1: the node's link to a peer whose end is a plain socket, read without waiting from inside the
listener (what the kernel holds for the peer by then is what the node had written)."""

from __future__ import annotations

import asyncio
import socket

from p2pnimmt.engine import Settings
from p2pnimmt.net.connection import Connection, frame, msg_frame
from p2pnimmt.net.node import RELAY_WAIT, Node
from p2pnimmt.protocol.events import Event, Outgoing
from p2pnimmt.protocol.identity import SALT_SIZE, Identity, game_id_for


async def _linked_node() -> tuple[Node, Connection, socket.socket, list[str]]:
    """A node with one link on 127.0.0.1; the peer's end of it (a plain socket); the node's record log."""
    listener = socket.create_server(("127.0.0.1", 0))
    reader, writer = await asyncio.open_connection("127.0.0.1", listener.getsockname()[1])
    peer_end, _ = listener.accept()
    listener.close()
    peer_end.setblocking(False)
    node = Node(Identity.generate(), name="n", interface="127.0.0.1")
    conn = Connection(reader, writer, Identity.generate().public_key, bytes(16))
    node.links[conn.peer] = conn
    written: list[str] = []
    conn.before_write = lambda: written.append("records")  # as Mesh.link sets it (Node.write_held)
    return node, conn, peer_end, written


def _readable(sock: socket.socket) -> bytes:
    """What the kernel holds for this end now (nothing waited for)."""
    try:
        return sock.recv(1 << 16)
    except BlockingIOError:
        return b""


async def test_own_message_is_written_before_the_events_are_heard() -> None:
    node, conn, peer_end, written = await _linked_node()
    seen: list[tuple[bytes, list[str]]] = []
    node.watch_events(lambda _node, _event: seen.append((_readable(peer_end), list(written))))
    node._feed([Outgoing(b"ours"), Event()])
    assert seen == [(msg_frame(b"ours"), ["records"])]  # on the socket, after the records, when the event is heard
    conn.close()
    peer_end.close()


async def test_a_relay_goes_with_the_links_next_write() -> None:
    node, conn, peer_end, written = await _linked_node()
    seen: list[bytes] = []
    node.watch_events(lambda _node, _event: seen.append(_readable(peer_end)))
    node._feed([Outgoing(b"relayed", skip=(bytes(32),)), Event()])
    await asyncio.sleep(0)  # the loop's next turn: nothing called soon writes it
    assert seen == [b""] and _readable(peer_end) == b"" and written == []
    node._feed([Outgoing(b"ours")])
    assert _readable(peer_end) == msg_frame(b"relayed") + msg_frame(b"ours")  # one write, in the order queued
    conn.close()
    peer_end.close()


async def test_a_relay_alone_goes_after_the_relay_wait() -> None:
    node, conn, peer_end, written = await _linked_node()
    loop = asyncio.get_running_loop()
    queued = loop.time()
    node._feed([Outgoing(b"relayed", skip=(bytes(32),))])
    got = await loop.sock_recv(peer_end, 1 << 16)  # (waits for the bytes: a real condition)
    assert got == msg_frame(b"relayed") and written == ["records"]
    assert loop.time() - queued >= RELAY_WAIT - 0.005  # not before the wait (a timer may fire a tick early)
    conn.close()
    peer_end.close()


def relay_timers(loop: asyncio.AbstractEventLoop, node: Node) -> list[asyncio.TimerHandle]:
    """The timers in the loop's own heap (asyncio's BaseEventLoop keeps them in `_scheduled`) that are still to call
    the node's relays."""
    return [handle for handle in loop._scheduled if not handle.cancelled()
            and getattr(handle, "_callback", None) == node._relays]


async def test_a_closed_node_leaves_no_relay_timer_and_its_relay_goes_with_the_bye() -> None:
    """Node.close cancels the relay timer (session 39: before, a node closed while a relay waited left the timer in
    its loop, to fire after the node was gone); the relay itself is not lost: it goes with the bye."""
    node, conn, peer_end, written = await _linked_node()
    loop = asyncio.get_running_loop()
    node._feed([Outgoing(b"relayed", skip=(bytes(32),))])
    (timer,) = relay_timers(loop, node)
    peer_end.shutdown(socket.SHUT_WR)  # the peer's end is in: close need not wait BYE_READ for it
    await node.close()
    assert timer.cancelled(), "the timer was left to fire (or fired while the node closed)"
    assert relay_timers(loop, node) == []
    got = b""
    while chunk := await loop.sock_recv(peer_end, 1 << 16):  # to our end of the stream (a real condition)
        got += chunk
    assert got == msg_frame(b"relayed") + frame(["bye", None]) and written == ["records"]
    peer_end.close()


async def test_an_own_message_leaves_no_flush_called_soon() -> None:
    """_feed writes our own message at once, so it asks the loop for no flush at its next turn as well (session 41:
    one asked for each link and message, some 22 callbacks a peer a turn at 10 seats, and each found nothing left to
    write). asyncio's BaseEventLoop keeps the callbacks called soon in `_ready`."""
    node, conn, peer_end, written = await _linked_node()
    loop = asyncio.get_running_loop()
    node._feed([Outgoing(b"ours")])
    assert _readable(peer_end) == msg_frame(b"ours") and written == ["records"]
    assert [handle for handle in loop._ready if getattr(handle, "_callback", None) == conn._flush] == []
    conn.close()
    peer_end.close()


async def test_a_message_the_session_signs_is_on_the_socket_before_its_input_returns() -> None:
    """The node's session hands it each message as it signs it (Session.on_signed, issue 24, session 43): written
    there and then, after its record, before the session's input has returned its outputs (and so before the passes
    after the signature, or any of the outputs' events). Here the input is the host's own START."""
    node, conn, peer_end, written = await _linked_node()
    salt = bytes(range(SALT_SIZE))
    node._new_session(game_id_for(node.identity.public_key, salt))
    settings = Settings(players=2, max_rounds=1, point_limit=None)
    roster = [(node.identity.public_key, "n", False), (conn.key, "m", False)]
    outputs = node.session.host(salt, settings, roster)
    (start,) = node.session.journal.messages
    assert _readable(peer_end) == msg_frame(start) and written == ["records"]  # out before host() returned
    assert [item for item in outputs if isinstance(item, Outgoing)] == []  # not in the outputs a second time
    await node.close()
    peer_end.close()

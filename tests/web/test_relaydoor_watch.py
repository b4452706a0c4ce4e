"""How the phone relay reads a page's connection until its first join (web/relaydoor.Watch; protocol.md 14, "A phone
relay checks its pages' joins"): byte by byte as a TCP stream may bring them, only whole frames go on either way while
it reads, the join waits for the verdict with what followed it, and anything the host would not read as the
handshake and a join ends the reading (the bytes go on as they are). Nothing of the page's goes on before its peer
said a p2pnimmt hello, and a peer whose first bytes are anything else gets nothing and gives nothing (session 41)."""

from __future__ import annotations

from p2pnimmt.net.connection import FRAME_LIMIT, HELLO, frame
from p2pnimmt.web.relaydoor import Watch

PAGE_HELLO = [HELLO, 1, bytes(16), b"k" * 32, b"n" * 16]
PEER_HELLO = [HELLO, 1, b"g" * 16, b"K" * 32, b"N" * 16]


def bytewise(feed, data: bytes) -> list[bytes]:
    """`feed` given `data` one byte at a time: what it let go at each byte (the empty ones left out)."""
    return [out for i in range(len(data)) if (out := feed(data[i:i + 1]))]


def test_the_handshake_and_pings_go_on_whole_and_the_join_waits_with_what_follows() -> None:
    watch = Watch()
    peer = frame(PEER_HELLO) + frame(["auth", b"s" * 64])
    assert bytewise(watch.down, peer) == [frame(PEER_HELLO), frame(["auth", b"s" * 64])]  # whole frames only
    assert watch.peer_hello == PEER_HELLO
    before = [frame(PAGE_HELLO), frame(["auth", b"t" * 64]), frame(["ping", None])]
    join = frame(["join", {"name": "zoe", "proof": b"p" * 32}])
    after = frame(["heads", []])
    assert bytewise(watch.up, b"".join(before) + join + after) == before
    assert watch.waiting and watch.join == {"name": "zoe", "proof": b"p" * 32} and watch.page_hello == PAGE_HELLO
    assert watch.passed() == join + after
    assert not watch.reading and watch.up(b"xyz") == b"xyz" and watch.down(b"abc") == b"abc"  # a pipe from now on


def test_a_join_with_no_map_waits_too_and_a_refused_one_lets_nothing_through() -> None:
    watch = Watch()
    watch.down(frame(PEER_HELLO))
    head = frame(PAGE_HELLO) + frame(["auth", b"t" * 64])
    assert watch.up(head + frame(["join", None]) + b"\x00\x00") == head
    assert watch.waiting and watch.join is None
    watch.refuse()
    assert watch.up(b"more") == b"" and watch.down(frame(["lobby", {}])) == b"" and watch.unread() == b""


def heard() -> Watch:
    """A Watch whose peer said its hello."""
    watch = Watch()
    watch.down(frame(PEER_HELLO))
    return watch


def test_the_reading_ends_at_anything_the_host_would_not_read_as_a_join() -> None:
    # A link to a player: its first frame after auth is heads; nothing more is read (a join after it goes as it is).
    watch = heard()
    head = frame(PAGE_HELLO) + frame(["auth", b"t" * 64])
    late = frame(["heads", []]) + frame(["join", {}])
    assert watch.up(head + late) == head + late and not watch.reading and not watch.waiting
    # Not a hello first, to a peer that said its own (the host closes there): passed on as it is.
    watch = heard()
    assert watch.up(b"GET / HTTP/1.0\r\n\r\n") == b"GET / HTTP/1.0\r\n\r\n" and not watch.reading
    watch = heard()
    assert watch.up(frame(["hello?"]) + b"rest") == frame(["hello?"]) + b"rest" and not watch.reading
    # A frame over the cap, and bytes that are no msgpack: the host closes there too.
    watch = heard()
    big = (FRAME_LIMIT + 1).to_bytes(4, "big") + b"x"
    assert watch.up(frame(PAGE_HELLO) + big) == frame(PAGE_HELLO) + big and not watch.reading
    watch = heard()
    junk = (3).to_bytes(4, "big") + b"\xc1\xc1\xc1"
    assert watch.up(frame(PAGE_HELLO) + frame(["auth", b""]) + junk) == frame(PAGE_HELLO) + frame(["auth", b""]) + junk


def test_what_waited_for_a_whole_frame_goes_on_when_the_reading_ends() -> None:
    watch = heard()
    part = frame(["auth", b"s" * 64])[:7]
    assert watch.down(part) == b""  # not whole yet
    watch.up(b"not a hello at all")  # the reading ends
    assert watch.down(b"") == part  # the peer's bytes held go on first
    watch = heard()
    assert watch.up(b"\x00\x00") == b"" and watch.unread() == b"\x00\x00"  # the page closes: a pipe keeps them


def test_nothing_of_the_page_goes_on_before_its_peer_said_a_p2pnimmt_hello() -> None:
    watch = Watch()
    assert watch.up(frame(PAGE_HELLO)) == b"" and watch.unread() == b""  # held; closed now, nothing went
    watch = Watch()
    assert watch.up(frame(PAGE_HELLO)) == b""
    assert watch.down(frame(PEER_HELLO)) == frame(PEER_HELLO) and watch.heard
    assert watch.up(b"") == frame(PAGE_HELLO)  # what was held goes on once the peer said its hello
    # An honest page sends its auth only once it has the peer's nonce: more than a hello's worth first is no page's.
    watch = Watch()
    assert watch.up(b"GET /secret HTTP/1.0\r\n" * 400) == b"" and watch.stranger


def test_a_peer_whose_first_bytes_are_no_p2pnimmt_hello_gets_nothing_and_gives_nothing() -> None:
    for first in (b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n", frame(["hello?"]),
                  (3).to_bytes(4, "big") + b"\xc1\xc1\xc1"):
        watch = Watch()
        assert watch.up(frame(PAGE_HELLO) + b"GET / HTTP/1.0\r\n\r\n") == b""
        assert bytewise(watch.down, first) == [] and watch.stranger, first
        assert watch.up(b"more") == b"" and watch.unread() == b"" and watch.down(b"more") == b""

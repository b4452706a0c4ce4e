"""A link's bytes kept in pieces and read as frames in place (protocol.pieces: net.connection's links and a phone
relay's door, web.relaydoor.Watch): the same frames however the bytes are cut, and each byte copied a bounded number
of times (session-42 review: both readers joined their held bytes to every piece, so a frame at the 65 KiB limit sent
a byte at a time was 2 GiB copied; benchmarks/slow_frames_bench.py gives the CPU before and after). The bytes copied
are counted by the class itself (`copied`): on main there was no such class, and this test fails at its import."""

from __future__ import annotations

import random

import pytest

from p2pnimmt.net.connection import FRAME_LIMIT, frame
from p2pnimmt.protocol.codec import FrameTooLarge
from p2pnimmt.protocol.pieces import HEADER, SEAL, Pieces

FRAMES = [frame(["ping", None]), frame(["msg", bytes(FRAME_LIMIT - 16)]), frame(["heads", []]),
          frame(["msg", bytes(300)])]
STREAM = b"".join(FRAMES)


def read(cuts: list[bytes]) -> tuple[list[bytes], Pieces]:
    """Every whole frame's body, in order, as the pieces come."""
    pieces, out = Pieces(), []
    for piece in cuts:
        pieces.add(piece)
        while (body := pieces.frame(HEADER)) is not None:
            out.append(body)
    return out, pieces


def cut(data: bytes, sizes: list[int]) -> list[bytes]:
    out, at = [], 0
    for size in sizes:
        out.append(data[at:at + size])
        at += size
    return [*out, data[at:]]


@pytest.mark.parametrize("how", ["one piece", "a byte at a time", "random cuts", "headers split"])
def test_the_same_frames_however_the_bytes_are_cut(how: str) -> None:
    if how == "one piece":
        cuts = [STREAM]
    elif how == "a byte at a time":
        cuts = [STREAM[i:i + 1] for i in range(len(STREAM))]
    elif how == "random cuts":
        rng = random.Random(42)
        cuts = cut(STREAM, [rng.randint(0, 5000) for _ in range(60)])
    else:  # each cut in the middle of a frame's header
        ends = [sum(len(f) for f in FRAMES[:n]) for n in range(len(FRAMES))]
        cuts = cut(STREAM, [b - a for a, b in zip([0, *[e + 2 for e in ends]], [e + 2 for e in ends])])
    bodies, pieces = read(cuts)
    assert bodies == [f[HEADER:] for f in FRAMES] and pieces.held == 0


def test_a_frame_a_byte_at_a_time_is_copied_once_and_a_piece_of_frames_not_at_all() -> None:
    big = FRAMES[1]
    _, pieces = read([big[i:i + 1] for i in range(len(big))])
    assert pieces.copied <= 2 * len(big), pieces.copied  # (joined at every piece: 2 GiB)
    small = frame(["ping", None]) * 6500  # 65,000 bytes in one piece, frames read where they lie
    bodies, pieces = read([small])
    assert len(bodies) == 6500 and pieces.copied == 0


def test_peek_and_drop_and_what_is_held_goes_on_whole() -> None:
    pieces = Pieces()
    for piece in (b"\x00\x00", b"\x00\x03ab", b"c", b"tail"):
        pieces.add(piece)
    assert pieces.end() == 7 and pieces.peek(7) == b"\x00\x00\x00\x03abc" and pieces.held == 11  # still held
    pieces.drop(7)
    assert pieces.rest() == b"tail" and pieces.held == 0 and pieces.rest() == b""
    pieces.add((FRAME_LIMIT + 1).to_bytes(4, "big"))
    with pytest.raises(FrameTooLarge):
        pieces.end()


def test_a_frame_sent_a_byte_at_a_time_is_held_in_a_few_pieces_not_one_a_byte() -> None:
    """A piece a byte is a Python object of some 40 bytes more: a frame at the limit sent a byte at a time and never
    finished held some 3.7 MB a link where its bytes are 65 KiB (review of session 42); small pieces gather in one
    tail, sealed at SEAL bytes, so a link holds its bytes in about one piece per SEAL bytes."""
    big = FRAMES[1]
    pieces = Pieces()
    for i in range(len(big) - 1):
        pieces.add(big[i:i + 1])
        assert pieces.frame(HEADER) is None
    assert pieces.held == len(big) - 1
    assert len(pieces._pieces) <= len(big) // SEAL + 2  # (one a byte before)
    pieces.add(big[-1:])
    assert pieces.frame(HEADER) == big[HEADER:] and pieces.held == 0

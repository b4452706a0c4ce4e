"""How a link's bytes are split into frames (protocol.pieces, with codec.frame_size: net.connection's links and a
phone relay's door, web.relaydoor, both split so): a 4-byte big-endian length, then as many bytes, at most
FRAME_LIMIT."""

from __future__ import annotations

import pytest

from p2pnimmt.protocol.codec import FRAME_LIMIT, FrameTooLarge, frame_size
from p2pnimmt.protocol.pieces import Pieces


def framed(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def held(data: bytes) -> Pieces:
    pieces = Pieces()
    pieces.add(data)
    return pieces


def test_each_whole_frame_ends_after_its_length_and_one_cut_short_is_not_whole() -> None:
    pieces = held(framed(b"abc") + framed(b"") + framed(b"defgh"))
    assert pieces.end() == 7 and pieces.take(7) == framed(b"abc")
    assert pieces.end() == 4 and pieces.take(4) == framed(b"")  # an empty frame is whole with its header
    assert held(framed(b"defgh")[:-1]).end() is None
    assert held(framed(b"defgh")[:3]).end() is None  # not even its header whole
    assert pieces.end() == 9 and pieces.take(9) == framed(b"defgh") and pieces.end() is None


def test_a_frame_of_the_limit_is_read_and_one_byte_more_is_not() -> None:
    assert frame_size(FRAME_LIMIT.to_bytes(4, "big")) == FRAME_LIMIT
    assert held(FRAME_LIMIT.to_bytes(4, "big")).end() is None  # whole only once its bytes came
    too_big = held(b"xx" + (FRAME_LIMIT + 1).to_bytes(4, "big"))
    too_big.drop(2)
    with pytest.raises(FrameTooLarge, match=f"^frame of {FRAME_LIMIT + 1} bytes is over the {FRAME_LIMIT}-byte limit$"):
        too_big.end()  # said by its header alone, before its bytes come

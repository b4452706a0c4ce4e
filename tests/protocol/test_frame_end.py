"""How a link's bytes are split into frames (protocol.codec.frame_end: net.connection's links and a phone relay's
door, web.relaydoor, both split so): a 4-byte big-endian length, then as many bytes, at most FRAME_LIMIT."""

from __future__ import annotations

import pytest

from p2pnimmt.protocol.codec import FRAME_LIMIT, FrameTooLarge, frame_end, frame_size


def framed(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def test_each_whole_frame_ends_after_its_length_and_one_cut_short_is_not_whole() -> None:
    data = framed(b"abc") + framed(b"") + framed(b"defgh")
    assert frame_end(data) == 7
    assert frame_end(data, 7) == 11  # an empty frame is whole with its header
    assert frame_end(data, 11) == len(data)
    assert frame_end(data[:-1], 11) is None
    assert frame_end(data[:10], 7) is None  # not even its header whole
    assert frame_end(data, len(data)) is None


def test_a_frame_of_the_limit_is_read_and_one_byte_more_is_not() -> None:
    assert frame_size(FRAME_LIMIT.to_bytes(4, "big")) == FRAME_LIMIT
    assert frame_end(FRAME_LIMIT.to_bytes(4, "big")) is None  # whole only once its bytes came
    too_big = b"xx" + (FRAME_LIMIT + 1).to_bytes(4, "big")
    with pytest.raises(FrameTooLarge, match=f"^frame of {FRAME_LIMIT + 1} bytes is over the {FRAME_LIMIT}-byte limit$"):
        frame_end(too_big, 2)  # said by its header alone, before its bytes come

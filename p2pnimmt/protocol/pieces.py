"""A link's bytes as they came, in pieces, read as frames in place (net.connection's links, a phone relay's door:
web.relaydoor).

Pieces are kept apart and joined only once the frame that spans them is whole (or its 4-byte header spans them), and
the frames of one piece are read from it where they lie: each byte is copied a bounded number of times however a
peer cuts its bytes. Before the session-42 review the held bytes were joined to each piece as it came, so a peer that
wrote a 64 KiB frame a byte at a time had its reader copy 2 GiB (its length squared over two)."""

from __future__ import annotations

from collections import deque

from .codec import frame_size

HEADER = 4  # bytes of a frame's length
# Pieces under this size gather in one growing tail, sealed as a piece of its own at this size or when a frame needs
# its bytes: a piece a byte (each a Python object of some 40 bytes more) held a 64 KiB frame sent a byte at a time in
# some 3.7 MB, its bytes once in 64 KiB (review of session 42).
SEAL = 4096


class Pieces:
    """The bytes held, oldest first (the pieces, then the tail); `held` of them, the first piece's from `_at` on."""

    def __init__(self) -> None:
        self._pieces: deque[bytes] = deque()
        self._tail = bytearray()  # small pieces as they came, after the pieces
        self._at = 0
        self.held = 0
        self.copied = 0  # bytes copied by joins and seals (a measure: benchmarks/slow_frames_bench.py)

    def add(self, data: bytes) -> None:
        if not data:
            return
        self.held += len(data)
        if len(data) >= SEAL:
            self._seal()
            self._pieces.append(data)
            return
        self._tail += data
        if len(self._tail) >= SEAL:
            self._seal()

    def _seal(self) -> None:
        """The tail as a piece of its own."""
        if self._tail:
            self.copied += len(self._tail)
            self._pieces.append(bytes(self._tail))
            self._tail = bytearray()

    def _need(self, size: int) -> None:
        """The pieces hold the next `size` bytes held (or every byte held), the tail sealed where they lie in it."""
        if self.held - len(self._tail) < size:
            self._seal()

    def end(self) -> int | None:
        """The size of the next frame, its header included, if it came whole, else None; FrameTooLarge if its header
        says more than the frame limit."""
        if self.held < HEADER:
            return None
        self._need(HEADER)
        if len(self._pieces[0]) - self._at < HEADER:
            self._join()
        size = HEADER + frame_size(self._pieces[0], self._at)
        return size if size <= self.held else None

    def frame(self, skip: int = 0) -> bytes | None:
        """The next frame if it came whole, the first `skip` of its bytes left out (HEADER: its body), else None;
        FrameTooLarge as `end`. (`end` and `take` in one, each piece looked at once: a link's every frame.)"""
        if self.held < HEADER:
            return None
        self._need(HEADER)
        first, at = self._pieces[0], self._at
        if len(first) - at < HEADER:
            self._join()
            first, at = self._pieces[0], 0
        size = HEADER + frame_size(first, at)
        if size > self.held:
            return None
        self._need(size)
        if len(first) - at < size:
            self._join()
            first, at = self._pieces[0], 0
        end = at + size
        self.held -= size
        if end == len(first):
            self._pieces.popleft()
            self._at = 0
        else:
            self._at = end
        return first[at + skip:end]

    def take(self, size: int, skip: int = 0) -> bytes:
        """The next `size` bytes held (at most `held`), the first `skip` of them left out; they are held no more."""
        out = self.peek(size, skip)
        self.drop(size)
        return out

    def peek(self, size: int, skip: int = 0) -> bytes:
        """The next `size` bytes held (at most `held`), the first `skip` of them left out; still held."""
        self._need(size)
        if len(self._pieces[0]) - self._at < size:
            self._join()
        return self._pieces[0][self._at + skip:self._at + size]

    def drop(self, size: int) -> None:
        """The next `size` bytes are held no more (at most those of the first piece: after a peek of them)."""
        self._need(size)
        self._at += size
        self.held -= size
        if self._at == len(self._pieces[0]):
            self._pieces.popleft()
            self._at = 0

    def rest(self) -> bytes:
        """Every byte held (none held after)."""
        if not self.held:
            return b""
        self._seal()
        self._join()
        out = self._pieces.popleft()
        self._at = self.held = 0
        return out

    def clear(self) -> None:
        self._pieces.clear()
        self._tail = bytearray()
        self._at = self.held = 0

    def _join(self) -> None:
        """The bytes held as one piece."""
        if len(self._pieces) == 1 and not self._at:
            return
        first = self._pieces.popleft()
        joined = b"".join((first[self._at:] if self._at else first, *self._pieces))
        self.copied += len(joined)
        self._pieces.clear()
        self._pieces.append(joined)
        self._at = 0

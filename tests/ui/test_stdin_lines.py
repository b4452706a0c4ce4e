"""The one reader of standard input (ui.lines.StdinLines), fed through a real pipe: a line typed for a question
that was withdrawn (the clock ran, the seat was dropped, the lobby closed) is ignored with a line saying so, never
taken as the answer to the next question; lines typed ahead of any question (piped input) wait for the next one;
the end of input stays the end of input. (CI once saw a resumed player's card, typed just as its seat was
dropped, answer the next round's first question, and every line after it answer the question before.)"""

from __future__ import annotations

import asyncio
import os

import pytest

from p2pnimmt.ui.lines import StdinLines


class Pipe:
    """A real pipe in place of standard input, and what the reader says, with a wait for each said line."""

    def __init__(self) -> None:
        read_fd, self.write_fd = os.pipe()
        self.said: list[str] = []
        self.changed = asyncio.Event()
        self.lines = StdinLines(os.fdopen(read_fd), say=self._say)

    def _say(self, text: str) -> None:
        self.said.append(text)
        self.changed.set()

    def type(self, text: str) -> None:
        os.write(self.write_fd, text.encode())

    async def said_line(self, count: int) -> None:
        while len(self.said) < count:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)

    def close(self) -> None:
        os.close(self.write_fd)

    async def end(self) -> None:
        """Close the pipe and read its end, so the reading thread has ended and the read side can be closed."""
        self.close()
        assert await asyncio.wait_for(self.lines.read("> "), 10) is None
        assert self.lines.stream is not None
        self.lines.stream.close()


async def open_prompt(pipe: Pipe, prompt: str) -> asyncio.Task:
    """A read whose prompt is open (it waits for a line)."""
    task = asyncio.ensure_future(pipe.lines.read(prompt))
    while pipe.lines.waiter is None:
        await asyncio.sleep(0)  # one turn of the loop: the read starts (no time waited)
    return task


@pytest.mark.asyncio
async def test_a_line_typed_after_its_question_was_withdrawn_is_ignored_and_the_next_question_gets_the_next_line(
        ) -> None:
    pipe = Pipe()
    card = await open_prompt(pipe, "your card> ")
    card.cancel()  # the seat was dropped: the question is withdrawn
    with pytest.raises(asyncio.CancelledError):
        await card
    pipe.type("88\n")  # typed for the withdrawn question
    await pipe.said_line(1)
    assert pipe.said == ["  '88' ignored: the question it answered is no longer open"]
    card = await open_prompt(pipe, "your card> ")  # the next question is shown; the person types its answer
    pipe.type("23\n")
    assert await asyncio.wait_for(card, 10) == "23"
    await pipe.end()


@pytest.mark.asyncio
async def test_a_line_that_came_just_before_its_question_was_withdrawn_does_not_answer_the_next() -> None:
    pipe = Pipe()
    card = await open_prompt(pipe, "your card> ")
    pipe.lines._arrive("88")  # the answer arrives ...
    card.cancel()  # ... and in the same turn of the loop the clock runs: the question is withdrawn unread
    with pytest.raises(asyncio.CancelledError):
        await card
    assert pipe.said == ["  '88' ignored: the question it answered is no longer open"]
    row = await open_prompt(pipe, "take row (1-4)> ")
    pipe.type("4\n")
    assert await asyncio.wait_for(row, 10) == "4"
    await pipe.end()


@pytest.mark.asyncio
async def test_lines_typed_ahead_of_any_question_wait_for_the_next_ones_in_order() -> None:
    pipe = Pipe()
    pipe.type("s\n55\n3\n")  # piped input: everything at once, before the first prompt
    got = [await asyncio.wait_for(pipe.lines.read("> "), 10) for _ in range(3)]
    assert got == ["s", "55", "3"]
    assert pipe.said == []
    await pipe.end()


@pytest.mark.asyncio
async def test_the_end_of_input_reaching_a_withdrawn_question_still_ends_the_next_read() -> None:
    pipe = Pipe()
    card = await open_prompt(pipe, "your card> ")
    pipe.lines._arrive(None)  # the end of input arrives ...
    card.cancel()  # ... as the question is withdrawn
    with pytest.raises(asyncio.CancelledError):
        await card
    assert await asyncio.wait_for(pipe.lines.read("your card> "), 10) is None
    assert pipe.said == []
    await pipe.end()  # the reading thread's own end of input, so it ends with the test

"""A person who leaves at the table (q then y, Ctrl-C twice, the input closed) leaves through Node.quit: from then
on their node signs nothing on its own (Node.leave, protocol.md 14 `bye`), not even the stand-in's move its clock
owes. Before, the full-screen table and the line terminal only set `done`, so in the time until the app closed the
node, the clock of the move asked for could still run out and sign the stand-in's card for a person who had gone.

Real nodes over TCP on 127.0.0.1 in one process; ann is a person at a real prompt_toolkit table fed keys (or the
line terminal, its input closed), bob a bot. ann is asked for her first card with a 2-second clock and leaves; the
test awaits that clock's own end (its task), then closes ann's node: bob gets her bye and no message of hers signed
after she left."""

from __future__ import annotations

import asyncio

import pytest
from deadlines import outer
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until

from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.ui.app import NodeSeat, TableApp
from p2pnimmt.ui.lines import LineSeat
from p2pnimmt.ui.model import TableModel

LO = "127.0.0.1"
CLOCK = 2  # seconds for a move: the stand-in's card is owed once it runs out


def node(name: str, bot: bool) -> Node:
    identity = Identity.generate()
    return Node(identity, name=name, bot=make_bot("random", identity.secret) if bot else None, interface=LO,
                drop_after=60)


def signed(of: Node, by: Node) -> int:
    """How many of `by`'s messages `of`'s session holds."""
    assert of.session is not None
    return of.session.inbox.head(by.identity.peer)[0]


@pytest.mark.parametrize("how", ["q then y", "Ctrl-C twice", "input closed"])
async def test_a_person_who_leaves_at_the_table_signs_nothing_more(how: str) -> None:
    ann, bob = node("ann", bot=False), node("bob", bot=True)
    model = TableModel()
    said: list[str] = []
    try:
        with create_pipe_input() as keys:
            ui = None
            if how == "input closed":
                async def closed(_prompt: str) -> str | None:
                    return None  # the terminal's input ends as the card is asked for

                ann.watch_events(LineSeat(closed, lambda *lines: said.extend(lines)).on_event)
            else:
                ann.watch_events(lambda node, event: model.update(node.session, event))
                ui = TableApp(model, NodeSeat(ann), input=keys, output=SizedOutput())
            await ann.listen()
            await ann.host(Settings(players=2, deal="open", clock=CLOCK))
            await bob.listen()
            bob.seat_key = ann.seat_key  # bob read ann's screen (protocol.md 14)
            await bob.join(LO, ann.port, ann.game_id)
            await until(lambda: ann.clock._task is not None, "ann asked for her first card, her clock running", 30)
            clock = ann.clock._task
            assert clock is not None
            if ui is not None:
                app = asyncio.ensure_future(ui.app.run_async())
                await until(lambda: ui.app.is_running and model.asked == "card", "the table asking for a card", 30)
                keys.send_text("qy" if how == "q then y" else "\x03\x03")
                assert await asyncio.wait_for(app, outer(30)) == "left"
            await until(lambda: ann.done.is_set(), "ann gone", 30)
            assert ann.leaving, "ann left, yet her node may sign on its own"
            mine = signed(ann, ann)
            assert not clock.done()  # she left before her clock ran out
            await asyncio.wait_for(asyncio.shield(clock), outer(30))  # ... which it does now
            assert signed(ann, ann) == mine, "ann's node signed the stand-in's card after she left"
            if how == "input closed":
                assert "input closed: leaving the game" in said, said
            await ann.close()  # bye on every link
            await until(lambda: ann.identity.peer in bob.byes, "bob told that ann left", 30)
            assert signed(bob, ann) == mine, "bob got a message ann's node signed after she left"
    finally:
        await bob.close()
        await ann.close()

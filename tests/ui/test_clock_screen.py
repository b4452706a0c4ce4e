"""The turn clock, away and the stand-in on the full-screen table (issue 13, item 1).

Real prompt_toolkit apps fed keys through a pipe. A LocalTable has no MoveClock, so its clock only counts
down on the screen; the clock's own events (ClockWarning, ClockRan, SeatAway) are fed to the model as a node
would, and one test runs a real Node on 127.0.0.1 whose clock runs out, marks the seat away and is stopped by a key.
"""

from __future__ import annotations

import asyncio
import re

from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until

from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.events import ClockRan, ClockWarning, SeatAway
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.table import standin_slot
from p2pnimmt.ui import widgets
from p2pnimmt.ui.app import NodeSeat, TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel
from p2pnimmt.web.state import table_state

LO = "127.0.0.1"
ENTER = "\r"


class BellOutput(SizedOutput):
    """An 80x24 screen that counts the bells rung."""

    def __init__(self) -> None:
        super().__init__()
        self.bells = 0

    def bell(self) -> None:
        self.bells += 1


def clocked(players: int = 3, clock: int = 30, **kw) -> tuple[TableModel, LocalTable]:
    model = TableModel()
    return model, LocalTable(Settings(players=players, clock=clock, **kw), seed=bytes(32), on_event=model.update)


def player_line(screen: str, name: str) -> str:
    """The player list's line of `name` (the list is the right 30 columns of the 80)."""
    return next(line[50:] for line in screen.splitlines() if line[50:].startswith(name + " "))


def test_the_remaining_time_counts_down_in_the_player_list_and_stops_once_committed() -> None:
    model, table = clocked(clock=42)
    now = [1000.0]
    model.now = lambda: now[0]
    ui = TableApp(model, LocalSeat(table), input=None, output=SizedOutput())
    table.start()
    assert model.clock == 42 and model.asked == "card"
    assert model.time_left(0) == 42
    assert "choosing 42s" in player_line(screen_text(ui), "*you")
    now[0] += 10.5
    assert model.time_left(0) == 32  # whole seconds, rounded up
    assert "choosing 32s" in player_line(screen_text(ui), "*you")
    assert 0 < model.next_change() <= 0.5 + 1e-9  # the next redraw: when 32 becomes 31
    now[0] += 100
    assert model.time_left(0) == 0 and "choosing 0s" in player_line(screen_text(ui), "*you")
    assert not model.clock_running()  # nothing left to count down: no redraws
    ui.play(model.hand[0])  # the bots answer at once: the next turn starts, every clock starts again
    assert model.turn == 1 and model.time_left(0) == 42 and model.time_left(1) is None  # bot1 committed
    state = table_state(model)
    assert state["clock"] == 42 and state["players"][0]["left"] == 42 and state["players"][1]["left"] is None
    assert state["players"][0]["away"] is False


def test_times_fit_the_player_list_with_the_score_beside_them() -> None:
    model, table = clocked(players=10, clock=120)
    table.start()
    model.players[3].status = "choosing a row"  # "takes row 120s": the widest status with a time
    lines = "".join(text for _style, text, *_ in widgets.player_lines(model)).splitlines()
    assert all(len(line) <= 30 for line in lines), lines
    assert lines[1].startswith("*you      choosing 120s") and lines[1].endswith(" 0")
    assert "takes row 120s" in lines[4] and lines[4].endswith(" 0")


def test_no_clock_shows_no_time() -> None:
    model = TableModel()
    table = LocalTable(Settings(players=3), seed=bytes(32), on_event=model.update)
    ui = TableApp(model, LocalSeat(table), input=None, output=SizedOutput())
    table.start()
    assert model.clock is None and model.time_left(0) is None and not model.clock_running()
    assert not re.search(r"\d+s\b", player_line(screen_text(ui), "*you"))
    assert table_state(model)["players"][0]["left"] is None


def test_the_table_redraws_by_itself_while_a_clock_runs() -> None:
    async def main() -> None:
        model, table = clocked(clock=30)
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(table), input=keys, output=SizedOutput())
            table.start()
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running and ui._ticker is not None, "the clock's timer")
            start, left = ui.app.render_counter, model.time_left(0)
            # the clock runs from 30 (a loaded machine may take seconds to bring the app up: 27 left in session 43's
            # CI at load 20, where this said >= 29); that it starts again at 30 is checked at the next turn below
            assert left is not None and 0 < left <= 30
            # No key, no event: only the timer can draw the screen again, once the time shown changes.
            await until(lambda: ui.app.render_counter >= start + 2, "two redraws by the timer", timeout=4)
            assert model.time_left(0) < left
            keys.send_text(ENTER)  # commit: the turn moves on, and its clock starts again
            await until(lambda: model.turn == 1 and model.asked == "card", "the next turn")
            assert model.time_left(0) == 30
            ui.leave()
            assert await asyncio.wait_for(task, 30) == "left"
    asyncio.run(main())


def test_the_warning_rings_the_bell_unless_m_muted_it() -> None:
    async def main() -> None:
        model, table = clocked(clock=60)
        out = BellOutput()
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(table), input=keys, output=out)
            table.start()
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            assert "m: mute" in screen_text(ui)
            model.update(table.session, ClockWarning(15))  # what our node's MoveClock emits at 15 s left
            assert out.bells == 1
            screen = screen_text(ui)
            assert "15 s left: then the stand-in plays your lowest card" in screen
            keys.send_text("m")
            await until(lambda: ui.muted, "the mute key")
            assert "m: unmute" in screen_text(ui)
            model.update(table.session, ClockWarning(15))
            assert out.bells == 1, "muted: no bell"
            assert "15 s left" in screen_text(ui)  # the warning line still shows
            keys.send_text("m")
            await until(lambda: not ui.muted, "the bell back on")
            model.update(table.session, ClockWarning(15))
            assert out.bells == 2
            keys.send_text("?")
            await until(lambda: ui.help, "the help")
            help_screen = screen_text(ui)
            assert "mute" in help_screen and "stand-in" in help_screen
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_when_the_clock_runs_out_the_stand_in_plays_and_the_prompt_moves_on() -> None:
    async def main() -> None:
        model, table = clocked(clock=60)
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(table), input=keys, output=SizedOutput())
            table.start()
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            keys.send_text("9")  # typed, not played
            await until(lambda: ui.typed == "9", "the typed digit")
            lowest = min(model.hand)
            # What our node does when the clock runs out: the stand-in's move, ClockRan first, then its outputs.
            outputs = table.session.play_stand_in()
            model.update(table.session, ClockRan(0, 0))
            assert model.asked is None and model.committed == lowest and ui.typed == ""
            screen = screen_text(ui)
            assert "time is up: the stand-in played for you" in screen and "Your turn" not in screen
            assert f"Committed {lowest}" in screen
            table.act(table.me, outputs)
            assert model.turn == 1 and model.asked == "card"  # the next turn asks again
            assert any(f"you {lowest}" in line for line in model.log)  # the stand-in's card was revealed as ours
            assert "Placing the cards of turn 1" in screen_text(ui)  # the prompt waits for the turn's cards
            await until(lambda: "Your turn" in screen_text(ui), "the prompt once the cards are placed")
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_away_seats_show_as_away_and_a_key_brings_ours_back() -> None:
    async def main() -> None:
        model, table = clocked(clock=60)
        seat = LocalSeat(table)
        presents: list[int] = []
        seat.on_present = lambda: presents.append(1)
        with create_pipe_input() as keys:
            ui = TableApp(model, seat, input=keys, output=SizedOutput())
            table.start()
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running, "the app")
            keys.send_text("\x1b[C")
            await until(lambda: ui.selected == 1, "a key")
            assert presents == [], "a player who is not away is not 'back'"
            model.update(table.session, SeatAway(1, True))
            model.update(table.session, SeatAway(0, True))
            screen = screen_text(ui)
            assert "away" in player_line(screen, "*you") and "away" in player_line(screen, "bot1")
            assert "away" not in player_line(screen, "bot2")
            assert "stand-in plays your cards until you press a key" in screen
            assert not model.here
            state = table_state(model)
            assert [p["away"] for p in state["players"]] == [True, True, False]
            assert state["players"][0]["status"] == "away"
            tv = table_state(model, tv=True)
            assert tv["players"][1]["status"] == "away" and "hand" not in tv
            keys.send_text("\x1b[D")  # any key: we are back at the keys
            await until(lambda: presents == [1], "present()")
            assert model.here and "You are back" in screen_text(ui)
            # Our own line says so at once (issue 23 item 9: "away" stayed until our next card was revealed).
            assert "away" not in player_line(screen_text(ui), "*you")
            assert table_state(model)["players"][0]["status"] != "away"
            keys.send_text("\x1b[C")
            await until(lambda: ui.selected == 1, "another key")
            assert presents == [1], "present() once per absence"
            model.update(table.session, SeatAway(0, False))  # a turn we played ourselves
            assert "away" not in player_line(screen_text(ui), "*you")
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_a_asks_the_stand_in_for_a_stalled_seat_and_the_turn_goes_on() -> None:
    """Two seats, the other one never moves (no bot answers for it): `a` signs STANDIN for it; ours is every
    other seat's vote, so its own session plays the stand-in's card and the turn resolves."""
    async def main() -> None:
        model = TableModel()
        table = LocalTable(Settings(players=2, point_limit=None, max_rounds=1), seed=bytes(32),
                           on_event=model.update)
        stalled = table.identities[1].peer
        del table.bots[stalled]
        with create_pipe_input() as keys:
            ui = TableApp(model, LocalSeat(table), input=keys, output=SizedOutput())
            table.start()
            task = asyncio.create_task(ui.app.run_async())
            await until(lambda: ui.app.is_running and model.asked == "card", "our turn")
            assert "a: stand-in" in screen_text(ui)
            keys.send_text("\x1b[D" + ENTER)  # our highest card (the first is chosen: left wraps to the last)
            await until(lambda: model.committed is not None and model.asked is None, "our card committed")
            assert model.committed == max(model.hand)
            assert table.session.waiting_for() == (1,) and model.turn == 0
            keys.send_text("a")
            await until(lambda: model.turn == 1, "the stand-in's card for bot1, and the next turn")
            assert 0 in table.session.slot("STANDIN", 0, standin_slot(0, 1))
            assert any("asked the stand-in to play for bot1" in line for line in model.log)
            reveal = table.sessions[stalled].slot("PLAY_REVEAL", 0, 0)[1]
            assert reveal.body.get("auto") is True
            keys.send_text("a")  # we have not played this turn: the game waits on us as well, and we are not asked
            await until(lambda: sum("asked the stand-in to play for bot1" in line for line in model.log) == 2,
                        "the second ask")
            assert 0 in table.session.slot("STANDIN", 0, standin_slot(1, 1))
            keys.send_text("a")  # asked already in this turn: nobody else to ask for
            await until(lambda: "nobody to ask the stand-in for" in (model.message or ""), "the refusal")
            ui.leave()
            await asyncio.wait_for(task, 30)
    asyncio.run(main())


def test_a_spectator_cannot_ask_the_stand_in() -> None:
    model, table = clocked()
    watch = TableApp(model, None, input=None, output=SizedOutput())
    table.start()
    watch.ask_stand_in()
    assert "asked the stand-in" not in " ".join(model.log)


async def test_a_real_node_whose_clock_runs_out_goes_away_and_a_key_brings_it_back() -> None:
    """Host (a person who never types) and a bot on 127.0.0.1, a 1 s clock: the stand-in plays each card, after
    three the seat shows away, and a key on the table calls Node.present()."""
    model = TableModel()
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0,
                on_event=lambda node, event: model.update(node.session, event))
    identity = Identity.generate()
    bot = Node(identity, name="bot1", bot=make_bot("heuristic", identity.secret), interface=LO, drop_after=0)
    try:
        await host.listen()
        await host.host(Settings(players=2, max_rounds=1, point_limit=None, deal="open", clock=1))
        await bot.listen()
        with create_pipe_input() as keys:
            ui = TableApp(model, NodeSeat(host), input=keys, output=BellOutput())
            task = asyncio.create_task(ui.app.run_async())
            bot.seat_key = host.seat_key  # it proves the host's seat key (protocol.md 14)
            await bot.join(LO, host.port, host.game_id)  # the last seat: the game starts
            await until(lambda: model.players and model.seat == 0, "the game", timeout=20)
            await until(lambda: any("time is up: the stand-in played for you" in line for line in model.log),
                        "the clock to run out", timeout=20)
            await until(lambda: model.players[0].away and not model.here, "our seat away", timeout=20)
            assert "away" in player_line(screen_text(ui), "*ann")
            assert not host.clock.here
            keys.send_text("x")  # any key
            await until(lambda: host.clock.here, "Node.present()")
            assert model.here
            ui.leave()
            await asyncio.wait_for(task, 30)
    finally:
        for node in (bot, host):
            await node.close()

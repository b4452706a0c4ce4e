"""Papercuts of the full-screen table (issue 23 item 9) on the real prompt_toolkit app, keys through a pipe: a name
of emoji keeps the points column where it is at 80 columns; a spectator's game-over screen offers no key to
play again."""

import asyncio
import re

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.utils import get_cwidth
from screens import SizedOutput, until
from test_app import play_to_the_end

from p2pnimmt.engine import Settings
from p2pnimmt.ui.app import TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel

COW = "🐮🐮🐮🐮🐮🐮🐮🐮 die Kuh"  # 8 emoji, 16 columns before the words


def test_an_emoji_name_keeps_the_points_column_at_80_columns():
    async def main():
        model, tv = TableModel(), TableModel()
        t = LocalTable(Settings(players=4, max_rounds=1, point_limit=None), name=COW, seed=bytes(32),
                       spectators=1, on_event=model.update, on_watch=tv.update)
        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            screen = screen_text(ui, 80, 24)
            lines = screen.splitlines()
            head = next(line for line in lines if "status" in line and "pts" in line)
            end = get_cwidth(head[: head.index("pts") + 3])
            below = lines[lines.index(head) + 1:]
            for p in model.players:
                row = next(line for line in below if p.name[:2] in line)
                assert str(p.score) in row, (p.name, row, below)
                at = row.rindex(str(p.score)) + len(str(p.score))
                assert get_cwidth(row[:at]) == end, (p.name, row, head)
            for line in lines:
                assert get_cwidth(line) <= 80, line
            play_to_the_end(model, LocalSeat(t))
            for line in ui._round_text().splitlines() + ui._over_text().splitlines():  # the boxes' text
                assert get_cwidth(line) <= 76, line
            task.cancel()
    asyncio.run(main())


def test_a_spectators_game_over_screen_offers_no_key_to_play_again():
    async def main():
        model, tv = TableModel(), TableModel()
        t = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), seed=bytes(32), spectators=1,
                       on_event=model.update, on_watch=tv.update)
        with create_pipe_input() as inp:
            watch = TableApp(tv, None, input=inp, output=SizedOutput(80, 24), again=lambda: "follows")
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            play_to_the_end(model, LocalSeat(t))
            tv.rematch = "ann offers a rematch: this screen follows it"
            screen = screen_text(watch, 80, 24)
            assert "GAME OVER" in screen, screen
            assert not re.search(r"\br:|play again", screen), screen
            assert "this screen follows it" in screen, screen
    asyncio.run(main())


async def at_first_ask(settings: Settings, check, **table) -> None:
    """The person's seat of a LocalTable (seed 0) on the full-screen app at 80×24, keys through a pipe: `await
    check(ui, model, table)` once the game first asks something of it."""
    model = TableModel()
    t = LocalTable(settings, seed=bytes(32), on_event=model.update, **table)
    with create_pipe_input() as inp:
        ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(80, 24))
        task = asyncio.create_task(ui.app.run_async())
        t.start()
        await until(lambda: model.asked is not None, "the first ask")
        try:
            await check(ui, model, t)
        finally:
            task.cancel()


def second_round(clock: int | None, check) -> None:
    """Play round 1 from the person's seat (the first card, the first row) at 80×24, then `check(ui, model, table)`
    once the next round asks for our first card."""
    async def round_two(ui, model, t):
        play_to_the_end(model, LocalSeat(t), until=lambda: model.round_over is not None)
        await until(lambda: model.round == 1 and model.asked == "card", "the next round's first card")
        check(ui, model, t)

    asyncio.run(at_first_ask(Settings(players=3, clock=clock, max_rounds=2, point_limit=None), round_two))


def test_with_a_clock_the_round_end_box_leaves_the_table_to_the_next_turn():
    """The next round's clock runs for us: the round-end box closes so the table and the clock are seen (issue 23
    item 9: it covered them until Enter); the round's points stay in the log and the player list."""
    def check(ui, model, table):
        screen = screen_text(ui, 80, 24)
        assert "End of round" not in screen and "Your hand" in screen, screen
        assert any(line.startswith("Round 1 over:") for line in model.log)
        LocalSeat(table).play(model.hand[0])  # between our moves, nothing asked of us: the box stays closed
        assert not ui.round_screen
    second_round(30, check)


def test_without_a_clock_the_round_end_box_waits_for_enter():
    def check(ui, model, table):
        assert "End of round 1" in screen_text(ui, 80, 24)
    second_round(None, check)


def test_on_a_wide_terminal_the_player_list_stays_beside_the_rows():
    """At 200 columns the player list sat at the far right, 150 columns from the rows (issue 23 item 9)."""
    async def main():
        model = TableModel()
        t = LocalTable(Settings(players=4, max_rounds=1, point_limit=None), seed=bytes(32), on_event=model.update)
        with create_pipe_input() as inp:
            ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput(200, 40))
            task = asyncio.create_task(ui.app.run_async())
            t.start()
            await until(lambda: model.asked is not None, "the first ask")
            lines = screen_text(ui, 200, 40).splitlines()
            head = next(line for line in lines if "6th" in line and "player" in line)
            gap = head.index("player") - (head.index("6th") + len("6th bh"))
            assert gap <= 8, head
            row = next(line for line in lines if line.startswith("row 1"))
            assert get_cwidth(row.rstrip()) <= 120, row
            task.cancel()
    asyncio.run(main())


async def test_the_lobby_code_is_in_large_letters_on_a_large_terminal() -> None:
    """At 160×48 the code was 3 lines of spaced letters in a frame (issue 23 item 9): now 10 lines of block letters,
    and the code in plain letters under them; at 80×24 the frame as before (room for ten seats)."""
    from p2pnimmt.net.discovery import game_code
    from p2pnimmt.net.node import Node
    from p2pnimmt.protocol.identity import Identity
    from p2pnimmt.ui.letters import block_letters
    from p2pnimmt.ui.lobby import LobbyScreen

    host = Node(Identity.generate(), name="ann", interface="127.0.0.1", drop_after=0)
    try:
        await host.listen()
        await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
        code = game_code(host.game_id)
        with create_pipe_input() as keys:
            screen = LobbyScreen(host, code, None, input=keys, output=SizedOutput(160, 48))
            text = screen_text(screen, 160, 48)
            blocks = [line for line in text.splitlines() if "██" in line]
            assert len(blocks) == 10 and max(get_cwidth(line.strip("│ ")) for line in blocks) >= 40, text
            for line in block_letters(code, 2):
                assert line.rstrip() in text
            assert "   ".join(code) in text
            small = LobbyScreen(host, code, None, input=keys, output=SizedOutput(80, 24))
            assert "██" not in screen_text(small, 80, 24) and f"|   {'   '.join(code)}   |" in screen_text(small)
    finally:
        await host.close()


def test_the_title_says_you_not_you_colon_you_for_a_person_who_gave_no_name():
    """`p2pnimmt play` with no name saved plays as "you" (cli): the title line said "you: you"."""
    async def title(name: str) -> str:
        lines: list[str] = []

        async def first_line(ui, model, t):
            lines.append(screen_text(ui, 80, 24).splitlines()[0])

        await at_first_ask(Settings(players=3, max_rounds=1, point_limit=None), first_line, name=name)
        return lines[0]

    unnamed, named = asyncio.run(title("you")), asyncio.run(title("ann"))
    assert unnamed.rstrip().endswith("turn 1/10   you") and "you: you" not in unnamed, unnamed
    assert named.rstrip().endswith("turn 1/10   you: ann"), named

"""The host's full-screen lobby in this process: a real Node on 127.0.0.1, keys through a pipe, the screen as text.

The screen follows the node through its public lobby subscription and linked peers: a bot added by a key
shows up connected, and starting the game closes the lobby.
"""

from __future__ import annotations

import asyncio
from functools import partial

import screens
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput

from p2pnimmt.app.lobby import lobby_command
from p2pnimmt.bots import make_bot
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.ui.app import screen_text
from p2pnimmt.ui.lobby import LobbyScreen

LO = "127.0.0.1"
until = partial(screens.until, timeout=20.0)  # waits on real nodes and mDNS: longer than a screen's


async def test_host_lobby_adds_a_bot_by_key_shows_it_connected_and_starts() -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    helpers: list[Node] = []
    changes: list[str] = []
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    host.watch_lobby(lambda node: changes.append(node.lobby_state))  # the app's listener, before the screen's

    async def add_bot(kind: str) -> None:
        identity = Identity.generate()
        helper = Node(identity, name=f"bot{len(helpers) + 1}", bot=make_bot(kind, identity.secret), interface=LO,
                      drop_after=0)
        helpers.append(helper)
        await helper.listen()
        helper.seat_key = host.seat_key  # a bot the host adds proves its key as any joiner
        await helper.join(LO, host.port, host.game_id)

    try:
        with create_pipe_input() as keys:
            command = lambda words: lobby_command(host, helpers, add_bot, words)  # noqa: E731
            screen = LobbyScreen(host, game_code(host.game_id), command, input=keys, output=SizedOutput())
            shown = asyncio.ensure_future(screen.run())
            await until(lambda: screen.app.is_running, "the lobby")
            assert "Seats 1/3" in screen_text(screen)
            keys.send_text("b")
            await until(lambda: "Seats 2/3" in screen_text(screen), "the bot's seat")
            text = screen_text(screen)
            bot_line = next(line for line in text.splitlines() if "bot1" in line)
            assert "bot" in bot_line and "connected" in bot_line and "not connected" not in bot_line
            keys.send_text("s")
            assert await asyncio.wait_for(shown, 20) is True, "starting closes the lobby; the host stays"
        assert host.lobby_state == "playing" and changes[-1] == "playing"
    finally:
        for node in (*helpers, host):
            await node.close()


async def test_host_lobby_keys_set_the_clock_and_never_leave_a_game_without_an_end() -> None:
    """`c` cycles the clock 30 -> 60 -> 120 -> off; `p` skips "no point limit" while there is no round limit
    (it used to refuse forever after 33: "a game needs an end")."""
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open", clock=60))
    try:
        with create_pipe_input() as keys:
            command = lambda words: lobby_command(host, [], None, words)  # noqa: E731
            screen = LobbyScreen(host, game_code(host.game_id), command, input=keys, output=SizedOutput())
            shown = asyncio.ensure_future(screen.run())
            await until(lambda: screen.app.is_running, "the lobby")
            assert "Clock: 60 s a move" in screen_text(screen)
            seen = []
            for _ in range(4):
                keys.send_text("c")
                await until(lambda: host.settings.clock != (seen[-1] if seen else 60), "the clock to change")
                seen.append(host.settings.clock)
            assert seen == [120, None, 30, 60]
            keys.send_text("c")
            await until(lambda: host.settings.clock == 120, "120 s")
            keys.send_text("c")
            await until(lambda: "Clock: none" in screen_text(screen), "no clock shown")
            limits = []
            for _ in range(5):
                before = host.settings.point_limit
                keys.send_text("p")
                await until(lambda: host.settings.point_limit != before, "the point limit to change")
                limits.append(host.settings.point_limit)
            assert limits == [100, 33, 66, 100, 33]  # never "none": the game would have no end
            assert "ends at 33 points" in screen_text(screen)
            assert "a game needs an end" not in screen_text(screen)
            keys.send_text("q")
            await asyncio.wait_for(shown, 20)
    finally:
        await host.close()


async def test_lobby_command_sets_the_clock_and_says_so() -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    try:
        assert "90 s a move" in await lobby_command(host, [], None, ["clock", "90"])
        assert host.settings.clock == 90
        assert "no clock" in await lobby_command(host, [], None, ["clock", "off"])
        assert host.settings.clock is None
        try:
            await lobby_command(host, [], None, ["clock", "soon"])
        except ValueError as exc:
            assert "clock takes seconds" in str(exc)
        else:
            raise AssertionError("a clock of 'soon' was taken")
        assert "ends at 66 points or 1 round" in await lobby_command(host, [], None, ["rounds", "1"])
    finally:
        await host.close()


async def test_lobby_command_refuses_a_game_longer_than_a_seats_chain_may_be() -> None:
    """protocol.md 8, "A chain's bound": a game with no point limit and 101 rounds or more, or with a point limit over
    200 and no round limit of 100 or fewer, could pass the 16,384 messages or 4 MiB every node accepts of one seat
    (the game stops there for good). Main took each."""
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    try:
        for words in (["points", "201"], ["rounds", "150"], ["points", "none"]):
            if words == ["rounds", "150"]:  # (a point limit of 66 ends it first: taken)
                assert "ends at 66 points or 150 rounds" in await lobby_command(host, [], None, words)
                continue
            try:
                await lobby_command(host, [], None, words)
            except ValueError as exc:
                assert "ends within 100 rounds" in str(exc), exc
            else:
                raise AssertionError(f"{words} was taken: {host.settings}")
        assert host.settings.point_limit == 66 and host.settings.max_rounds == 150
        assert "ends at 66 points or 100 rounds" in await lobby_command(host, [], None, ["rounds", "100"])
        assert "ends at 100 rounds" in await lobby_command(host, [], None, ["points", "none"])
        assert "ends at 200 points or 100 rounds" in await lobby_command(host, [], None, ["points", "200"])
    finally:
        await host.close()


async def test_the_lobby_says_game_code_over_the_code_not_beside_the_host_key() -> None:
    """The lobby's first line said "p2pnimmt lobby   game code:   host key QUNX-JF72" (German "Spielcode:   Schlüssel
    des Gastgebers ..."), the code itself on the lines under it: the host key read as the game's code. Now the host
    key comes first and "game code:" ends the line, over the code it names; in German too."""
    from p2pnimmt import i18n
    from p2pnimmt.protocol.identity import fingerprint

    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, max_rounds=1, point_limit=None, deal="open"))
    key = fingerprint(host.identity.peer)
    try:
        for lang, head in (("en", f"p2pnimmt lobby   host key {key}   game code:"),
                           ("de", f"p2pnimmt Warteraum   Schlüssel des Gastgebers {key}   Spielcode:")):
            i18n.use(lang)
            try:
                with create_pipe_input() as keys:
                    screen = LobbyScreen(host, game_code(host.game_id), None, input=keys, output=SizedOutput())
                    shown = asyncio.ensure_future(screen.run())
                    await until(lambda: screen.app.is_running, "the lobby")
                    first = next(line for line in screen_text(screen).splitlines() if "lobby" in line or
                                 "Warteraum" in line)
                    assert first.strip("│ ") == head, first
                    screen.app.exit(result=False)
                    await asyncio.wait_for(shown, 20)
            finally:
                i18n.use("en")
    finally:
        await host.close()

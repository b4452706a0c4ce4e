"""The host's terminal lobby starts the TV page (`t`, or the `tv` command): a read-only page of the node's table."""

from __future__ import annotations

import re

from p2pnimmt.app.lobby import lobby_command
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity

LO = "127.0.0.1"


async def test_the_lobby_starts_a_tv_page_that_shows_the_code_and_no_controls(browser) -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    try:
        said = await lobby_command(host, [], None, ["tv"])
        url = re.search(r"TV page: (http://127\.0\.0\.1:\d+/\?t=\S+)", said).group(1)
        page = await browser.new_page(viewport={"width": 1280, "height": 720})
        await page.goto(url)
        await page.wait_for_function("() => document.body.dataset.kind === 'lobby'")
        # the room's screens show the code with its seat key (protocol.md 14)
        assert await page.inner_text("#lobby-code") == f"{game_code(host.game_id)}-{host.seat_key}"
        assert "ann" in await page.inner_text("#lobby-players")
        assert await page.locator("#lobby-controls").is_hidden()  # read-only: the host's controls stay at the host
        wrong = await browser.new_page()
        response = await wrong.goto(url.replace("t=", "t=x"))
        assert response is not None and response.status == 403
    finally:
        await host.close()
        host.done.set()

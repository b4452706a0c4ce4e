"""The turn clock and away on the page (issue 13, item 1): each player's remaining time in the player list,
counted down by the page between states, and "away" for a seat the stand-in plays for; the TV shows them too."""

from __future__ import annotations

import asyncio
import re

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import SeatAway
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel
from p2pnimmt.web.server import WebServer
from p2pnimmt.web.table import Page, Placer, TvModel, feed


async def test_the_page_and_the_tv_show_the_time_left_and_away(browser, no_delay) -> None:
    model, tv_model = TableModel(), TvModel()
    update = feed(model, tv_model)
    table = LocalTable(Settings(players=3, clock=40, point_limit=None, max_rounds=1), name="ann", seed=bytes(32),
                       on_event=update)
    placers = Placer(model), Placer(tv_model)
    seat, tv = Page(model, seat=LocalSeat(table)), Page(tv_model, tv=True)
    server = WebServer("127.0.0.1", 0)
    seat_token, tv_token = server.add(seat.view), server.add(tv.view)
    await server.start()
    try:
        table.start()
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(server.url(seat_token))
        ann = "#players tr[data-name='ann'] td.status"
        await page.wait_for_function(f"() => /^choosing \\d+s$/.test(document.querySelector(\"{ann}\")?.textContent)")
        first = int(re.search(r"(\d+)s", await page.inner_text(ann)).group(1))
        assert 35 <= first <= 40
        # No new state comes while we think: the page counts down by itself.
        await page.wait_for_function(
            f"n => Number(document.querySelector(\"{ann} .time\").textContent.slice(0, -1)) < n", arg=first,
            timeout=5000)
        assert "s" not in await page.inner_text("#players tr[data-name='bot1'] td.status")  # committed: no clock
        tv_page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await tv_page.goto(server.url(tv_token))
        await tv_page.wait_for_function(
            f"() => /^choosing \\d+s$/.test(document.querySelector(\"{ann}\")?.textContent)")
        update(table.session, SeatAway(1, True))  # as a node's session reports it
        for p in (page, tv_page):
            await p.wait_for_function(
                "() => document.querySelector(\"#players tr[data-name='bot1'] td.status\").textContent === 'away'")
            assert await p.locator("#players tr.st-away[data-name='bot1']").count() == 1
        await page.locator("#hand .card.selected").first.click()  # the chosen card, clicked: committed
        await page.wait_for_function("() => document.body.dataset.key.split('.')[2] === '2'")  # the bots answered
        await page.wait_for_function(f"() => /^choosing \\d+s$/.test(document.querySelector(\"{ann}\").textContent)")
        assert not errors, errors
    finally:
        for placer in placers:
            placer.stop()
        await server.close()
        await asyncio.sleep(0)

"""The turn clock and away on the page (issue 13, item 1): each player's remaining time in the player list,
counted down by the page between states, and "away" for a seat the stand-in plays for; the TV shows them too."""

from __future__ import annotations

import asyncio
import math
import time

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import SeatAway
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel
from p2pnimmt.web.server import WebServer
from p2pnimmt.web.table import Page, Placer, TvModel, feed

# Recorded from the page's start: each change of ann's shown time, as the page makes it: when (the page's Date.now,
# ms), the value and the state's left it counts from; the first comes just after the page drew the state.
WATCH_ANN = """(() => {
  const seen = window.annSeen = [];
  new MutationObserver(() => {
    const t = document.querySelector("#players tr[data-name='ann'] td.status .time");
    if (!t) return;
    const value = Number(t.textContent.slice(0, -1)), left = Number(t.dataset.left), last = seen[seen.length - 1];
    if (!last || last[1] !== value || last[2] !== left) seen.push([Date.now(), value, left]);
  }).observe(document, {childList: true, characterData: true, subtree: true});
})()"""


async def test_the_page_and_the_tv_show_the_time_left_and_away(browser, no_delay) -> None:
    model, tv_model = TableModel(), TvModel()
    update = feed(model, tv_model)
    # A long clock: a loaded machine may take long to open the page, and ann's clock must not run out meanwhile.
    clock = 600
    table = LocalTable(Settings(players=3, clock=clock, point_limit=None, max_rounds=1), name="ann",
                       seed=bytes(32), on_event=update)
    placers = Placer(model), Placer(tv_model)
    seat, tv = Page(model, seat=LocalSeat(table)), Page(tv_model, tv=True)
    server = WebServer("127.0.0.1", 0)
    seat_token, tv_token = server.add(seat.view), server.add(tv.view)
    await server.start()
    try:
        table.start()
        asked_at = model.players[0].asked_at
        assert asked_at is not None and model.time_left(0) is not None  # ann's clock runs
        deadline = asked_at + clock + (time.time() - time.monotonic())  # on the wall clock, the page's Date.now

        def left(at: float) -> float:
            """The seconds truly left on ann's clock at wall time `at`."""
            return deadline - at

        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.add_init_script(WATCH_ANN)
        opened = time.time()
        await page.goto(server.url(seat_token))
        ann = "#players tr[data-name='ann'] td.status"
        await page.wait_for_function("() => window.annSeen.length > 0")
        # No new state comes while we think: the page counts down by itself, two seconds at least.
        first = (await page.evaluate("() => window.annSeen"))[0][1]
        await page.wait_for_function(
            f"n => Number(document.querySelector(\"{ann} .time\").textContent.slice(0, -1)) <= n - 2", arg=first)
        seen = await page.evaluate("() => window.annSeen")
        assert await page.evaluate("() => document.body.dataset.seen") == "1"  # one state all along: the page counted
        came, first, since = seen[0]
        # The time shown is the clock's: no less than is left when the page drew it, no more than the state's left,
        # which is no more than was left when the page was opened.
        assert math.ceil(left(came / 1000) - 0.01) <= first <= since <= math.ceil(left(opened)), (seen, opened)
        assert [value for _, value, _ in seen] == sorted({value for _, value, _ in seen}, reverse=True), seen  # down
        for at, value, left_sent in seen:
            assert left_sent == since, seen  # the state's left, counted down on the page
            # Never ahead of the clock, nor behind the state's left less the whole seconds since it came.
            assert math.ceil(left(at / 1000) - 0.01) <= value <= since - (at - came) // 1000, (at, value, seen)
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
